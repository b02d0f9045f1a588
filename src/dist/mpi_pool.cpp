// Rank 0's pool of MPI workers (mpi_pool.h): cache first, then a job message to the worker's
// rank; results, heartbeats and lost workers noticed by polling.
#include <deque>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "mpi_wire.h"
#include "rooflens/dist/mpi_pool.h"
#include "rooflens/nas/oracle.h"

namespace rooflens::dist {
namespace {

class MpiEvalPool : public nas::EvalPool {
 public:
  MpiEvalPool(MpiSession& session, nas::DistributableOracle& oracle, const std::string& spec, MpiPoolOptions options)
      : session_(session), oracle_(oracle), spec_(oracle.worker_spec(spec)), options_(options) {
    const size_t n = static_cast<size_t>(session.size() - 1);
    jobs_.resize(n);
    lost_.assign(n, false);
    last_heard_.assign(n, now_seconds());
  }

  int workers() const override { return session_.size() - 1; }
  bool alive(int w) const override { return !lost_[static_cast<size_t>(w)]; }
  std::string describe() const override {
    return fmt::format("{} MPI worker rank(s), rank 0 on {}", workers(), session_.host());
  }

  Status submit(int w, const nas::PoolJob& job) override {
    if (w < 0 || w >= workers() || lost_[static_cast<size_t>(w)] || jobs_[static_cast<size_t>(w)])
      return Status::internal(fmt::format("MPI pool: worker {} is not free", w));
    jobs_[static_cast<size_t>(w)] = job;
    auto hit = oracle_.answer_here(job.arch, job.oracle_seed);
    if (!hit || hit->has_value()) {  // answered here: from the cache, or the cache's error
      nas::PoolDone d;
      d.ticket = job.ticket;
      d.worker = w;
      if (hit) {
        d.where = "from " + (*hit)->origin;
        d.evaluation = std::move((*hit)->evaluation);
      } else {
        d.where = "from the cache";
        d.evaluation = hit.status();
      }
      ready_.push_back(std::move(d));
      return Status::ok();
    }
    const nlohmann::json msg = {{"arch", job.arch}, {"seed", job.oracle_seed}, {"spec", spec_}};
    return send_text(msg.dump(), w + 1, kTagJob);
  }

  Expected<nas::PoolDone> wait_any() override {
    for (;;) {
      if (!ready_.empty()) {
        nas::PoolDone d = std::move(ready_.front());
        ready_.pop_front();
        jobs_[static_cast<size_t>(d.worker)].reset();
        return d;
      }
      // Everything that has arrived first (heartbeats queued while this rank was busy elsewhere
      // count as heard now), then liveness.
      bool any = false;
      for (;;) {
        auto m = poll_message(MPI_ANY_SOURCE);
        if (!m) return m.status();
        if (!m->has_value()) break;
        any = true;
        ROOFLENS_RETURN_IF_ERROR(take(**m));
      }
      if (!ready_.empty()) continue;
      check_liveness();
      if (!ready_.empty()) continue;
      if (!any) sleep_seconds(kPollSleepSeconds);
    }
  }

 private:
  Status take(const Message& m) {
    const int w = m.source - 1;
    if (w < 0 || w >= workers()) return Status::ok();
    if (lost_[static_cast<size_t>(w)]) return Status::ok();  // declared lost: too late now
    last_heard_[static_cast<size_t>(w)] = now_seconds();
    if (m.tag != kTagResult) return Status::ok();  // a heartbeat
    auto& slot = jobs_[static_cast<size_t>(w)];
    if (!slot) return Status::internal(fmt::format("MPI pool: rank {} sent a result without a job", m.source));
    nas::PoolDone d;
    d.ticket = slot->ticket;
    d.worker = w;
    d.where = fmt::format("rank {}", m.source);
    auto j = nlohmann::json::parse(m.text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      d.evaluation = Status::internal(fmt::format("MPI: rank {} sent a result that is not JSON", m.source));
    } else if (!j.value("ok", false)) {
      const std::string code = j.value("code", std::string("internal"));
      const std::string text = fmt::format("rank {}: {}", m.source, j.value("message", std::string("?")));
      d.evaluation = code == "invalid input" ? Status::invalid(text)
                     : code == "unsupported" ? Status::unsupported(text)
                     : code == "unavailable" ? Status::unavailable(text)
                                             : Status::internal(text);
    } else if (!j.contains("result") || !j["result"].is_string()) {
      d.evaluation = Status::internal(fmt::format("MPI: rank {} sent a result without its text", m.source));
    } else {
      d.evaluation = oracle_.accept_work(slot->arch, slot->oracle_seed, j["result"].get<std::string>());
    }
    ready_.push_back(std::move(d));
    return Status::ok();
  }

  // Workers silent for longer than liveness_seconds are lost; a busy one's job comes back lost.
  void check_liveness() {
    const double now = now_seconds();
    for (int w = 0; w < workers(); ++w) {
      const size_t i = static_cast<size_t>(w);
      if (lost_[i] || now - last_heard_[i] <= options_.liveness_seconds) continue;
      lost_[i] = true;
      session_.mark_lost(w + 1);
      if (!jobs_[i]) continue;
      nas::PoolDone d;
      d.ticket = jobs_[i]->ticket;
      d.worker = w;
      d.worker_lost = true;
      d.where = fmt::format("rank {}", w + 1);
      d.reason = fmt::format("no message from rank {} for {:.1f} s (heartbeats every second): the rank died or hangs",
                             w + 1, now - last_heard_[i]);
      d.evaluation = Status::unavailable(d.reason);
      ready_.push_back(std::move(d));
    }
  }

  MpiSession& session_;
  nas::DistributableOracle& oracle_;
  std::string spec_;
  MpiPoolOptions options_;
  std::vector<std::optional<nas::PoolJob>> jobs_;  // per worker: the job it is on
  std::vector<bool> lost_;
  std::vector<double> last_heard_;
  std::deque<nas::PoolDone> ready_;
};

}  // namespace

Expected<std::unique_ptr<nas::EvalPool>> make_mpi_pool(MpiSession& session, nas::DistributableOracle& oracle,
                                                       const std::string& spec, MpiPoolOptions options) {
  if (session.rank() != 0)
    return Status::invalid(fmt::format("MPI: the evaluation pool lives on rank 0, not rank {}", session.rank()));
  if (session.size() < 2)
    return Status::invalid("MPI: a job of one rank has no worker ranks (run it without mpirun, or with -n 2 or more)");
  if (!(options.liveness_seconds > 0))
    return Status::invalid(fmt::format("MPI: liveness timeout {} s must be > 0", options.liveness_seconds));
  return std::unique_ptr<nas::EvalPool>(new MpiEvalPool(session, oracle, spec, options));
}

}  // namespace rooflens::dist
