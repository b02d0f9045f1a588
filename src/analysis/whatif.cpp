// The what-if table (see whatif.h): every row is a prediction on a transformed graph.
#include "rooflens/analysis/whatif.h"

#include <fmt/format.h>

#include "rooflens/perf/max_batch.h"

namespace rooflens {
namespace {

struct Setting {
  const DeviceSpec* device;
  std::string dtype;
};

// Predicts a loaded model that carries `images_per_input` images per graph input.
Expected<WhatIfRow> row_for(const LoadedModel& l, const Setting& s, const PerfOptions& base, int images_per_input) {
  PerfOptions po = base;
  po.dtype = s.dtype;
  auto p = predict(l.graph, l.analysis, *s.device, po);
  if (!p) return p.status();
  WhatIfRow r;
  r.device_id = s.device->id;
  r.dtype = s.dtype;
  r.batch = l.analysis.batch * images_per_input;
  r.throughput = p->throughput * images_per_input;
  r.flops_per_image = static_cast<double>(l.analysis.totals.flops) / static_cast<double>(r.batch);
  r.utilization = p->peak_datasheet > 0 ? r.throughput * r.flops_per_image / p->peak_datasheet : 0;
  r.ai = l.analysis.ai;
  r.cmr = s.device->cmr(s.dtype);
  return r;
}

WhatIfRow failed(std::string group, std::string variant, const Setting& s, const Status& why) {
  WhatIfRow r;
  r.group = std::move(group);
  r.variant = std::move(variant);
  r.device_id = s.device->id;
  r.dtype = s.dtype;
  r.ok = false;
  r.note = why.message();
  return r;
}

}  // namespace

Expected<std::vector<WhatIfRow>> run_whatif(const TypedLoader& load, const WhatIfOptions& o) {
  auto dt = parse_dtype(o.dtype);
  if (!dt) return Status::invalid("what-if: unknown dtype '" + o.dtype + "'");
  const Setting base{&o.device, o.dtype};
  auto at = [&](DType d) { return [&, d](int64_t b) { return load(b, d); }; };
  auto batch_for = [&](const DeviceSpec& dev, DType d) -> Expected<int64_t> {
    if (o.batch) return *o.batch;
    return max_batch_for(dev, at(d));
  };
  auto b0 = batch_for(o.device, *dt);
  if (!b0) return b0.status();
  auto l0 = load(*b0, *dt);
  if (!l0) return l0.status();
  auto r0 = row_for(*l0, base, o.perf, 1);
  if (!r0) return r0.status();
  r0->group = "baseline";
  r0->variant = fmt::format("baseline ({}, {}, batch {})", o.device.id, o.dtype, *b0);
  std::vector<WhatIfRow> rows{*r0};
  const double t0 = r0->throughput;
  auto push = [&](Expected<WhatIfRow> r, const std::string& group, const std::string& variant, const Setting& s,
                  const std::string& note = "") {
    if (!r) {
      rows.push_back(failed(group, variant, s, r.status()));
      return;
    }
    r->group = group;
    r->variant = variant;
    r->speedup = t0 > 0 ? r->throughput / t0 : 0;
    r->note = note;
    rows.push_back(*r);
  };

  // Fold: f images per folded input; at the baseline batch when it is given (f must divide
  // it), else at the largest folded batch that fits.
  struct FoldVariant {
    int f;
    const ModelFolder* folder;
    std::string name;
  };
  std::vector<FoldVariant> folds;
  for (int f : o.fold_factors) {
    if (o.fold) folds.push_back({f, &o.fold, fmt::format("fold f={}", f)});
    if (o.fold_aligned)
      folds.push_back({f, &o.fold_aligned, fmt::format("fold f={}, widths to x{}", f, o.pad_multiple)});
  }
  for (const FoldVariant& fv : folds) {
    const int f = fv.f;
    const std::string& v = fv.name;
    auto load_folded = [&](int64_t inputs) -> Expected<LoadedModel> {
      auto l = load(inputs * f, *dt);
      if (!l) return l.status();
      return (*fv.folder)(*l, f);
    };
    Expected<int64_t> inputs = Status::invalid("");
    if (o.batch) {
      if (*o.batch % f != 0) {
        rows.push_back(
            failed("fold", v, base, Status::invalid(fmt::format("f={} does not divide the batch {}", f, *o.batch))));
        continue;
      }
      inputs = *o.batch / f;
    } else {
      inputs = max_batch_for(o.device, load_folded);
    }
    if (!inputs) {
      rows.push_back(failed("fold", v, base, inputs.status()));
      continue;
    }
    auto lf = load_folded(*inputs);
    if (!lf) {
      rows.push_back(failed("fold", v, base, lf.status()));
      continue;
    }
    push(row_for(*lf, base, o.perf, f), "fold", v, base, "needs retraining; accuracy not modelled");
  }
  if (o.pad) {
    const std::string v = fmt::format("pad channels to {}", o.pad_multiple);
    auto lp = o.pad(*l0);
    if (lp)
      push(row_for(*lp, base, o.perf, 1), "pad", v, base);
    else
      rows.push_back(failed("pad", v, base, lp.status()));
  }
  for (const auto& d : o.dtypes) {
    if (d == o.dtype) continue;
    const Setting s{&o.device, d};
    auto pd = parse_dtype(d);
    if (!pd || !o.device.best_peak(d)) {
      rows.push_back(failed("dtype", d, s, Status::unsupported(o.device.no_peak_message(d))));
      continue;
    }
    auto b = batch_for(o.device, *pd);
    if (!b) {
      rows.push_back(failed("dtype", d, s, b.status()));
      continue;
    }
    auto l = load(*b, *pd);
    if (!l) return l.status();
    push(row_for(*l, s, o.perf, 1), "dtype", d, s);
  }
  std::vector<int64_t> batches = o.batches;
  auto mb = max_batch_for(o.device, at(*dt));
  for (int64_t b : batches) {
    if (o.batch && b == *o.batch) continue;
    auto l = load(b, *dt);
    if (!l) return l.status();
    std::string note;
    if (mb && b > *mb) note = fmt::format("does not fit: the largest batch is {}", *mb);
    push(row_for(*l, base, o.perf, 1), "batch", fmt::format("batch {}", b), base, note);
  }
  if (mb && (o.batch.has_value())) {
    auto l = load(*mb, *dt);
    if (!l) return l.status();
    push(row_for(*l, base, o.perf, 1), "batch", fmt::format("batch max ({})", *mb), base);
  }
  for (const auto& d : o.other_devices) {
    if (d.id == o.device.id) continue;
    const Setting s{&d, o.dtype};
    if (!d.best_peak(o.dtype)) {
      rows.push_back(failed("device", d.id, s, Status::unsupported("no " + o.dtype + " peak")));
      continue;
    }
    auto b = batch_for(d, *dt);
    if (!b) {
      rows.push_back(failed("device", d.id, s, b.status()));
      continue;
    }
    auto l = load(*b, *dt);
    if (!l) return l.status();
    push(row_for(*l, s, o.perf, 1), "device", d.id, s);
  }
  return rows;
}

}  // namespace rooflens
