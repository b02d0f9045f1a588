// The program's trainer (train/trainer.h): through the torch plugin (plugin.h), or its load
// status when it cannot be loaded.
#include <fmt/format.h>

#include "rooflens/plugin/plugin.h"

namespace rooflens::train {

Status trainer_status() {
  auto p = plugin::load(plugin::Kind::kTorch);
  return p ? Status::ok() : p.status();
}

bool trainer_available() { return trainer_status().is_ok(); }

std::string trainer_versions() {
  auto p = plugin::load(plugin::Kind::kTorch);
  if (!p) return fmt::format("rooflens {}, without the LibTorch plugin", ROOFLENS_VERSION);
  return (*p)->torch->versions();
}

Expected<int64_t> torch_param_count(const Graph& net) {
  auto p = plugin::load(plugin::Kind::kTorch);
  if (!p) return p.status();
  return (*p)->torch->param_count(net);
}

Expected<TrainResult> train_and_evaluate(const Graph& net, const ImageDataset& train_set, const ImageDataset& test_set,
                                         const TrainRecipe& recipe, uint64_t seed) {
  auto p = plugin::load(plugin::Kind::kTorch);
  if (!p) return p.status();
  return (*p)->torch->train_and_evaluate(net, train_set, test_set, recipe, seed);
}

}  // namespace rooflens::train
