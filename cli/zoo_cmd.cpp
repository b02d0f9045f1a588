// `rooflens zoo`: lists the bundled model zoo (models/zoo.json).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {

void add_zoo(CLI::App& app, ZooArgs& a) {
  auto* cmd = app.add_subcommand("zoo",
                                 "List a bundled model zoo (torchvision CNNs and transformers; --models-dir "
                                 "models/timm for timm's CNNs), weights stripped");
  cmd->add_option("--format", a.format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--models-dir", a.models_dir, "directory holding zoo.json (default: the bundled models/)");
  cmd->add_flag("--paths", a.paths, "print only the ONNX file paths, one per line");
}

int run_zoo(const ZooArgs& a) {
  const std::string dir = models_dir(a.models_dir);
  const std::string path = dir + "/zoo.json";
  std::ifstream f(path);
  if (!f) return report_error(Status::invalid(path + ": cannot open the zoo manifest"));
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("models") || !j["models"].is_array())
    return report_error(Status::invalid(path + ": not a rooflens.zoo manifest"));
  std::string out;
  if (a.paths) {
    for (const auto& m : j["models"]) out += dir + "/" + m.value("file", "") + "\n";
  } else if (a.format == "json") {
    out = j.dump(2) + "\n";
  } else {
    report::Table t;
    t.headers = {"model", "family", "input", "acc@1 (%)", "acc@5 (%)", "params (M)", "GMACs (batch 1)", "file"};
    t.numeric = {false, false, false, true, true, true, true, false};
    for (const auto& m : j["models"]) {
      std::string input;
      for (const auto& d : m.value("input_shape", nlohmann::json::array()))
        input += (input.empty() ? "" : "x") + std::to_string(d.get<int64_t>());
      auto num = [&](const char* k, double scale, int dec) {
        return m.contains(k) && m[k].is_number() ? report::fmt_scaled(m[k].get<double>(), scale, dec)
                                                 : std::string("-");
      };
      t.rows.push_back({m.value("name", ""), m.value("family", ""), input, num("acc1", 1, 3), num("acc5", 1, 3),
                        num("num_params", 1e6, 3), num("ref_macs", 1e9, 3), m.value("file", "")});
    }
    out = a.format == "csv" ? report::render_csv(t)
                            : report::render_text(t) + fmt::format("\n{} models in {}\n", t.rows.size(), dir);
  }
  Status w = write_output("", out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
