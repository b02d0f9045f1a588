// Placeholder until the weights generator lands (see weights.h).
#include "rooflens/exec/weights.h"
