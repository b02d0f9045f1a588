// Subcommand declarations: each has an Args struct, a CLI11 registration and a runner.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rooflens::cli {

struct AnalyzeArgs {
  std::vector<std::string> files;
  std::string dtype = "fp32";
  int64_t batch = 0;  // 0: not given
  bool batch_given = false;
  std::vector<std::string> input_shapes;
  bool unfused = false;
  std::string format = "table";
  bool allow_unknown = false;
  std::string output;
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
  std::string format = "table";
  std::string roofline;
  std::string output;
  std::string devices_dir;
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
