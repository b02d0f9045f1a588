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
