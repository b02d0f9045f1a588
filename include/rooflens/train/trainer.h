// Training a rooflens IR graph with LibTorch (CPU): the part of the training oracle
// (train_oracle.h) that needs LibTorch. Its own library (rooflens_trainer), which the torch
// plugin holds; in the `rooflens` program these functions go through that plugin
// (plugin/plugin.h) and, when it is missing or cannot load, answer why (trainer_status()).
//
// The torch module IS the graph: one torch module or function per IR node, in the graph's
// topological order, for the ops the NATS-SSS generator emits (Conv, BatchNormalization, Relu,
// Add, AveragePool, GlobalAveragePool, Flatten, Gemm). Any other op is refused, naming the
// node. Weights start from LibTorch's default initialisation (the IR holds no weight data).
//
// The recipe is the NATS-Bench one (shared/reference/nats-sss.md section 3) scaled down:
// SGD, momentum 0.9 Nesterov, weight decay 5e-4 on every parameter, cross-entropy, learning
// rate 0.1 cosine-annealed to 0 per step over all steps of all epochs, no data augmentation,
// no warm-up; by default fewer images, one epoch and a smaller batch (see the defaults below),
// and BatchNorm statistics recomputed after training (bn_recalibration). Inputs are bytes / 255, normalised with the
// mean and standard deviation of the training images used (for all 60,000 Fashion-MNIST images they are the commonly
// quoted 0.2860 / 0.3530); the test images use the same two numbers.
//
// Determinism: torch::manual_seed(seed) before the weights are created, and the order of the
// training images each epoch is a Fisher-Yates shuffle driven by splitmix64 of (seed, epoch).
// The same graph, data, recipe, seed and thread count give bit-identical weights and the same
// accuracy; another thread count gives (slightly) different numbers, so the thread count is
// part of the recipe.
#pragma once

#include <cstdint>
#include <string>

#include "rooflens/ir/graph.h"
#include "rooflens/train/idx_dataset.h"
#include "rooflens/util/status.h"

namespace rooflens::train {

// Defaults of the training oracle, chosen so that a typical network trains and is tested in
// well under a minute on this machine class (measured, 1 thread, train + test: 8:8:8:8:8 3 s,
// 32:32:32:32:32 15 s, 40:40:40:40:40 (about the space's mean MACs) 29 s, 64:64:64:64:64 49 s;
// docs/nas.md, "The training oracle"). That budget buys about 3,000 training images; at the benchmark's batch
// of 256 those are 12 SGD steps, after which every network is still near chance (measured
// 14-20 % at 8 steps), so the batch is scaled down with the data: 32 gives 94 steps per
// epoch, about the benchmark's 98 (25,000 images / 256). --train-batch 256 restores it.
// One thread: with OpenMP's default waiting, 2 threads on this 2-core machine were 5-9x
// slower than 1 thread, and with OMP_WAIT_POLICY=PASSIVE no faster than 1 (batch 32 makes
// many small kernels); pass threads=2 where it helps.
inline constexpr int kDefaultEpochs = 1;
inline constexpr int64_t kDefaultBatch = 32;
inline constexpr int64_t kDefaultTrainSubset = 3000;
inline constexpr int64_t kDefaultTestSubset = 1000;
inline constexpr int kDefaultTrainThreads = 1;
inline constexpr int64_t kDefaultBnRecalibration = 500;

struct TrainRecipe {
  int epochs = kDefaultEpochs;    // >= 1
  int64_t batch = kDefaultBatch;  // >= 1 (the benchmark's: 256); also the test and BN passes' batch
  double lr = 0.1;                // initial learning rate, cosine to 0
  double momentum = 0.9;          // Nesterov
  double weight_decay = 5e-4;
  int64_t train_subset = kDefaultTrainSubset;  // the first N training images; 0: all
  int64_t test_subset = kDefaultTestSubset;    // the first M test images; 0: all
  int threads = kDefaultTrainThreads;          // torch intra-op threads, >= 1
  // After training, BatchNorm running statistics are recomputed as the exact mean and
  // variance over the first N training images (training-mode forward passes, no gradient),
  // replacing the momentum-0.1 running averages; 0 keeps those. With few steps (1 epoch of a
  // small subset is 8-40 steps) the running averages are still far from the statistics the
  // network was trained with, and test accuracy collapses towards chance without this.
  int64_t bn_recalibration = kDefaultBnRecalibration;

  // Canonical one-line form, part of a result's cache key: two recipes train identically
  // exactly when their strings are equal.
  std::string describe() const;
};

// Invalid input naming the field: epochs, batch or threads < 1, lr or weight decay not
// finite and >= 0, momentum outside [0, 1), a negative subset.
Status validate_recipe(const TrainRecipe& recipe);

// What one training of one network gave.
struct TrainResult {
  double accuracy = 0;       // percent, top-1 on the test images
  double train_seconds = 0;  // wall seconds: building the module, preparing the data, all epochs
  double eval_seconds = 0;   // wall seconds of the pass over the test images
  double final_loss = 0;     // mean cross-entropy over the last epoch's training batches
  int64_t train_images = 0;  // images trained on per epoch
  int64_t test_images = 0;   // images tested
  int threads = 0;           // torch intra-op threads used
  std::string recipe;        // TrainRecipe::describe()
  std::string versions;      // "rooflens 0.1.0, LibTorch 1.13.0"
};

// OK when training can run here; else why not (built without LibTorch; the torch plugin missing
// or not loadable: its path and dlerror()).
Status trainer_status();
// trainer_status().is_ok().
bool trainer_available();
// "rooflens X.Y.Z, LibTorch A.B.C", or "rooflens X.Y.Z, without the LibTorch plugin".
std::string trainer_versions();

// Trainable parameters of the torch module built from `net` (weights of Conv and Gemm,
// biases, BatchNorm weight and bias; running statistics are buffers and do not count), for
// checking the builder against count_params(). Unsupported for an op the builder lacks.
Expected<int64_t> torch_param_count(const Graph& net);

// Trains `net` (one input [N, C, H, W] with C = 1 and H x W = the images' size; one output of
// `classes` logits) on the first recipe.train_subset images of `train_set` and tests it on the
// first recipe.test_subset images of `test_set`. Invalid input for a graph that does not fit
// the data or a subset larger than the split; unsupported for an op the builder lacks or a
// build without LibTorch; internal when LibTorch throws.
Expected<TrainResult> train_and_evaluate(const Graph& net, const ImageDataset& train_set, const ImageDataset& test_set,
                                         const TrainRecipe& recipe, uint64_t seed);

}  // namespace rooflens::train
