// result.json, tables and report of `rooflens nas` (nas_output.h).
#include "nas_output.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.h"
#include "rooflens/report/nas_report.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {

using namespace rooflens::nas;

namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json final_of(const report::NasReportInput& in, AccuracyOracle& oracle, int64_t arch) {
  if (!in.final_accuracy.empty() && !std::isnan(in.final_accuracy[static_cast<size_t>(arch)]))
    return in.final_accuracy[static_cast<size_t>(arch)];
  auto f = oracle.final_accuracy(arch);
  return f ? nlohmann::json(*f) : nlohmann::json(nullptr);
}

// rooflens.nas/1: the configuration, the true frontier (or why there is none) and per run
// its best network, found frontier and score. Holds no timings, so a resumed run writes the
// same bytes as an uninterrupted one.
nlohmann::json result_json(const NasOutcome& o, const report::NasReportInput& in, AccuracyOracle& oracle) {
  const NasArgs& a = *o.args;
  const auto& pts = o.space->points;
  nlohmann::json j;
  j["schema"] = "rooflens.nas/1";
  j["space"] = {{"name", "NATS-Bench size search space (sss)"}, {"networks", pts.size()}, {"source", o.space->source}};
  j["oracle"] = o.oracle;
  j["budget_s"] = a.budget;
  j["reward"] = {{"kind", a.reward}, {"target_throughput", a.target_throughput}, {"w", a.w}};
  j["filter_order"] = a.filter_order;
  j["throughput_utilization_frontier_size"] = in.space_frontier.size();
  if (in.final_accuracy.empty()) {
    j["true_frontier"] = nullptr;
    j["true_frontier_absent_because"] = o.no_truth_reason;
  } else {
    nlohmann::json tf = nlohmann::json::array();
    for (int64_t i : in.true_frontier)
      tf.push_back({{"index", i},
                    {"arch", sss_arch_string(i)},
                    {"throughput", pts[i].throughput},
                    {"utilization", pts[i].utilization},
                    {"final_accuracy", in.final_accuracy[i]}});
    j["true_frontier"] = tf;
    // Partial: the frontier of the networks whose final accuracy is known, not of the space.
    j["true_frontier_is_reference_of_known"] = in.final_known_networks < static_cast<int64_t>(pts.size());
    j["final_accuracy_known_networks"] = in.final_known_networks;
  }
  if (in.utilization_accuracy_spearman)
    j["utilization_accuracy_spearman"] = {{"rho", *in.utilization_accuracy_spearman},
                                          {"networks", in.correlation_networks}};
  j["runs"] = nlohmann::json::array();
  for (size_t r = 0; r < in.runs.size(); ++r) {
    const report::NasRunSummary& run = in.runs[r];
    const SearchResult& s = run.result;
    nlohmann::json rj = {{"strategy", strategy_kind_name(s.config.strategy)},
                         {"seed", s.config.seed},
                         {"log", std::filesystem::path(o.logs[r]).filename().string()},
                         {"evaluations", s.evaluations.size()},
                         {"clock_s", s.clock_seconds}};
    if (s.best_arch >= 0)
      rj["best"] = {{"index", s.best_arch},
                    {"arch", sss_arch_string(s.best_arch)},
                    {"reward", s.best_reward},
                    {"final_accuracy", final_of(in, oracle, s.best_arch)}};
    nlohmann::json fr = nlohmann::json::array();
    for (size_t k : s.frontier) {
      const EvalRecord& e = s.evaluations[k];
      fr.push_back({{"index", e.arch},
                    {"arch", sss_arch_string(e.arch)},
                    {"throughput", e.throughput},
                    {"utilization", e.utilization},
                    {"accuracy", e.accuracy},
                    {"final_accuracy", final_of(in, oracle, e.arch)}});
    }
    rj["frontier_search_accuracy"] = fr;  // on the accuracy the search saw
    if (!s.lost.empty()) {                // asynchronous (MPI) runs: evaluations lost with their worker rank
      nlohmann::json lost = nlohmann::json::array();
      for (const LostEvaluation& l : s.lost)
        lost.push_back({{"index", l.arch},
                        {"arch", sss_arch_string(l.arch)},
                        {"oracle_seed", l.oracle_seed},
                        {"where", l.where},
                        {"start_s", l.start_seconds},
                        {"reason", l.reason}});
      rj["lost"] = lost;
    }
    if (run.score) {
      rj["frontier_final_accuracy"] = run.found_frontier;  // indices, on the final accuracy
      rj["score"] = {{"hypervolume_ratio", run.score->hypervolume_ratio},
                     {"igd", number_or_null(run.score->igd)},
                     {"true_frontier_found", run.score->true_frontier_found},
                     {"true_frontier_size", run.score->true_frontier_size}};
    }
    j["runs"].push_back(rj);
  }
  return j;
}

