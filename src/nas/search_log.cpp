// JSONL logs of search runs and resuming from them (search_log.h).
#include "rooflens/nas/search_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rooflens::nas {
namespace {

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// Appends whole lines to a file, one write(2) per line.
class AppendFile {
 public:
  AppendFile() = default;
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  ~AppendFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status open(const std::string& path, bool exclusive) {
    path_ = path;
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | (exclusive ? O_CREAT | O_EXCL : 0), 0644);
    if (fd_ < 0) {
      if (exclusive && errno == EEXIST)
        return Status::invalid(
            fmt::format("{}: a log of this run exists already; pass --resume to continue it, "
                        "or remove it to start again",
                        path));
      return Status::unavailable(fmt::format("{}: cannot open for writing: {}", path, std::strerror(errno)));
    }
    return Status::ok();
  }
  Status write_line(const std::string& line) {
    std::string buf = line + "\n";
    const char* p = buf.data();
    size_t left = buf.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::unavailable(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    return Status::ok();
  }

 private:
  int fd_ = -1;
  std::string path_;
};

Expected<EvalRecord> parse_eval(const nlohmann::json& j) {
  EvalRecord r;
  try {
    r.step = j.at("step").get<int64_t>();
    r.arch = j.at("index").get<int64_t>();
    r.accuracy = j.at("accuracy").get<double>();
    r.cost_seconds = j.at("cost_s").get<double>();
    r.clock_seconds = j.at("clock_s").get<double>();
    r.throughput = j.at("throughput").get<double>();
    r.utilization = j.at("utilization").get<double>();
    r.reward = j.at("reward").get<double>();
    r.oracle_seed = j.at("oracle_seed").get<uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    return Status::invalid(fmt::format("evaluation line: {}", e.what()));
  }
  if (!sss_index_valid(r.arch)) return Status::invalid(fmt::format("evaluation line: index {} out of range", r.arch));
  return r;
}

}  // namespace

std::string search_log_header(const SearchConfig& c, const std::string& oracle, const std::string& space) {
  return fmt::format(
      "{{\"schema\":\"rooflens.nas-log/1\",\"strategy\":\"{}\",\"seed\":{},\"budget_s\":{},\"reward\":\"{}\","
      "\"target_throughput\":{},\"w\":{},\"rea_population\":{},\"rea_tournament\":{},\"reinforce_lr\":{},"
      "\"reinforce_momentum\":{},\"filter_order\":\"{}\",\"filter_space_cost_s\":{},{}\"oracle\":{},\"space\":{}}}",
      strategy_kind_name(c.strategy), c.seed, c.budget_seconds, reward_kind_name(c.reward.kind),
      c.reward.target_throughput, c.reward.w, c.rea_population, c.rea_tournament, c.reinforce_lr, c.reinforce_momentum,
      filter_order_name(c.filter_order), c.filter_space_cost_seconds,
      // Only when set, so that logs of uncapped runs keep their first line.
      c.max_evaluations > 0 ? fmt::format("\"max_evaluations\":{},", c.max_evaluations) : std::string(), quoted(oracle),
      quoted(space));
}

std::string search_log_line(const EvalRecord& r) {
  return fmt::format(
      "{{\"step\":{},\"index\":{},\"arch\":\"{}\",\"accuracy\":{},\"cost_s\":{},\"clock_s\":{},\"throughput\":{},"
      "\"utilization\":{},\"reward\":{},\"oracle_seed\":{}}}",
      r.step, r.arch, sss_arch_string(r.arch), r.accuracy, r.cost_seconds, r.clock_seconds, r.throughput, r.utilization,
      r.reward, r.oracle_seed);
}

