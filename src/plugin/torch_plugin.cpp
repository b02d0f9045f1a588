// librooflens-torch.so's entry point (plugin.h): the LibTorch trainer of the training oracle.
#include "rooflens/plugin/plugin.h"

namespace {
const rooflens::plugin::TorchApi kTorch{&rooflens::train::trainer_versions, &rooflens::train::torch_param_count,
                                        &rooflens::train::train_and_evaluate};
const rooflens::plugin::Table kTable{
    rooflens::plugin::kApiVersion, ROOFLENS_VERSION, "torch", nullptr, &kTorch, nullptr};
}  // namespace

extern "C" __attribute__((visibility("default"))) const rooflens::plugin::Table* rooflens_plugin_table() {
  return &kTable;
}
