// `rooflens-full` runs every command itself (entry.h).
#include "entry.h"

namespace rooflens::cli {

void run_elsewhere_if_needed(int, char**) {}

}  // namespace rooflens::cli
