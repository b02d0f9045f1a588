// ThreadEvalPool (async_search.h): N threads, each with its own oracle, one job at a time each.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "rooflens/nas/async_search.h"

namespace rooflens::nas {

struct ThreadEvalPool::State {
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::vector<std::optional<PoolJob>> slots;  // per worker: the job handed to it, not yet taken
  std::deque<PoolDone> done;
  std::vector<std::unique_ptr<AccuracyOracle>> oracles;
  ThroughputFn measure;
  std::vector<std::thread> threads;
  int out = 0;  // jobs submitted and not yet returned by wait_any
  bool stop = false;

  void work(int w) {
    EvalSource source = oracle_source(*oracles[static_cast<size_t>(w)], measure);
    for (;;) {
      PoolJob job;
      {
        std::unique_lock<std::mutex> lock(mu);
        work_cv.wait(lock, [&] { return stop || slots[static_cast<size_t>(w)].has_value(); });
        if (!slots[static_cast<size_t>(w)]) return;  // stopping with nothing to do
        job = *slots[static_cast<size_t>(w)];
        slots[static_cast<size_t>(w)].reset();
      }
      PoolDone d;
      d.ticket = job.ticket;
      d.worker = w;
      d.where = fmt::format("thread {}", w);
      d.evaluation = source(job.ticket, job.arch, job.oracle_seed);
      {
        std::lock_guard<std::mutex> lock(mu);
        done.push_back(std::move(d));
      }
      done_cv.notify_all();
    }
  }
};

Expected<std::unique_ptr<ThreadEvalPool>> ThreadEvalPool::create(int workers, const OracleMaker& make,
                                                                 ThroughputFn measure) {
  if (workers < 1 || workers > 4096)
    return Status::invalid(fmt::format("evaluation pool: {} workers; expected 1..4096", workers));
  auto st = std::make_unique<State>();
  st->slots.resize(static_cast<size_t>(workers));
  st->measure = std::move(measure);
  for (int w = 0; w < workers; ++w) {
    auto o = make();
    if (!o) return o.status();
    st->oracles.push_back(std::move(*o));
  }
  State* raw = st.get();
  for (int w = 0; w < workers; ++w) st->threads.emplace_back([raw, w] { raw->work(w); });
  return std::unique_ptr<ThreadEvalPool>(new ThreadEvalPool(std::move(st)));
}

ThreadEvalPool::ThreadEvalPool(std::unique_ptr<State> state) : state_(std::move(state)) {}

ThreadEvalPool::~ThreadEvalPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
    for (auto& s : state_->slots) s.reset();  // jobs not started are dropped
  }
  state_->work_cv.notify_all();
  for (auto& t : state_->threads) t.join();
}

int ThreadEvalPool::workers() const { return static_cast<int>(state_->slots.size()); }

Status ThreadEvalPool::submit(int worker, const PoolJob& job) {
  if (worker < 0 || worker >= workers())
    return Status::internal(fmt::format("evaluation pool: worker {} of {}", worker, workers()));
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->slots[static_cast<size_t>(worker)])
      return Status::internal(fmt::format("evaluation pool: worker {} has a job waiting already", worker));
    state_->slots[static_cast<size_t>(worker)] = job;
    ++state_->out;
  }
  state_->work_cv.notify_all();
  return Status::ok();
}

Expected<PoolDone> ThreadEvalPool::wait_any() {
  std::unique_lock<std::mutex> lock(state_->mu);
  if (state_->out == 0) return Status::internal("evaluation pool: wait_any with no job out");
  state_->done_cv.wait(lock, [&] { return !state_->done.empty(); });
  PoolDone d = std::move(state_->done.front());
  state_->done.pop_front();
  --state_->out;
  return d;
}

std::string ThreadEvalPool::describe() const { return fmt::format("{} thread(s) in this process", workers()); }

}  // namespace rooflens::nas
