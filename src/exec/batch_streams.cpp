// A batch run as independent streams (see batch_streams.h).
#include "rooflens/exec/batch_streams.h"

#include <condition_variable>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <new>
#include <thread>

#include "rooflens/exec/weights.h"
#include "rooflens/passes/batch.h"

namespace rooflens {

std::vector<int64_t> stream_batches(int64_t batch, int streams) {
  std::vector<int64_t> parts;
  for (int i = 0; i < streams; ++i) parts.push_back(batch / streams + (i < batch % streams ? 1 : 0));
  return parts;
}

// What the caller and the streams' threads share: the run to do (a generation count), how
// many streams have done it, and whether to stop.
struct BatchStreams::Shared {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t generation = 0;
  int done = 0;
  bool stop = false;
};

namespace {

// `f`'s status, or an error naming what it threw: an exception must not leave a stream's
// thread (memory runs out first where every stream holds a copy of the weights).
Status guarded(const std::function<Status()>& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status::internal("batch streams: out of memory (each stream holds a copy of the weights)");
  } catch (const std::exception& e) {
    return Status::internal(std::string("batch streams: ") + e.what());
  }
}

}  // namespace

// One part: its graph at its batch, its backend, its inputs and outputs, and its thread.
struct BatchStreams::Stream {
  Graph graph;
  ModelAnalysis fused;
  std::unique_ptr<Backend> backend;
  std::vector<Tensor> inputs, outputs;
  Status prepared = Status::ok(), last = Status::ok();
  std::vector<LayerTiming> timings;
  std::thread thread;

  // The thread's body: prepare (the backend's thread settings are the calling thread's),
  // report, then one run per generation until told to stop; the backend is destroyed here
  // too. oneDNN keeps its shared scratchpad, and the count of primitives holding it, per
  // thread: primitives made on this thread and destroyed on another would release that
  // thread's scratchpad under its own primitives (a crash in the next run of the caller's
  // backend, seen with VGG-16 at batch 32 when the trial did not keep the streams).
  void serve(const ExecOptions& o, Shared& sh, std::promise<void> ready) {
    prepared = guarded([&] { return backend->prepare(graph, fused, o); });
    ready.set_value();
    if (prepared.ok()) serve_runs(sh);
    backend.reset();
  }

  void serve_runs(Shared& sh) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(sh.mu);
        sh.cv.wait(lk, [&] { return sh.stop || sh.generation != seen; });
        if (sh.stop) return;
        seen = sh.generation;
      }
      last = guarded([&] { return backend->run(inputs, &outputs); });
      timings = backend->layer_timings();
      {
        std::lock_guard<std::mutex> lk(sh.mu);
        ++sh.done;
      }
      sh.cv.notify_all();
    }
  }
};

BatchStreams::BatchStreams() : shared_(std::make_unique<Shared>()) {}

BatchStreams::~BatchStreams() {
  {
    std::lock_guard<std::mutex> lk(shared_->mu);
    shared_->stop = true;
  }
  shared_->cv.notify_all();
  for (auto& s : streams_)
    if (s->thread.joinable()) s->thread.join();
}

Expected<std::unique_ptr<BatchStreams>> BatchStreams::start(const Graph& g, const ModelAnalysis& fused,
                                                            const Backend& kind, const ExecOptions& o, int streams,
                                                            uint64_t input_seed) {
  if (streams < 2 || streams > fused.batch)
    return Status::invalid("batch streams: " + std::to_string(streams) + " streams for a batch of " +
                           std::to_string(fused.batch) + " (2 to the batch)");
  std::unique_ptr<BatchStreams> bs(new BatchStreams());
  bs->batches_ = stream_batches(fused.batch, streams);
  ExecOptions one = o;
  one.threads = 1;
  AnalyzeOptions ao;
  ao.cost.dtype = fused.dtype;
  ao.fusion = fused.fused ? FusionMode::kEngine : FusionMode::kNone;
  for (int64_t part : bs->batches_) {
    auto s = std::make_unique<Stream>();
    s->backend = kind.fresh();
    if (!s->backend) return Status::unsupported("batch streams: the " + kind.name() + " backend cannot run a part");
    auto rb = rebatch(g, part);
    if (!rb) return rb.status();
    s->graph = std::move(rb->graph);
    s->fused = analyze_graph(s->graph, rb->inferred, ao);
    s->fused.model = fused.model;
    for (size_t i = 0; i < s->graph.inputs.size(); ++i)
      s->inputs.push_back(random_input(s->graph, s->graph.inputs[i], input_seed + i));
    // Prepared one after another: a stream preparing beside another would time its tactics
    // on a shared machine.
    std::promise<void> ready;
    std::future<void> prepared = ready.get_future();
    Stream* raw = s.get();
    Shared* sh = bs->shared_.get();
    s->thread = std::thread([raw, one, sh, r = std::move(ready)]() mutable { raw->serve(one, *sh, std::move(r)); });
    prepared.wait();
    bs->streams_.push_back(std::move(s));
    if (!bs->streams_.back()->prepared.ok()) return bs->streams_.back()->prepared;
  }
  return bs;
}

Status BatchStreams::run() {
  std::unique_lock<std::mutex> lk(shared_->mu);
  shared_->done = 0;
  ++shared_->generation;
  shared_->cv.notify_all();
  const int n = streams();
  shared_->cv.wait(lk, [&] { return shared_->done == n; });
  for (const auto& s : streams_)
    if (!s->last.ok()) return s->last;
  return Status::ok();
}

std::vector<LayerTiming> BatchStreams::layer_timings() const {
  std::vector<LayerTiming> out = streams_.front()->timings;
  std::map<std::string, double> sum;
  for (const auto& s : streams_)
    for (const LayerTiming& t : s->timings) sum[t.name] += t.time_s;
  for (LayerTiming& t : out) t.time_s = sum[t.name] / streams();
  return out;
}

std::pair<size_t, size_t> BatchStreams::activation_bytes() const {
  std::pair<size_t, size_t> total{0, 0};
  for (const auto& s : streams_) {
    auto [placed, unshared] = s->backend->activation_bytes();
    total.first += placed;
    total.second += unshared;
  }
  return total;
}

std::string BatchStreams::layout_summary() const { return streams_.front()->backend->layout_summary(); }
bool BatchStreams::flushes_denormals() const { return streams_.front()->backend->flushes_denormals(); }
int BatchStreams::streams() const { return static_cast<int>(streams_.size()); }
const std::vector<Tensor>& BatchStreams::inputs(int i) const { return streams_.at(static_cast<size_t>(i))->inputs; }
const std::vector<Tensor>& BatchStreams::outputs(int i) const { return streams_.at(static_cast<size_t>(i))->outputs; }

}  // namespace rooflens
