// make_whatif_setup (whatif_setup.h).
#include "whatif_setup.h"

#include <sstream>
#include <thread>

#include "common.h"

namespace rooflens::cli {

Expected<std::unique_ptr<WhatIfSetup>> make_whatif_setup(const std::string& file, const std::string& device,
                                                         const std::string& dtype, const std::string& batch,
                                                         const std::vector<std::string>& input_shapes,
                                                         const std::string& devices, const std::string& devices_dir,
                                                         const std::string& engine) {
  if (auto dt = parse_dtype_arg("--dtype", dtype); !dt) return dt.status();
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
  auto eng = resolve_engine(engine, *dev);
  if (!eng) return eng.status();
  o.perf.engine = *eng;
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
  const int multiple = o.pad_multiple;
  o.fold = [](const LoadedModel& l, int f) { return fold_model(l, f); };
  o.fold_aligned = [multiple](const LoadedModel& l, int f) { return fold_model(l, f, multiple); };
  o.pad = [multiple](const LoadedModel& l) { return pad_model_channels(l, multiple); };
  s->load = ModelSession::from_file(file, *shapes).typed_loader();
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
