// Built without LibTorch: the trainer's entry points say so (trainer.h).
#include <fmt/format.h>

#include "rooflens/train/trainer.h"

namespace rooflens::train {
namespace {
Status no_torch() {
  return Status::unsupported("rooflens was built without LibTorch (find_package(Torch) failed at configure time; "
                             "install libtorch-dev and reconfigure): the training oracle cannot train");
}
}  // namespace

bool trainer_available() { return false; }
std::string trainer_versions() { return fmt::format("rooflens {}, built without LibTorch", ROOFLENS_VERSION); }
Expected<int64_t> torch_param_count(const Graph&) { return no_torch(); }
Expected<TrainResult> train_and_evaluate(const Graph&, const ImageDataset&, const ImageDataset&, const TrainRecipe&,
                                         uint64_t) {
  return no_torch();
}

}  // namespace rooflens::train
