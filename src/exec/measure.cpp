// Measurement of a model on a backend (see measure.h).
#include "rooflens/exec/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <tuple>
#include <utility>

#if ROOFLENS_WITH_ONEDNN
#include <omp.h>
#endif

#include <fmt/format.h>

#include "rooflens/exec/batch_streams.h"
#include "rooflens/exec/dispatch_probe.h"
#include "rooflens/exec/weights.h"

namespace rooflens {
namespace {

// The median seconds per run of `run` over about `seconds` (at least 3 runs after one
// untimed; one when a run alone outlasts the trial far), and the contention the host sampler
// saw meanwhile.
struct Trial {
  double seconds_per_run = 0;
  ContentionReport contention;
};
Expected<Trial> trial(const std::function<Status()>& run, HostSampler& sampler, int threads, double seconds,
                      const ContentionOptions& co) {
  TimingOptions t;
  t.warmup = 1;
  t.min_repeats = 3;
  t.min_repeats_past_cap = 1;
  t.max_repeats = std::numeric_limits<int>::max();
  t.max_seconds = seconds;
  t.settle_rel_iqr = 0;  // run for the whole time: the trial samples the machine
  const HostSample s0 = sampler.sample();
  auto r = time_runs(run, t);
  if (!r) return r.status();
  return Trial{r->median, assess_contention(s0, sampler.sample(), threads, co)};
}

// Median seconds per run of `a` and of `b`, timed in alternating slices (a b b a) of about
// `seconds` / 4 each: a competitor's phase longer than one trial then falls on both alike, where
// two trials one after the other could each catch a phase of its own. Each slice first runs
// untimed for kSliceWarmupSeconds: after a team's last parallel region its idle workers spin
// (libgomp: 300000 pause iterations by default, milliseconds, longer on a contended CPU) and a
// thread that slept is favoured by the scheduler when it wakes, so the first runs after a switch
// measure the other side's leftovers. Without that warm-up, two threads beside two busy
// processes read 1.22-1.36x as fast as one where steady runs read 0.52-0.84x
// (docs/performance.md, "Issue 30, fifteenth pass").
struct PairTrial {
  double a_seconds = 0, b_seconds = 0;
};
constexpr double kSliceWarmupSeconds = 0.05;
Expected<PairTrial> alternating_trial(const std::function<Status()>& a, const std::function<Status()>& b,
                                      double seconds) {
  constexpr int kSlices = 4;
  TimingOptions t;
  t.warmup = 1;
  t.min_warmup_seconds = kSliceWarmupSeconds;
  t.min_repeats = 2;
  t.max_repeats = std::numeric_limits<int>::max();
  t.max_seconds = seconds / kSlices;
  t.settle_rel_iqr = 0;
  std::vector<double> sa, sb;
  for (int i = 0; i < kSlices; ++i) {
    const bool is_a = i == 0 || i == kSlices - 1;
    auto r = time_runs(is_a ? a : b, t);
    if (!r) return r.status();
    std::vector<double>& into = is_a ? sa : sb;
    into.insert(into.end(), r->samples.begin(), r->samples.end());
  }
  return PairTrial{quantile(sa, 0.5), quantile(sb, 0.5)};
}

// The thread count tried beside the asked one under contention: half of them.
int fewer_threads(int asked) { return std::max(1, asked / 2); }

// What the thread trial left to measure with: the caller's backend prepared on `choice.used`
// threads, or `fewer` (a second backend on fewer threads) when the trial kept that, or the
// batch streams when they were kept.
struct Chosen {
  ThreadChoice choice;
  std::unique_ptr<Backend> fewer;
  std::unique_ptr<BatchStreams> streams;
};

// A fresh backend of `backend`'s kind prepared on `o`; null when the kind has none or its
// prepare failed (memory first: it holds a second copy of the weights).
std::unique_ptr<Backend> prepared_fresh(const Backend& backend, const Graph& g, const ModelAnalysis& fused,
                                        const ExecOptions& o) {
  std::unique_ptr<Backend> b = backend.fresh();
  if (!b) return nullptr;
  Status st = Status::ok();
  try {
    st = b->prepare(g, fused, o);
  } catch (const std::exception&) {
    return nullptr;
  }
  return st.ok() ? std::move(b) : nullptr;
}

// One run of `backend` on `inputs` as measure_model runs it (MeasureOptions::before_run first).
std::function<Status()> runner(Backend& backend, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                               const MeasureOptions& o) {
  return [&backend, &inputs, &outputs, &o] {
    if (o.before_run) o.before_run();
    return backend.run(inputs, &outputs);
  };
}

// The batch as streams of one thread each, timed in alternating slices against the team the
// thread counts kept (`run_team`; c.team set); kept when they ran kKeepAskedThreadsGain faster.
// Null when not kept, and when the batch cannot be split (batch 1, a backend that cannot run
// beside itself, a graph that cannot be rebatched): thread counts only then.
std::unique_ptr<BatchStreams> try_streams(const Graph& g, const ModelAnalysis& fused, const Backend& backend,
                                          const MeasureOptions& o, double seconds,
                                          const std::function<Status()>& run_team, ThreadChoice& c) {
  const int n = static_cast<int>(std::min<int64_t>(c.asked, fused.batch));
  if (n < 2) return nullptr;
  auto bs = BatchStreams::start(g, fused, backend, o.exec, n, o.input_seed);
  if (!bs) return nullptr;
  auto run = [&] {
    if (o.before_run) o.before_run();
    return (*bs)->run();
  };
  auto t = alternating_trial(run_team, run, 2 * seconds);
  if (!t) return nullptr;
  c.streams = n;
  c.team_beside_streams_seconds = t->a_seconds;
  c.streams_seconds = t->b_seconds;
  if (c.streams_seconds * kKeepAskedThreadsGain >= c.team_beside_streams_seconds) return nullptr;
  c.kept_streams = true;
  c.used = n;
  return std::move(*bs);
}

// One line: what the contended trial found and what was kept.
std::string choice_summary(const ThreadChoice& c, const ContentionReport& asked, const BatchStreams* streams) {
  const std::string found =
      fmt::format("in a trial on {} thread(s) they waited for a CPU {:.0f}% of the time ({} other runnable)", c.asked,
                  100 * asked.wait_share, asked.other_runnable);
  const int fewer = fewer_threads(c.asked);
  const double streams_gain = c.team_beside_streams_seconds / std::max(c.streams_seconds, 1e-12);
  const std::string tried_streams = c.streams > 0 && !c.kept_streams
                                        ? fmt::format("; {} batch streams ran {:.2f}x as fast", c.streams, streams_gain)
                                        : "";
  if (c.kept_streams) {
    std::string parts;
    for (int64_t b : streams->batches()) parts += (parts.empty() ? "" : "+") + std::to_string(b);
    return fmt::format(
        "{} streams of one thread each (batch {}): {}, and the streams ran {:.2f}x as fast as {} thread(s) in trials "
        "alternating with them",
        c.streams, parts, found, streams_gain, c.team);
  }
  const double gain = c.asked_seconds / std::max(c.fewer_seconds, 1e-12);
  const char* how = c.alternated ? " in trials alternating with it" : "";
  if (c.team < c.asked)
    return fmt::format("{} of {} thread(s): {}, and {} ran {:.2f}x as fast{}{}", c.team, c.asked, found, c.team, gain,
                       how, tried_streams);
  return fmt::format("{} thread(s) as asked: contended, but {} ran {:.2f}x as fast in a trial{}{}", c.asked, fewer,
                     gain, c.alternated ? " alternating with them" : "", tried_streams);
}

// The asked and the fewer threads timed against each other (c.asked_seconds, c.fewer_seconds):
// alternating on two prepared backends when the kind has fresh ones (the second in `fewer`),
// else one after the other with `backend` prepared on fewer threads.
Status compare_thread_counts(const Graph& g, const ModelAnalysis& fused, Backend& backend, const MeasureOptions& o,
                             const std::function<Status()>& run, const std::vector<Tensor>& inputs, double seconds,
                             Chosen& r) {
  ThreadChoice& c = r.choice;
  ExecOptions fewer = o.exec;
  fewer.threads = fewer_threads(o.exec.threads);
  c.tried = true;
  r.fewer = prepared_fresh(backend, g, fused, fewer);
  if (r.fewer) {
    std::vector<Tensor> outputs;
    auto p = alternating_trial(run, runner(*r.fewer, inputs, outputs, o), 2 * seconds);
    if (!p) return p.status();
    c.alternated = true;
    c.asked_seconds = p->a_seconds;
    c.fewer_seconds = p->b_seconds;
    return Status::ok();
  }
  ROOFLENS_RETURN_IF_ERROR(backend.prepare(g, fused, fewer));
  auto few = trial(run, *o.host_sampler, fewer.threads, seconds, o.contention);
  if (!few) return few.status();
  c.fewer_seconds = few->seconds_per_run;
  return Status::ok();
}

// MeasureOptions::adapt_threads: a trial on the asked threads; when it was contended, half of
// them are timed against the asked ones, then the batch as streams; what ran fastest (ties to
// the fewer threads, then to one team) is left prepared.
Expected<Chosen> choose_threads(const Graph& g, const ModelAnalysis& fused, Backend& backend, const MeasureOptions& o,
                                const std::function<Status()>& run, const std::vector<Tensor>& inputs) {
  Chosen r;
  ThreadChoice& c = r.choice;
  c.asked = c.used = c.team = o.exec.threads;
  const double seconds = std::clamp(o.timing.max_seconds / 8, 0.05, 0.3);
  auto asked = trial(run, *o.host_sampler, c.asked, seconds, o.contention);
  if (!asked) return asked.status();
  c.asked_seconds = asked->seconds_per_run;
  if (!asked->contention.contended) {
    c.summary = std::to_string(c.asked) + " thread(s) as asked: the trial found the machine quiet";
    return r;
  }
  ROOFLENS_RETURN_IF_ERROR(compare_thread_counts(g, fused, backend, o, run, inputs, seconds, r));
  // On a contended machine a tie goes to the fewer threads: a short trial can catch a
  // competitor's quiet moment, and a team larger than the free CPUs then collapses at its
  // barriers (VGG-16 at batch 1 beside an OpenMP loop: 2.6 images/s on the 2 threads a trial
  // kept, 7.2 on 1; docs/performance.md, "Issue 30, thirteenth pass").
  if (c.fewer_seconds < kKeepAskedThreadsGain * c.asked_seconds) {
    c.used = c.team = fewer_threads(o.exec.threads);
  } else if (r.fewer) {
    r.fewer.reset();
  } else {
    ROOFLENS_RETURN_IF_ERROR(backend.prepare(g, fused, o.exec));
  }
  std::vector<Tensor> outputs;
  r.streams = try_streams(g, fused, backend, o, seconds, r.fewer ? runner(*r.fewer, inputs, outputs, o) : run, c);
  if (r.streams) r.fewer.reset();
  c.summary = choice_summary(c, asked->contention, r.streams.get());
  return r;
}

// Waits while the executor's dispatch on `threads` threads reads another level than `level`,
// up to `max_s` (MeasureOptions::state_wait_s). Returns {seconds waited, whether it ran out}.
std::pair<double, bool> await_dispatch_state(int threads, double level, double max_s) {
  const auto t0 = std::chrono::steady_clock::now();
  auto waited = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  for (;;) {
    auto d = measure_onednn_dispatch(threads);
    if (!d || microbench::same_dispatch_level(d->median_s, level)) return {waited(), false};
    if (waited() >= max_s) return {waited(), true};
    std::this_thread::sleep_for(std::chrono::duration<double>(kStatePollSeconds));
  }
}

}  // namespace

std::pair<double, int> paired_reference_reading(const std::vector<double>& runs, const std::vector<double>& passes) {
  std::vector<double> t, ratio;
  for (size_t i = 0; i < runs.size() && i < passes.size(); ++i)
    if (passes[i] > 0 && runs[i] > 0) {
      t.push_back(runs[i]);
      ratio.push_back(runs[i] / passes[i]);
    }
  if (t.size() < 3) return {0.0, 0};
  return {quantile(t, 0.5) / quantile(ratio, 0.5), static_cast<int>(t.size())};
}

microbench::HostReference reference_reading(microbench::HostReferenceProbe& probe, int threads, int64_t batch) {
  microbench::HostReference r = probe.measure();
  if (auto d = measure_onednn_dispatch(threads)) r.dispatch_s = d->median_s;
  if (auto k = measure_onednn_reference_kernels(threads)) r.kernels_s = *k;
  if (microbench::uses_batch_reference(batch))
    if (auto k = measure_onednn_reference_kernels(threads, microbench::kReferenceBatch)) r.kernels8_s = *k;
  return r;
}

int measure_threads(int asked) {
  if (asked > 0) return asked;
#if ROOFLENS_WITH_ONEDNN
  // OpenMP's own default: the CPUs the process was started on (taskset), or OMP_NUM_THREADS;
  // read before OMP_PROC_BIND binds this thread to one of them.
  return std::max(1, omp_get_max_threads());
#else
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#endif
}

Expected<Measurement> measure_model(const Graph& g, const ModelAnalysis& fused, Backend& backend,
                                    const MeasureOptions& o) {
  ROOFLENS_RETURN_IF_ERROR(backend.prepare(g, fused, o.exec));
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) inputs.push_back(random_input(g, g.inputs[i], o.input_seed + i));
  std::vector<Tensor> outputs;
  std::map<std::string, std::vector<double>> per_layer, kept_layers;
  std::map<std::string, std::string> impl;
  // A device backend copies the inputs once; the timed runs are device work only.
  const bool resident = backend.has_resident_run();
  if (resident) ROOFLENS_RETURN_IF_ERROR(backend.run(inputs, &outputs));
  std::unique_ptr<BatchStreams> streams;  // set when the thread trial kept batch streams
  std::unique_ptr<Backend> fewer;         // set when it kept a second backend on fewer threads
  Backend* active = &backend;
  auto run = [&] {
    if (o.before_run) o.before_run();
    if (streams) return streams->run();
    return resident ? active->run_resident() : active->run(inputs, &outputs);
  };
  std::optional<ThreadChoice> choice;
  if (o.adapt_threads && o.host_sampler && o.exec.threads > 1 && !resident) {
    auto c = choose_threads(g, fused, backend, o, run, inputs);
    if (!c) return c.status();
    choice = c->choice;
    streams = std::move(c->streams);
    fewer = std::move(c->fewer);
    if (fewer) active = fewer.get();
  }
  const int threads = choice ? choice->used : o.exec.threads;
  // The reference's passes paired with the runs (MeasureOptions::paired_reference): one pass
  // lets the reference's weights back into the caches the run used, the next is timed.
  std::unique_ptr<ReferencePasses> passes;
  if (o.reference && o.paired_reference)
    if (auto p = ReferencePasses::make(threads, 1)) passes = std::move(*p);
  std::vector<double> paired;
  auto collect = [&](int) {
    for (const auto& t : streams ? streams->layer_timings() : active->layer_timings()) {
      per_layer[t.name].push_back(t.time_s);
      impl[t.name] = t.impl;
    }
    if (!passes) return;
    passes->time_pass();
    paired.push_back(passes->time_pass());
  };