std::string search_log_done(const SearchResult& res) {
  std::string front, cands;
  for (size_t k : res.frontier) front += fmt::format("{}{}", front.empty() ? "" : ",", res.evaluations[k].arch);
  for (int64_t a : res.filter_candidates) cands += fmt::format("{}{}", cands.empty() ? "" : ",", a);
  // Lost evaluations (asynchronous runs) only when there are any: other logs keep their form.
  std::string lost;
  for (const LostEvaluation& l : res.lost) lost += fmt::format("{}{}", lost.empty() ? "" : ",", l.arch);
  return fmt::format(
      "{{\"done\":true,\"strategy\":\"{}\",\"seed\":{},\"evaluations\":{},\"clock_s\":{},\"best_index\":{},"
      "\"best_arch\":\"{}\",\"best_reward\":{},\"frontier\":[{}],\"filter_candidates\":[{}]{}}}",
      strategy_kind_name(res.config.strategy), res.config.seed, res.evaluations.size(), res.clock_seconds,
      res.best_arch, res.best_arch >= 0 ? sss_arch_string(res.best_arch) : "", res.best_reward, front, cands,
      res.lost.empty() ? std::string() : fmt::format(",\"lost\":[{}]", lost));
}

std::string search_log_lost(const LostEvaluation& l) {
  return fmt::format(
      "{{\"lost\":true,\"index\":{},\"arch\":\"{}\",\"oracle_seed\":{},\"start_s\":{},\"where\":{},"
      "\"reason\":{}}}",
      l.arch, sss_arch_string(l.arch), l.oracle_seed, l.start_seconds, quoted(l.where), quoted(l.reason));
}

