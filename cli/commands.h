// Subcommand declarations: each has an Args struct, a CLI11 registration and a runner.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "rooflens/exec/measure.h"
#include "rooflens/session/zoo_validation.h"

namespace rooflens::cli {

struct AnalyzeArgs {
  std::vector<std::string> files;
  std::string dtype = "fp16";
  int64_t batch = 0;  // 0: not given
  bool batch_given = false;
  std::vector<std::string> input_shapes;
  bool unfused = false;
  std::string format;  // empty: from -o's extension, else table (resolve_output)
  bool allow_unknown = false;
  std::string output;
  int jobs = 0;  // 0: one per core
};
void add_analyze(CLI::App& app, AnalyzeArgs& a);
int run_analyze(const AnalyzeArgs& a);

struct ZooArgs {
  std::string format = "table";
  std::string models_dir;
  bool paths = false;
};
void add_zoo(CLI::App& app, ZooArgs& a);
int run_zoo(const ZooArgs& a);

}  // namespace rooflens::cli

namespace rooflens::cli {

struct PredictArgs {
  std::vector<std::string> files;
  bool zoo = false;
  std::string device = "v100";
  std::string dtype = "fp16";
  std::string batch = "max";
  std::vector<std::string> input_shapes;
  std::string format;  // empty: from -o's extension, else table (resolve_output)
  std::string roofline;
  std::string output;
  std::string devices_dir;
  std::string engine;  // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
  bool datasheet_peak = false;
};
void add_predict(CLI::App& app, PredictArgs& a);
int run_predict(const PredictArgs& a);

struct DevicesArgs {
  std::string format = "table";
  std::string devices_dir;
};
void add_devices(CLI::App& app, DevicesArgs& a);
int run_devices(const DevicesArgs& a);

}  // namespace rooflens::cli

namespace rooflens::cli {

// `rooflens probe cpu|gpu|jpeg` (cli/probe_cmd.cpp; gpu in cli/probe_gpu_cmd.cpp).
struct ProbeArgs {
  std::string target;  // the probe subcommand given ("cpu", "gpu" or "jpeg")
  int threads = 0;     // 0: every CPU this process may use
  bool quick = false;
  int repeats = 0;  // 0: the probe's default
  std::string out;
  std::string json_out;  // also write the rooflens.probe/1 object here
  std::string id = "local-cpu-probe";
  std::string isa = "auto";
  std::string format = "table";
  bool quiet = false;
  bool kernels = false;        // probe cpu: also measure the kernel table into the --out file
  int kernel_rounds = 0;       // probe cpu --kernels: rounds over the shapes (0: 3, --quick 1)
  std::string kernel_samples;  // probe cpu --kernels: also write every timed shape here (JSON)
  // probe jpeg: decode at the model's input size and at a typical source photo size.
  std::string jpeg_size = "224x224";
  std::string jpeg_source_size = "500x375";
  double jpeg_seconds = 2.0;  // per size
  // probe gpu: the CUDA device ordinal, its device-file id, and the device database to find
  // the datasheet it is compared with (--out, --json, --quick, --repeats, --format and --quiet
  // are shared with probe cpu).
  int gpu = 0;
  std::string gpu_id = "local-gpu-probe";
  std::string devices_dir;
};
void add_probe(CLI::App& app, ProbeArgs& a);
int run_probe(const ProbeArgs& a);
// Registers `probe gpu` under the probe subcommand; runs it (cli/probe_gpu_cmd.cpp).
void add_probe_gpu(CLI::App& probe, ProbeArgs& a);
int run_probe_gpu(const ProbeArgs& a);

}  // namespace rooflens::cli