  // One block: the reference before, the timed runs (sampled for contention), the reference
  // after. A block whose reference moved is timed again; the steadiest one is kept.
  Expected<TimingResult> timing = Status::internal("no block timed");
  std::optional<ContentionReport> contention;
  std::optional<HostStateReading> host;
  const int blocks = o.reference ? 1 + std::max(0, o.reference_retries) : 1;
  bool await_state = o.reference && o.state_wait_s > 0 && o.state_level_s > 0 && threads == o.state_level_threads;
  double waited = 0;  // for the dispatch state, over every block
  for (int blk = 0; blk < blocks; ++blk) {
    HostStateReading h;
    if (await_state) {
      std::tie(h.state_waited_s, h.state_wait_ran_out) = await_dispatch_state(threads, o.state_level_s, o.state_wait_s);
      waited += h.state_waited_s;
      await_state = !h.state_wait_ran_out;
    }
    if (o.reference) h.before = reference_reading(*o.reference, threads, fused.batch);
    per_layer.clear();
    paired.clear();
    HostSample s0;
    if (o.host_sampler) s0 = o.host_sampler->sample();
    auto t = time_runs(run, o.timing, collect);
    if (!t) return t.status();
    std::optional<ContentionReport> c;
    if (o.host_sampler) c = assess_contention(s0, o.host_sampler->sample(), threads, o.contention);
    if (o.reference) {
      h.after = reference_reading(*o.reference, threads, fused.batch);
      std::tie(h.paired_kernels_s, h.paired_runs) = paired_reference_reading(t->samples, paired);
      h.move = h.compute_move();
      h.flagged = h.move > o.reference_max_move || h.state_changed();
      h.blocks = blk + 1;
    }
    const bool better = !host || (!h.state_changed() && host->state_changed()) ||
                        (h.state_changed() == host->state_changed() && h.move < host->move);
    if (blk == 0 || better) {
      timing = std::move(t);
      contention = c;
      if (o.reference) host = h;
      kept_layers = per_layer;
    }
    if (host) host->blocks = blk + 1;
    if (!o.reference || !h.flagged) break;
  }
  if (host) host->state_waited_s = waited;
  per_layer = std::move(kept_layers);
  Measurement m;
  m.contention = contention;
  m.host = host;
  m.backend = active->name();
  m.batch = fused.batch;
  m.threads = threads;
  m.streams = streams ? streams->streams() : 1;
  m.thread_choice = choice;
  m.timing = *timing;
  const auto b = static_cast<double>(fused.batch);
  m.throughput = b / timing->median;
  m.throughput_q1 = b / timing->q3;
  m.throughput_q3 = b / timing->q1;
  m.achieved_flops = static_cast<double>(fused.totals.flops) / timing->median;
  std::tie(m.activation_bytes, m.activation_bytes_unshared) =
      streams ? streams->activation_bytes() : active->activation_bytes();
  m.layout = streams ? streams->layout_summary() : active->layout_summary();
  m.denormals_flushed = streams ? streams->flushes_denormals() : active->flushes_denormals();
  for (const auto& L : fused.layers) {
    LayerMeasurement lm;
    lm.name = L.name;
    lm.op = L.op;
    auto it = per_layer.find(L.name);
    if (it != per_layer.end()) {
      lm.time_s = quantile(it->second, 0.5);
      lm.impl = impl[L.name];
    }
    m.layers.push_back(lm);
  }
  return m;
}

Expected<std::vector<double>> relative_errors(const Graph& g, Backend& a, Backend& b, uint64_t input_seed) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) inputs.push_back(random_input(g, g.inputs[i], input_seed + i));
  std::vector<Tensor> out_a(g.outputs.size()), out_b;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    out_a[i].shape = *g.value(g.outputs[i]).shape;
    out_a[i].data.assign(static_cast<size_t>(out_a[i].numel()), std::numeric_limits<float>::quiet_NaN());
  }
  ROOFLENS_RETURN_IF_ERROR(a.run(inputs, &out_a));
  ROOFLENS_RETURN_IF_ERROR(b.run(inputs, &out_b));
  std::vector<double> errs;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    if (out_a[i].data.size() != out_b[i].data.size())
      return Status::internal("output " + std::to_string(i) + " sizes differ between backends");
    double num = 0, den = 0;
    for (size_t k = 0; k < out_a[i].data.size(); ++k) {
      const double d = static_cast<double>(out_a[i].data[k]) - out_b[i].data[k];
      num += d * d;
      den += static_cast<double>(out_b[i].data[k]) * out_b[i].data[k];
    }
    double e = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
    errs.push_back(e);
  }
  return errs;
}

}  // namespace rooflens
