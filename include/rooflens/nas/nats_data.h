// Reading NATS-Bench's official size-space (SSS) data files natively: the
// `NATS-sss-v1_0-50262-simple/` directory holds `meta.pickle.pbz2` (the 32768 architecture
// strings) and one `NNNNNN.pickle.pbz2` per network (bzip2-compressed pickles, protocol 4,
// numpy scalars among the leaves). Files are parsed into plain structs; nothing of Python is
// needed at run time. Units are the benchmark's own: flop = MACs in millions per image,
// params in millions, times in seconds, accuracies in percent. The benchmark's other form,
// one file of all networks, is streamed by nats_single_file.h into the same structs.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rooflens/nas/pickle.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// Most a compressed file read whole may expand to (the largest simple-format file is
// ~0.6 MB); the single file (several GB of pickle) is streamed instead (nats_single_file.h).
constexpr size_t kNatsMaxDecompressedBytes = size_t{256} << 20;

// Decompresses a whole bzip2 buffer (one or more concatenated streams). Errors read
// "<source>: bzip2: <what> (compressed byte <n>)".
Expected<std::string> bz2_decompress(std::string_view compressed, const std::string& source,
                                     size_t max_bytes = kNatsMaxDecompressedBytes);
// Compresses `bytes` into one bzip2 stream (block size 9), for fixtures and tests.
Expected<std::string> bz2_compress(std::string_view bytes);

// Reads a file, bunzips it and unpickles it; messages start with the path.
Expected<pickle::ValuePtr> load_pickle_bz2(const std::string& path);
// The same over a whole file's bytes already in memory; `source` stands where the path
// would in messages (the file version reads the file and calls this).
Expected<pickle::ValuePtr> load_pickle_bz2_bytes(std::string_view compressed, const std::string& source);

// One training run: dataset at one seed, for one hp ("01", "12", "90" epochs).
struct NatsResult {
  std::string dataset;  // cifar10-valid, cifar10, cifar100, ImageNet16-120
  int seed = 0;
  int epochs = 0;
  double flop = 0;                            // MACs of conv and linear layers, millions per image
  double params = 0;                          // millions, BN included
  std::vector<double> latency;                // seconds per batch of 256 (the files hold one entry)
  std::map<int, double> train_acc1es;         // epoch -> top-1 train accuracy, %
  std::map<int, double> train_times;          // epoch -> seconds to train that epoch
  std::vector<std::string> eval_names;        // splits in file order: x-valid, x-test, ori-test
  std::map<std::string, double> eval_acc1es;  // "<split>@<epoch>" -> top-1 accuracy, %
  std::map<std::string, double> eval_times;   // "<split>@<epoch>" -> seconds for one pass

  // eval_acc1es / eval_times of `split` after `epoch` (0-based); NaN when absent.
  double eval_acc1(std::string_view split, int epoch) const;
  double eval_time(std::string_view split, int epoch) const;
};

// One hp setting of a network.
struct NatsHpResults {
  std::string hp;  // "01", "12" or "90"
  int arch_index = 0;
  std::string arch_str;
  std::map<std::string, std::vector<int>> dataset_seeds;  // dataset -> seeds in file order
  std::vector<NatsResult> results;                        // all (dataset, seed) pairs in file order

  const NatsResult* find(std::string_view dataset, int seed) const;
};

struct NatsNetwork {
  std::vector<NatsHpResults> hps;  // in file order
  const NatsHpResults* find(std::string_view hp) const;
};

// meta.pickle.pbz2 -> the architecture strings by index ("8:8:8:8:8" is index 0).
Expected<std::vector<std::string>> read_nats_meta(const std::string& path);

// NNNNNN.pickle.pbz2 -> every hp's results. Structural problems (a missing key, a wrong
// type) name the path, the hp and key, and the pickle offset of the value at fault.
Expected<NatsNetwork> read_nats_network(const std::string& path);

// The two readers over a file's bytes in memory (`source` stands for the path in messages),
// and their last step alone: the typed walk of an already unpickled tree. The file versions
// are exactly read + bunzip + unpickle + walk; the fuzz targets (fuzz/) call these.
Expected<std::vector<std::string>> read_nats_meta_bytes(std::string_view compressed, const std::string& source);
Expected<NatsNetwork> read_nats_network_bytes(std::string_view compressed, const std::string& source);
Expected<std::vector<std::string>> nats_meta_from_pickle(const pickle::Value& root, const std::string& source);
Expected<NatsNetwork> nats_network_from_pickle(const pickle::Value& root, const std::string& source);

// Path of network `index` inside a simple-format directory: "<dir>/000284.pickle.pbz2".
std::string nats_network_path(const std::string& dir, int index);

}  // namespace rooflens::nas