std::string reward_text(const NasArgs& a) {
  if (a.reward == "accuracy") return "accuracy (the benchmark's default)";
  return fmt::format("{} (MnasNet{}), G_T {} img/s{}", a.reward, a.reward == "soft" ? ": ACC x (T/G_T)^w" : "",
                     a.target_throughput, a.reward == "soft" ? fmt::format(", w {}", a.w) : "");
}

}  // namespace

int write_nas_outputs(NasOutcome o, AccuracyOracle& oracle) {
  const NasArgs& a = *o.args;
  auto in = report::make_nas_report_input(*o.space, o.final_accuracy, std::move(o.runs));
  if (!in) return report_error(in.status());
  in->oracle = o.oracle;
  in->device = o.device;
  in->reward = reward_text(a);
  const bool wall_clock = a.oracle.rfind("train:", 0) == 0 && a.train_clock != "simulated" &&
                          a.oracle.find("clock=simulated") == std::string::npos;
  in->budget = wall_clock
                   ? fmt::format("{} seconds of measured training time per run (checked before each sample)", a.budget)
                   : fmt::format("{} simulated seconds per run (checked before each sample)", a.budget);
  if (o.final_accuracy.empty()) in->notes.push_back("No true frontier: " + o.no_truth_reason);
  if (a.throughput == "measured")
    in->notes.push_back(
        "Throughput and utilization of the evaluated networks were measured on this CPU (oneDNN, "
        "fp32) while the searches ran; Figure 3 and the true frontier use the performance model's "
        "predictions for the whole space. Measurements do not repeat exactly: the JSONL logs are the "
        "record, and --resume takes them from there.");
  else
    in->notes.push_back(
        "Throughput and utilization are predictions of the rooflens performance model, not "
        "measurements; the filter's cost on the simulated clock is therefore 0.");
  const std::string path = (std::filesystem::path(a.out) / "result.json").string();
  Status w = write_output(path, result_json(o, *in, oracle).dump(1) + "\n");
  if (!w) return report_error(w);
  if (!a.report.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.report, ec);
    if (ec) return report_error(Status::invalid(fmt::format("--report '{}': {}", a.report, ec.message())));
    for (const auto& [name, svg] : report::nas_report_svgs(*in)) {
      Status s = write_output((std::filesystem::path(a.report) / name).string(), svg);
      if (!s) return report_error(s);
    }
    Status s = write_output((std::filesystem::path(a.report) / "index.html").string(), report::nas_report_html(*in));
    if (!s) return report_error(s);
  }
  std::string out = fmt::format("NAS on the NATS-Bench size space, {}\noracle: {}\nbudget: {}; reward: {}\n\n",
                                o.space->source, o.oracle, in->budget, in->reward);
  out += report::render_text(report::nas_summary_table(*in)) + "\n";
  out += report::render_text(report::nas_runs_table(*in));
  if (o.final_accuracy.empty()) out += fmt::format("\nno true frontier: {}\n", o.no_truth_reason);
  if (in->final_known_networks > 0 && in->final_known_networks < static_cast<int64_t>(o.final_accuracy.size()))
    out += fmt::format(
        "\nreference frontier ({} networks): the accuracy-throughput frontier of the {} networks whose "
        "final accuracy is known; HV ratio, IGD and \"true-frontier\" counts are against it\n",
        in->true_frontier.size(), in->final_known_networks);
  if (in->utilization_accuracy_spearman)
    out += fmt::format("utilization vs final accuracy: Spearman {:.3f} over {} distinct evaluated networks\n",
                       *in->utilization_accuracy_spearman, in->correlation_networks);
  size_t lost = 0;
  std::string lost_runs;
  for (const auto& run : in->runs)
    if (!run.result.lost.empty()) {
      lost += run.result.lost.size();
      lost_runs +=
          fmt::format("{}{} seed {}: {}", lost_runs.empty() ? "" : "; ", strategy_kind_name(run.result.config.strategy),
                      run.result.config.seed, run.result.lost.size());
    }
  if (lost > 0)
    out += fmt::format(
        "\nlost: {} evaluation(s) with their worker rank, never charged nor counted ({}); the logs and "
        "result.json list them\n",
        lost, lost_runs);
  out += fmt::format("\nresult: {}\n", path);
  if (!a.report.empty()) out += fmt::format("report: {}\n", (std::filesystem::path(a.report) / "index.html").string());
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace rooflens::cli
