// The zoo study (see study_run.h): per-model numbers, frontiers, fold what-ifs.
#include "rooflens/analysis/study_run.h"

#include <fmt/format.h>

#include "rooflens/perf/max_batch.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>

#include "rooflens/analysis/validation.h"
#include "rooflens/util/parallel.h"
#include "rooflens/util/pareto.h"

namespace rooflens {

std::string_view study_source_name(StudySource s) {
  switch (s) {
    case StudySource::kPredicted: return "predicted";
    case StudySource::kMeasured: return "measured";
    case StudySource::kMeasurements: return "measurements";
  }
  return "?";
}

double plotted_utilization(const Study& s, const StudyModel& m) {
  if (s.utilization_uses_measured_peak && m.utilization_measured) return *m.utilization_measured;
  return m.utilization;
}

namespace {

struct Ctx {
  const StudyOptions& o;
  double peak = 0;
  std::optional<double> peak_measured;
};

Expected<Prediction> predict_loaded(const Ctx& c, const LoadedModel& l) {
  return predict(l.graph, l.analysis, c.o.device, c.o.perf);
}

double utilization_of(const Ctx& c, double images_per_s, double flops_per_image, bool measured_peak) {
  const double peak = measured_peak && c.peak_measured ? *c.peak_measured : c.peak;
  return peak > 0 ? images_per_s * flops_per_image / peak : 0;
}

// A projected fold (a measured baseline times a predicted speedup) above the peak in use
// says more than any run could: it is cut to that peak.
void cap_at_peak(const Ctx& c, FoldResult& r) {
  const bool mp = c.o.utilization_measured_peak;
  const double peak = mp && c.peak_measured ? *c.peak_measured : c.peak;
  if (peak <= 0 || r.flops_per_image_after <= 0) return;
  const double roof = peak / r.flops_per_image_after;
  if (r.throughput_after <= roof) return;
  r.throughput_after = roof;
  r.capped_at_peak = true;
}

struct Done {
  StudyModel model;
  std::optional<FoldResult> fold;
  std::string fold_skipped;  // why an automatic fold could not be made
};

Expected<FoldResult> fold_one(const Ctx& c, const StudyEntry& e, const StudyModel& m, int64_t batch,
                              double before_predicted);

Expected<Done> study_one(const Ctx& c, const StudyEntry& e) {
  const StudyOptions& o = c.o;
  auto ctx = [&](const Status& s) { return s.with_context(e.name); };
  Done d;
  StudyModel& m = d.model;
  m.name = e.name;
  m.acc1 = e.acc1;
  m.acc5 = e.acc5;
  m.accuracy_source = e.accuracy_source;
  auto mb = max_batch_for(c.o.device, e.load);
  if (mb) m.max_batch = *mb;
  int64_t batch = 0;
  if (e.given_batch)
    batch = *e.given_batch;
  else if (o.batch)
    batch = *o.batch;
  else if (mb)
    batch = *mb;
  else
    return ctx(mb.status());
  auto l = e.load(batch);
  if (!l) return ctx(l.status());
  auto p = predict_loaded(c, *l);
  if (!p) return ctx(p.status());
  m.batch = batch;
  const double images = static_cast<double>(batch);
  m.flops_per_image = static_cast<double>(l->analysis.totals.flops) / images;
  m.macs_per_image = static_cast<double>(l->analysis.totals.macs) / images;
  m.params = l->analysis.params;
  m.ai = l->analysis.ai;
  for (const auto& L : l->analysis.layers) m.attention_layers += L.attention ? 1 : 0;
  const double cmr = o.device.cmr(o.dtype);
  m.ai_above_cmr = m.ai > cmr;
  const double before_predicted = p->throughput;
  switch (o.source) {
    case StudySource::kPredicted: m.throughput = p->throughput; break;
    case StudySource::kMeasurements: m.throughput = *e.given_throughput; break;
    case StudySource::kMeasured: {
      if (!o.measure) return Status::internal("study: measured source without a measurer");
      auto t = o.measure(*l);
      if (!t) return ctx(t.status());
      m.throughput = t->inputs_per_s;
      m.throughput_q1 = t->q1;
      m.throughput_q3 = t->q3;
      break;
    }
  }
  m.utilization = utilization_of(c, m.throughput, m.flops_per_image, false);
  if (c.peak_measured) m.utilization_measured = utilization_of(c, m.throughput, m.flops_per_image, true);
  for (const auto& L : p->layers) {
    if (L.bound == Bound::kNone) continue;
    m.time_by_bound[std::string(bound_name(L.bound))] += L.time_share;
    m.layers.push_back({L.ai, L.time_share, static_cast<double>(L.flops)});
  }

  const bool fold = e.fold || (o.fold_below_cmr && !m.ai_above_cmr);
  if (!fold) return d;
  if (!o.fold) return Status::internal("study: folding asked for without a folder");
  auto r = fold_one(c, e, m, batch, before_predicted);
  if (r)
    d.fold = *r;
  else if (e.fold || r.status().code() != StatusCode::kUnsupported)
    return r.status();
  else
    d.fold_skipped = r.status().message();  // the model is studied; the what-if says why it is missing
  return d;
}

Expected<FoldResult> fold_one(const Ctx& c, const StudyEntry& e, const StudyModel& m, int64_t batch,
                              double before_predicted) {
  const StudyOptions& o = c.o;
  auto ctx = [&](const Status& s) { return s.with_context(e.name); };
  const int f = o.fold_factor;
  auto load_folded = [&](int64_t inputs) -> Expected<LoadedModel> {
    auto base = e.load(inputs * f);
    if (!base) return base.status();
    return o.fold(*base, f);
  };
  int64_t inputs = 0;
  if (e.given_batch || o.batch) {
    if (batch % f != 0)
      return Status::invalid(fmt::format("{}: fold factor {} does not divide the batch {}", e.name, f, batch));
    inputs = batch / f;
  } else {
    auto fm = max_batch_for(c.o.device, load_folded);
    if (!fm) return ctx(fm.status());
    inputs = *fm;
  }
  auto lf = load_folded(inputs);
  if (!lf) return ctx(lf.status());
  auto pf = predict_loaded(c, *lf);
  if (!pf) return ctx(pf.status());
  FoldResult r;
  r.model = e.name;
  r.factor = f;
  r.batch_after = inputs * f;
  const double images_after = static_cast<double>(inputs * f);
  r.flops_per_image_before = m.flops_per_image;
  r.flops_per_image_after = static_cast<double>(lf->analysis.totals.flops) / images_after;
  r.ai_before = m.ai;
  r.ai_after = lf->analysis.ai;
  r.throughput_before = m.throughput;
  switch (o.source) {
    case StudySource::kPredicted: r.throughput_after = pf->throughput * f; break;
    case StudySource::kMeasurements:
      // No measurement of the folded model exists: the measured baseline times the predicted speedup.
      r.throughput_after = m.throughput * (pf->throughput * f) / before_predicted;
      cap_at_peak(c, r);
      break;
    case StudySource::kMeasured: {
      auto t = o.measure(*lf);
      if (!t) return ctx(t.status());
      r.throughput_after = t->inputs_per_s * f;
      break;
    }
  }
  const bool mp = o.utilization_measured_peak;
  r.utilization_before = utilization_of(c, r.throughput_before, r.flops_per_image_before, mp);
  r.utilization_after = utilization_of(c, r.throughput_after, r.flops_per_image_after, mp);
  return r;
}

std::vector<size_t> frontier_of(const std::vector<Point2>& pts, const std::vector<size_t>& ids, Status& err) {
  auto f = pareto_front_2d(pts);
  if (!f) {
    err = f.status();
    return {};
  }
  std::vector<size_t> out;
  for (size_t i : *f) out.push_back(ids[i]);
  return out;
}

}  // namespace

Status compute_frontiers(Study& s) {
  Status err;
  std::vector<Point2> at, au, tu;
  std::vector<size_t> acc_ids, all_ids;
  for (size_t i = 0; i < s.models.size(); ++i) {
    const StudyModel& m = s.models[i];
    const double u = plotted_utilization(s, m);
    if (std::isnan(m.throughput) || std::isnan(u))
      return Status::invalid("study: model '" + m.name + "' has a NaN throughput or utilization");
    tu.push_back({m.throughput, u});
    all_ids.push_back(i);
    if (m.acc1) {
      at.push_back({m.throughput, *m.acc1});
      au.push_back({u, *m.acc1});
      acc_ids.push_back(i);
    }
  }
  Frontiers& fr = s.frontiers;
  fr.acc_throughput = frontier_of(at, acc_ids, err);
  fr.acc_utilization = frontier_of(au, acc_ids, err);
  fr.throughput_utilization = frontier_of(tu, all_ids, err);
  if (!err) return err;
  fr.all_three.clear();
  for (size_t i : fr.throughput_utilization) {
    auto on = [&](const std::vector<size_t>& v) { return std::find(v.begin(), v.end(), i) != v.end(); };
    if (on(fr.acc_throughput) && on(fr.acc_utilization)) fr.all_three.push_back(i);
  }
  std::sort(fr.all_three.begin(), fr.all_three.end());
  if (acc_ids.size() >= 3) {
    std::vector<double> acc, util, thr;
    for (size_t k = 0; k < acc_ids.size(); ++k) {
      acc.push_back(at[k].y);
      thr.push_back(at[k].x);
      util.push_back(au[k].x);
    }
    s.spearman_utilization_accuracy = spearman(util, acc);
    s.spearman_throughput_accuracy = spearman(thr, acc);
  }
  s.frontier_before_fold = fr.throughput_utilization;
  std::vector<Point2> after = tu;
  for (const FoldResult& r : s.folds)
    for (size_t i = 0; i < s.models.size(); ++i)
      if (s.models[i].name == r.model) after[i] = {r.throughput_after, r.utilization_after};
  s.frontier_after_fold = frontier_of(after, all_ids, err);
  return err;
}

Expected<Study> run_study(const std::vector<StudyEntry>& entries, const StudyOptions& o) {
  if (entries.empty()) return Status::invalid("study: no models");
  if (o.fold_factor < 2) return Status::invalid(fmt::format("fold factor {}: must be an integer >= 2", o.fold_factor));
  auto peak = o.device.best_peak(o.dtype);
  if (!peak) return Status::unsupported(o.device.no_peak_message(o.dtype));
  Study s;
  s.device_id = o.device.id;
  s.device_name = o.device.name;
  s.dtype = o.dtype;
  s.batch_spec = o.source == StudySource::kMeasurements ? "as measured (per model)"
                 : o.batch                              ? std::to_string(*o.batch)
                                                        : "max";
  s.source = o.source;
  s.source_detail = o.source_detail;
  s.peak_datasheet = peak->flops;
  s.bandwidth = o.device.mem_bandwidth;
  s.cmr = o.device.cmr(o.dtype);
  if (auto mp = o.device.best_measured_peak(o.dtype)) {
    s.peak_measured = mp->flops;
    if (s.bandwidth > 0) s.cmr_measured = mp->flops / s.bandwidth;
  }
  s.utilization_uses_measured_peak = o.utilization_measured_peak && s.peak_measured.has_value();
  Ctx c{o, peak->flops, s.peak_measured};

  std::vector<std::optional<Expected<Done>>> results(entries.size());
  std::atomic<size_t> done{0};
  std::mutex progress_mu;
  const int jobs = o.source == StudySource::kMeasured ? 1 : std::max(1, o.jobs);
  parallel_for(entries.size(), jobs, [&](size_t i) {
    results[i] = study_one(c, entries[i]);
    const size_t n = ++done;
    if (o.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      o.progress(entries[i].name, n, entries.size());
    }
  });

  for (auto& r : results) {
    if (!r->has_value()) return r->status();
    s.models.push_back(std::move((*r)->model));
    if ((*r)->fold) s.folds.push_back(*(*r)->fold);
    if (!(*r)->fold_skipped.empty()) s.notes.push_back("not folded: " + (*r)->fold_skipped);
  }
  if (s.utilization_uses_measured_peak) s.notes.push_back("utilization in the plots is over the measured peak");
  if (o.source == StudySource::kMeasurements && !s.folds.empty())
    s.notes.push_back(
        fmt::format("folded points are the measured throughput times the predicted speedup of "
                    "folding at f={} (no measurement of a folded model exists)",
                    o.fold_factor));
  std::string capped;
  for (const FoldResult& f : s.folds)
    if (f.capped_at_peak) capped += (capped.empty() ? "" : ", ") + f.model;
  if (!capped.empty())
    s.notes.push_back("folded projections cut to the peak (the predicted speedup would pass it): " + capped);
  Status fs = compute_frontiers(s);
  if (!fs) return fs;
  return s;
}

}  // namespace rooflens