namespace rooflens::cli {

struct MeasureArgs {
  std::string file;  // one ONNX model
  std::string backend = "cpu";
  std::string batch = "1";  // N, or max: the largest batch that fits this machine's memory
  int threads = 0;
  std::string device = "this-cpu";
  bool verify = false;
  bool no_tune = false;
  bool no_buffer_reuse = false;
  bool keep_denormals = false;
  std::string layout = "channels-last";
  std::string format;  // empty: from -o's extension, else table (resolve_output)
  std::string output;
  std::string devices_dir;
  double max_seconds = 10;
  std::vector<std::string> input_shapes;                 // --input-shape (loading.h)
  std::string dtype = "fp32";                            // fp32, or fp16 on the CUDA backend
  bool graph = false;                                    // CUDA backend: replay the model as one CUDA graph
  bool no_host_reference = false;                        // skip the host-state reference around the runs
  double reference_max_move = kDefaultReferenceMaxMove;  // a block whose reference moved more is flagged and repeated
  bool no_paired_reference = false;                      // no reference pass beside each timed run
  double state_wait = 0;                                 // --state-wait: seconds to wait for the table's dispatch state
  bool fixed_threads = false;                            // no fewer threads when the machine is contended
};
void add_measure(CLI::App& app, MeasureArgs& a);
int run_measure(const MeasureArgs& a);

struct ValidateArgs {
  std::string device = "this-cpu";
  bool zoo = false;
  std::string models;
  int64_t batch = 1;
  int threads = 0;
  std::string format;  // empty: from -o's extension, else table (resolve_output)
  std::string output;
  std::string devices_dir;
  std::string engine;  // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
  double max_seconds = 3;
  int repeat = 1;                  // rounds over the models, alternating them; each model's spread reported
  int max_repeat = 0;              // --max-repeat: more rounds, up to this many, for unsettled medians
  int state_repeat = 0;            // --state-repeat: more rounds, up to this many, for models outside the state
  double settle_tolerance = 0.05;  // --settle: the +-share a settled median's interval stays within
  bool no_host_reference = false;
  double reference_max_move = kDefaultReferenceMaxMove;
  bool no_paired_reference = false;
  double state_wait = kDefaultValidateStateWait;  // --state-wait
  std::string fit_out;                            // fit efficiencies on half the models, write the device file here
  std::string backend = "cpu";                    // cpu (oneDNN), reference, or cuda
  std::string dtype = "fp32";                     // fp32, or fp16 on the CUDA backend
  std::string modes = "eager";                    // CUDA backend: eager (per-layer times), graph, or eager,graph
  std::string layers_dir;                         // each model's measurement (rooflens.measure/1) written here
  bool keep_going = false;                        // a model that fails is reported, the others still run
  double warmup_seconds = -1;                     // < 0: the backend's default (1 s on a GPU)
  std::string measurements;  // a GPU corpus CSV (analysis/corpus.h): predictions beside it, no measuring
};
void add_validate(CLI::App& app, ValidateArgs& a);
int run_validate(const ValidateArgs& a);
int run_validate_corpus(const ValidateArgs& a);  // validate --measurements (cli/validate_corpus.cpp)

}  // namespace rooflens::cli

namespace rooflens::cli {

// `rooflens study` (cli/study_cmd.cpp).
struct StudyArgs {
  std::vector<std::string> files;
  bool zoo = false;
  std::string zoo_set = "torchvision";  // --zoo's value: torchvision, timm or all
  std::string models;
  std::string device;  // empty: v100, or this-cpu with --source measured
  std::string dtype;   // empty: fp16, or fp32 with --source measured
  std::string batch;   // empty: max, or 8 with --source measured
  std::string source = "predicted";
  std::string measurements, accuracy;
  std::string fold;
  std::string fold_factor = "4";
  bool no_fold = false;
  std::string util_peak = "datasheet";
  std::string report;
  std::string format;  // empty: from -o's extension, else summary (resolve_output)
  std::string output;
  int threads = 0, jobs = 0;
  double max_seconds = 3;
  std::string devices_dir;
  bool doctor = false;          // --report: add the doctor's section (largest gain per model)
  std::string backend = "cpu";  // --source measured: cpu (oneDNN) or cuda (the GPU at hand)
  bool graph = false;           // --backend cuda: whole-model CUDA graphs
  std::string engine;           // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
};
void add_study(CLI::App& app, StudyArgs& a);
int run_study(const StudyArgs& a);

}  // namespace rooflens::cli

namespace rooflens::cli {

// `rooflens whatif` (cli/whatif_cmd.cpp).
struct WhatIfArgs {
  std::string file;
  std::string device = "v100";
  std::string dtype = "fp16";
  std::string batch = "max";
  std::vector<std::string> input_shapes;
  std::string devices;
  std::string format;  // empty: from -o's extension, else table (resolve_output)
  std::string output;
  std::string devices_dir;
  std::string engine;  // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
};
void add_whatif(CLI::App& app, WhatIfArgs& a);
int run_whatif(const WhatIfArgs& a);

}  // namespace rooflens::cli