Expected<LoggedRun> read_search_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::unavailable(fmt::format("{}: cannot open the search log", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  LoggedRun run;
  const size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  run.dropped_partial_bytes = static_cast<int64_t>(text.size() - complete);
  size_t pos = 0;
  int line_no = 0;
  while (pos < complete) {
    const size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    const std::string where = fmt::format("{}:{}", path, line_no);
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Status::invalid(fmt::format("{}: not a JSON object", where));
    if (line_no == 1) {
      if (j.value("schema", "") != "rooflens.nas-log/1")
        return Status::invalid(
            fmt::format("{}: not a rooflens search log (schema rooflens.nas-log/1 expected)", where));
      run.header = line;
      continue;
    }
    if (run.done) return Status::invalid(fmt::format("{}: a line after the closing line", where));
    if (j.contains("lost") && j["lost"].is_boolean()) {  // an evaluation lost with its worker (the closing
                                                         // line's "lost" is a list)
      run.lost_lines.push_back(line);
      continue;
    }
    if (j.contains("done")) {
      run.done = true;
      run.done_line = line;
      continue;
    }
    auto r = parse_eval(j);
    if (!r) return r.status().with_context(where);
    if (r->step != static_cast<int64_t>(run.evaluations.size()))
      return Status::invalid(
          fmt::format("{}: step {} out of sequence (expected {})", where, r->step, run.evaluations.size()));
    run.evaluations.push_back(*r);
    run.lines.push_back(line);
  }
  return run;
}

Expected<LoggedSearch> run_logged_search(const SearchConfig& config, const SpaceTable& space, AccuracyOracle& oracle,
                                         const std::string& oracle_description, const std::string& path, bool resume,
                                         ThroughputFn measure, EvalSink progress) {
  const bool measured = static_cast<bool>(measure);
  ROOFLENS_RETURN_IF_ERROR(validate_config(config));
  const std::string header = search_log_header(config, oracle_description, space.source);
  LoggedRun logged;
  AppendFile out;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (resume && exists) {
    auto r = read_search_log(path);
    if (!r) return r.status();
    logged = std::move(*r);
    if (!logged.header.empty() && logged.header != header)
      return Status::invalid(
          fmt::format("{}: this log was written by another run (its first line differs from "
                      "this run's; check strategy, seed, budget, reward, oracle and device):\n"
                      "  log: {}\n  now: {}",
                      path, logged.header, header));
    if (logged.dropped_partial_bytes > 0 || logged.header.empty()) {
      const off_t keep = static_cast<off_t>(st.st_size - logged.dropped_partial_bytes);
      if (::truncate(path.c_str(), keep) != 0)
        return Status::unavailable(fmt::format("{}: cannot cut the partial last line: {}", path, std::strerror(errno)));
    }
    ROOFLENS_RETURN_IF_ERROR(out.open(path, false));
    if (logged.header.empty()) ROOFLENS_RETURN_IF_ERROR(out.write_line(header));
  } else {
    ROOFLENS_RETURN_IF_ERROR(out.open(path, true));
    ROOFLENS_RETURN_IF_ERROR(out.write_line(header));
  }

  const auto n_logged = static_cast<int64_t>(logged.evaluations.size());
  EvalSource live = oracle_source(oracle, std::move(measure));
  EvalSource source = [&](int64_t step, int64_t arch, uint64_t oracle_seed) -> Expected<Evaluation> {
    if (step >= n_logged) return live(step, arch, oracle_seed);
    const EvalRecord& e = logged.evaluations[static_cast<size_t>(step)];
    if (e.arch != arch || e.oracle_seed != oracle_seed)
      return Status::invalid(
          fmt::format("{}: the run diverges from its log at step {}: the log has network {} "
                      "(oracle seed {}), the run asks for {} (oracle seed {})",
                      path, step, e.arch, e.oracle_seed, arch, oracle_seed));
    Evaluation ev;
    ev.accuracy = e.accuracy;
    ev.cost_seconds = e.cost_seconds;
    ev.detail = "replayed from the log";
    if (measured) {  // measurements are not repeatable: the log is the record
      ev.throughput = e.throughput;
      ev.utilization = e.utilization;
    }
    return ev;
  };
  EvalSink sink = [&](const EvalRecord& r) -> Status {
    const std::string line = search_log_line(r);
    if (r.step < n_logged) {
      if (line != logged.lines[static_cast<size_t>(r.step)])
        return Status::invalid(
            fmt::format("{}: step {} logged as\n  {}\nbut re-created as\n  {}\n(the space table "
                        "or the program changed since the log was written)",
                        path, r.step, logged.lines[static_cast<size_t>(r.step)], line));
      return Status::ok();
    }
    ROOFLENS_RETURN_IF_ERROR(out.write_line(line));
    return progress ? progress(r) : Status::ok();
  };
  auto result = run_search(config, space, source, sink);
  if (!result) return result.status();
  const std::string done = search_log_done(*result);
  if (logged.done) {
    if (done != logged.done_line)
      return Status::invalid(fmt::format("{}: the logged result differs from the replayed one:\n  log: {}\n  now: {}",
                                         path, logged.done_line, done));
  } else {
    ROOFLENS_RETURN_IF_ERROR(out.write_line(done));
  }
  LoggedSearch ls;
  ls.result = std::move(*result);
  ls.replayed_steps = n_logged;
  ls.was_complete = logged.done;
  return ls;
}

Expected<SearchResult> run_logged_async_search(const SearchConfig& config, const SpaceTable& space, EvalPool& pool,
                                               const std::string& oracle_description, const std::string& path,
                                               EvalSink progress, LostSink on_lost) {
  ROOFLENS_RETURN_IF_ERROR(validate_config(config));
  AppendFile out;
  ROOFLENS_RETURN_IF_ERROR(out.open(path, true));
  ROOFLENS_RETURN_IF_ERROR(out.write_line(search_log_header(config, oracle_description, space.source)));
  EvalSink sink = [&](const EvalRecord& r) -> Status {
    ROOFLENS_RETURN_IF_ERROR(out.write_line(search_log_line(r)));
    return progress ? progress(r) : Status::ok();
  };
  LostSink lost = [&](const LostEvaluation& l) -> Status {
    ROOFLENS_RETURN_IF_ERROR(out.write_line(search_log_lost(l)));
    return on_lost ? on_lost(l) : Status::ok();
  };
  auto result = run_async_search(config, space, pool, sink, lost);
  if (!result) return result.status();
  ROOFLENS_RETURN_IF_ERROR(out.write_line(search_log_done(*result)));
  return result;
}

}  // namespace rooflens::nas
