// make_whatif_setup (whatif_setup.h).
#include "whatif_setup.h"

#include <sstream>
#include <thread>

#include "common.h"
#include "rooflens/passes/pad_channels.h"

namespace rooflens::cli {

Expected<std::unique_ptr<WhatIfSetup>> make_whatif_setup(const std::string& file, const std::string& device,
                                                         const std::string& dtype, const std::string& batch,
                                                         const std::vector<std::string>& input_shapes,
                                                         const std::string& devices, const std::string& devices_dir) {
  if (!parse_dtype(dtype)) return Status::invalid("--dtype '" + dtype + "': expected fp32, fp16, bf16, int8 or fp8");
  auto batch_or_max = parse_batch_or_max(batch);
  if (!batch_or_max) return batch_or_max.status();
  auto shapes = parse_input_shapes(input_shapes);
  if (!shapes) return shapes.status();
  auto dev = device_with_peak(device, devices_dir, dtype);
  if (!dev) return dev.status();
  auto db = load_device_dir(cli::devices_dir(devices_dir));
  if (!db) return db.status();
  auto s = std::make_unique<WhatIfSetup>();
  WhatIfOptions& o = s->options;
  o.device = *dev;
  o.dtype = dtype;
  o.batch = *batch_or_max;
  o.perf.dtype = dtype;
  if (!devices.empty()) {
    std::stringstream ss(devices);
    std::string id;
    while (std::getline(ss, id, ',')) {
      auto d = resolve_device(id, *db);
      if (!d) return d.status().with_context("--devices");
      o.other_devices.push_back(*d);
    }
  } else {
    for (const auto& d : *db)
      if (d.is_gpu()) o.other_devices.push_back(d);
  }
  o.pad_multiple = dev->tc_channel_multiple.count(dtype) ? dev->tc_channel_multiple.at(dtype) : 8;
  o.fold = [](const LoadedModel& l, int f) { return fold_loaded(l, f); };
  const int multiple = o.pad_multiple;
  o.fold_aligned = [multiple](const LoadedModel& l, int f) { return fold_loaded(l, f, multiple); };
  o.pad = [multiple](const LoadedModel& l) -> Expected<LoadedModel> {
    auto g = pad_channels(l.graph, multiple);
    if (!g) return g.status();
    auto an = analyse_loaded_graph(std::move(*g), l.analysis.model, l.analysis.dtype);
    if (!an) return an.status();
    return LoadedModel{std::move(an->graph), std::move(an->analysis)};
  };
  // One import per dtype; other batches are rebatched from it.
  WhatIfSetup* self = s.get();
  const auto shape_overrides = *shapes;
  s->load = [self, file, shape_overrides](int64_t b, DType d) -> Expected<LoadedModel> {
    auto l = load_model_rebatched(file, d, b, self->cache[d], shape_overrides);
    if (!l) return l.status();
    return LoadedModel{std::move(l->graph), std::move(l->analysis)};
  };
  return s;
}

DoctorOptions doctor_options(const WhatIfSetup& s, double jpeg_images_per_s_per_core) {
  DoctorOptions o;
  o.whatif = s.options;
  if (jpeg_images_per_s_per_core > 0) o.jpeg_images_per_s_per_core = jpeg_images_per_s_per_core;
  if (o.whatif.device.host_link) {
    o.host_link_bytes_per_s = o.whatif.device.host_link->bandwidth_bytes_per_s;
    o.host_link_name = o.whatif.device.host_link->name;
  }
  o.host_cores = static_cast<int>(std::thread::hardware_concurrency());
  return o;
}

}  // namespace rooflens::cli