namespace rooflens::cli {

// `rooflens fold` (cli/fold_cmd.cpp). Numbers are taken as text so 1.5 or -2 get one clear line.
struct FoldArgs {
  std::string model;
  std::string factor;
  std::string align = "0";
  std::string batch;  // empty: the factor
  std::string dtype = "fp16";
  std::string weights = "stripped";
  std::string output;
};
void add_fold(CLI::App& app, FoldArgs& a);
int run_fold(const FoldArgs& a);

}  // namespace rooflens::cli

namespace rooflens::cli {

// `rooflens sss` (cli/sss_cmd.cpp).
struct SssArgs {
  std::string arch;   // c0:c1:c2:c3:c4
  std::string index;  // taken as text so a bad value gets one clear line
  bool all = false;
  std::string dataset = "cifar10";
  std::string device = "v100";
  std::string dtype = "fp16";
  std::string batch = "256";
  std::string onnx;
  std::string format;  // empty: table, or from -o's extension
  std::string output, report, accuracy;
  std::string nats;  // NATS-Bench data directory: --accuracy nats:DIR plus the stored values
  int jobs = 0;
  std::string devices_dir;
  std::string engine;  // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
  bool datasheet_peak = false;
};
void add_sss(CLI::App& app, SssArgs& a);
int run_sss(const SssArgs& a);

struct NasArgs {
  std::string space = "sss";
  std::string oracle;                                // nats:DIR | csv:FILE
  std::vector<std::string> strategies = {"random"};  // random, rea, reinforce, filter
  double budget = 20000;                             // simulated seconds per run
  int seeds = 1;
  uint64_t seed_base = 0;
  std::string reward = "accuracy";
  double target_throughput = 175000;
  double w = 0.07;
  std::string filter_order = "spread";
  std::string dataset = "cifar10";
  std::string device = "v100";
  std::string dtype = "fp16";
  std::string batch = "256";
  std::string throughput = "predicted";  // or measured (this CPU, oneDNN)
  double max_seconds = 0.5;              // per measured network
  std::string out;                       // directory: one JSONL log per run, result.json
  bool resume = false;
  int64_t max_evals = 0;  // --max-evals: SearchConfig::max_evaluations
  std::string report;
  int jobs = 0;
  std::string devices_dir;
  std::string engine;  // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
  bool datasheet_peak = false;
  // Training oracle (--oracle train:...): appended to its spec as KEY=VALUE when given (the
  // spec parser checks them); empty = the oracle's default.
  std::string epochs, train_batch, train_subset, test_subset, train_threads, train_clock;
  // Training oracle: the results database (cli/train_db_path.h): empty = the default file,
  // "none" = memory only.
  std::string db;
};
void add_nas(CLI::App& app, NasArgs& a);
int run_nas(const NasArgs& a);

// `rooflens nas-db list|export|check [FILE]` (cli/nas_db_cmd.cpp): the training oracle's
// results database.
struct NasDbArgs {
  std::string action;                  // the subcommand given
  std::string file;                    // empty: the default database
  bool rows = false;                   // list: every training too
  int64_t limit = 0;                   // list: at most this many trainings (implies rows); 0: all
  std::string out;                     // export: CSV file (empty or -: stdout)
  std::string space, dataset, recipe;  // list / export filters
};
void add_nas_db(CLI::App& app, NasDbArgs& a);
int run_nas_db(const NasDbArgs& a);

struct DoctorArgs {
  std::string file;
  std::string device;  // empty: v100, or the GPU at hand with --measured --backend cuda
  std::string dtype = "fp16";
  std::string batch = "max";
  std::vector<std::string> input_shapes;
  std::string devices;
  std::string format;  // empty: from -o's extension, else table (resolve_output)
  std::string output;
  std::string devices_dir;
  std::string engine;    // --engine: an engine profile id or .json file; empty: tensorrt on a GPU
  double jpeg_rate = 0;  // images/s per core (rooflens probe jpeg); 0: unknown
  bool measure_jpeg = false;
  bool verbose = false;
  bool measured = false;        // also run the model (this CPU, or the GPU with --backend cuda) for item 6's evidence
  std::string backend = "cpu";  // --measured: cpu (oneDNN, fp32) or cuda (the GPU at hand)
  int threads = 0;              // --measured: threads (0: all cores)
  double max_seconds = 5;       // --measured: time cap for the timed repeats
  bool zoo = false;             // every bundled model, ranked by the largest single gain
  std::string models;           // comma-separated zoo models (with --zoo: a subset)
  std::string models_dir;
};
void add_doctor(CLI::App& app, DoctorArgs& a);
int run_doctor(const DoctorArgs& a);

}  // namespace rooflens::cli
