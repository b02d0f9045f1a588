// A worker rank (mpi_pool.h): jobs from rank 0, done by the DistributableOracle of the job's
// spec, results back; a heartbeat thread tells rank 0 this rank is alive while it works.
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "mpi_wire.h"
#include "rooflens/dist/mpi_pool.h"
#include "rooflens/nas/oracle.h"

namespace rooflens::dist {
namespace {

nlohmann::json error_json(const Status& st) {
  return {{"ok", false}, {"code", status_code_name(st.code())}, {"message", st.message()}};
}

}  // namespace

Status run_mpi_worker(MpiSession& session, const MpiWorkerOptions& options) {
  if (session.rank() == 0) return Status::invalid("MPI: rank 0 runs the search, not a worker");
  std::atomic<bool> done{false};
  std::thread heartbeat([&] {
    auto next = std::chrono::steady_clock::now();
    while (!done) {
      if (std::chrono::steady_clock::now() >= next) {
        (void)send_text("", 0, kTagHeartbeat);  // rank 0 gone: nothing to tell
        next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(options.heartbeat_seconds));
      }
      sleep_seconds(0.05);
    }
  });
  std::map<std::string, std::unique_ptr<nas::DistributableOracle>> oracles;  // by spec
  int64_t jobs = 0;
  Status result;
  double root_heard = now_seconds();
  for (;;) {
    Expected<std::optional<Message>> m = poll_message(0);
    if (!m) {
      result = m.status();
      break;
    }
    if (!m->has_value()) {  // nothing pending (heartbeats queued during a training came first)
      if (now_seconds() - root_heard > options.root_liveness_seconds) {
        result = Status::unavailable(
            fmt::format("no message from rank 0 for {:.0f} s: it died; stopping", now_seconds() - root_heard));
        session.abandon();
        break;
      }
      sleep_seconds(kPollSleepSeconds);
      continue;
    }
    root_heard = now_seconds();
    const Message& msg = **m;
    if (msg.tag == kTagStop) {
      if (msg.text == "nofinalize") session.abandon();  // a rank died: MPI_Finalize would hang
      break;
    }
    if (msg.tag != kTagJob) continue;
    ++jobs;
    if (options.before_job) options.before_job(jobs);
    nlohmann::json reply;
    const auto t0 = std::chrono::steady_clock::now();
    int64_t arch = -1;
    uint64_t seed = 0;
    double accuracy = -1;
    auto j = nlohmann::json::parse(msg.text, nullptr, false);
    if (j.is_discarded() || !j.contains("arch") || !j.contains("seed") || !j.contains("spec")) {
      reply = error_json(Status::internal(fmt::format("rank {}: a job message that is not a job", session.rank())));
    } else {
      arch = j["arch"].get<int64_t>();
      seed = j["seed"].get<uint64_t>();
      const std::string spec = j["spec"].get<std::string>();
      auto it = oracles.find(spec);
      Status made;
      if (it == oracles.end()) {
        auto o = nas::make_oracle(spec);
        if (!o) {
          made = o.status();
        } else if (auto* t = dynamic_cast<nas::DistributableOracle*>(o->get()); t == nullptr) {
          made = Status::invalid(fmt::format("oracle '{}' cannot work on another process", spec));
        } else {
          o->release();
          it = oracles.emplace(spec, std::unique_ptr<nas::DistributableOracle>(t)).first;
        }
      }
      if (!made) {
        reply = error_json(made);
      } else {
        auto r = it->second->do_work(arch, seed);
        if (r) accuracy = r->accuracy;
        reply = r ? nlohmann::json{{"ok", true}, {"result", r->result}} : error_json(r.status());
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Status sent = send_text(reply.dump(), 0, kTagResult);
    if (options.after_job) options.after_job(arch, seed, accuracy, seconds);
    if (!sent) {
      result = sent;
      break;
    }
  }
  done = true;
  heartbeat.join();
  return result;
}

}  // namespace rooflens::dist
