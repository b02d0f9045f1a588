// The doctor (doctor.h): the checklist items, each from the baseline prediction and the
// what-if rows (remedy gains predicted on transformed models or settings).
#include "rooflens/analysis/doctor.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "doctor_items.h"
#include "rooflens/perf/max_batch.h"

namespace rooflens {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kApplies: return "applies";
    case Verdict::kDoesNotApply: return "does not apply";
    case Verdict::kCannotTell: return "cannot tell";
  }
  return "?";
}

std::optional<BestRemedy> best_remedy(const DoctorReport& r) {
  std::optional<BestRemedy> best;
  for (const Finding& f : r.findings) {
    if (f.verdict != Verdict::kApplies) continue;
    for (const Remedy& m : f.remedies)
      if (m.ok && !m.other_device && m.time_saved() > 0 && (!best || m.time_saved() > best->remedy.time_saved()))
        best = BestRemedy{f.item, f.key, m};
  }
  return best;
}

double Finding::best_time_saved() const {
  double best = 0;
  for (const Remedy& r : remedies)
    if (r.ok && !r.other_device) best = std::max(best, r.time_saved());
  return best;
}

namespace doctor {

Remedy remedy_from_row(const WhatIfRow& base, const WhatIfRow& row, std::string name, std::string how) {
  Remedy r;
  r.name = std::move(name);
  r.how = std::move(how);
  r.ok = row.ok;
  r.throughput_before = base.throughput;
  r.utilization_before = base.utilization;
  if (row.ok) {
    r.throughput_after = row.throughput;
    r.utilization_after = row.utilization;
    r.speedup = base.throughput > 0 ? row.throughput / base.throughput : 1;
  }
  r.note = row.note;
  return r;
}

void sort_remedies(std::vector<Remedy>& rs) {
  std::stable_sort(rs.begin(), rs.end(), [](const Remedy& a, const Remedy& b) {
    if (a.ok != b.ok) return a.ok;
    return a.speedup > b.speedup;
  });
}

void collect_layers(Finding& f, const Prediction& p,
                    const std::function<std::optional<std::string>(const LayerPrediction&)>& pick, size_t max_layers) {
  std::vector<DoctorLayer> all;
  for (const LayerPrediction& l : p.layers) {
    auto detail = pick(l);
    if (!detail) continue;
    all.push_back({l.name, l.op, l.time_share, *detail});
    f.time_share += l.time_share;
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const DoctorLayer& a, const DoctorLayer& b) { return a.time_share > b.time_share; });
  f.layers_total = static_cast<int64_t>(all.size());
  if (all.size() > max_layers) all.resize(max_layers);
  f.layers = std::move(all);
}

}  // namespace doctor

Expected<DoctorReport> run_doctor(const std::string& model, const TypedLoader& load, const DoctorOptions& o) {
  auto rows = run_whatif(load, o.whatif);
  if (!rows) return rows.status();
  const WhatIfRow& base = rows->front();
  auto dt = parse_dtype(o.whatif.dtype);
  if (!dt) return Status::invalid("doctor: unknown dtype '" + o.whatif.dtype + "'");
  auto l0 = load(base.batch, *dt);
  if (!l0) return l0.status();
  PerfOptions po = o.whatif.perf;
  po.dtype = o.whatif.dtype;
  auto p = predict(l0->graph, l0->analysis, o.whatif.device, po);
  if (!p) return p.status();
  DoctorReport rep;
  rep.model = model;
  rep.baseline = std::move(*p);
  if (auto note = memory_overflow_note(rep.baseline, o.whatif.device)) rep.warnings.push_back(*note);
  rep.whatif = std::move(*rows);
  const doctor::Context ctx{rep.baseline, rep.whatif, *l0, o, load};
  rep.findings.push_back(doctor::memory_bound(ctx));
  rep.findings.push_back(doctor::starvation(ctx));
  rep.findings.push_back(doctor::input_loading(ctx));
  rep.findings.push_back(doctor::copy_overlap(ctx));
  rep.findings.push_back(doctor::specialized_units(ctx));
  rep.findings.push_back(doctor::unoptimized_code(ctx));
  rep.findings.push_back(doctor::thermal(ctx));
  rep.findings.push_back(doctor::heterogeneity(ctx));
  rep.findings.push_back(doctor::launch_overhead(ctx));
  for (Finding& f : rep.findings) doctor::sort_remedies(f.remedies);
  auto rank = [](const Finding& f) {
    return f.verdict == Verdict::kApplies ? 0 : f.verdict == Verdict::kCannotTell ? 1 : 2;
  };
  std::stable_sort(rep.findings.begin(), rep.findings.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (a.best_time_saved() != b.best_time_saved()) return a.best_time_saved() > b.best_time_saved();
    return a.time_share > b.time_share;
  });
  return rep;
}

}  // namespace rooflens
