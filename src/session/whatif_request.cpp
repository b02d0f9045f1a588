// The what-if and doctor options of a model on a device (session/whatif_request.h).
#include "rooflens/session/whatif_request.h"

#include "rooflens/session/model_session.h"

namespace rooflens {

Expected<WhatIfOptions> whatif_options(const DeviceSpec& device, const std::string& dtype, std::optional<int64_t> batch,
                                       const std::vector<DeviceSpec>& db, const std::vector<std::string>& other_devices,
                                       const EngineProfile& engine) {
  WhatIfOptions o;
  o.device = device;
  o.dtype = dtype;
  o.batch = batch;
  o.perf.dtype = dtype;
  o.perf.engine = engine;
  for (const auto& id : other_devices) {
    auto d = resolve_device(id, db);
    if (!d) return d.status();
    o.other_devices.push_back(*d);
  }
  if (other_devices.empty())
    for (const auto& d : db)
      if (d.is_gpu()) o.other_devices.push_back(d);
  o.pad_multiple = device.tc_channel_multiple.count(dtype) ? device.tc_channel_multiple.at(dtype) : 8;
  const int multiple = o.pad_multiple;
  o.fold = [](const LoadedModel& l, int f) { return fold_model(l, f); };
  o.fold_aligned = [multiple](const LoadedModel& l, int f) { return fold_model(l, f, multiple); };
  o.pad = [multiple](const LoadedModel& l) { return pad_model_channels(l, multiple); };
  return o;
}

DoctorOptions doctor_options(const WhatIfOptions& whatif, int host_cores, double jpeg_images_per_s_per_core) {
  DoctorOptions o;
  o.whatif = whatif;
  if (jpeg_images_per_s_per_core > 0) o.jpeg_images_per_s_per_core = jpeg_images_per_s_per_core;
  if (o.whatif.device.host_link) {
    o.host_link_bytes_per_s = o.whatif.device.host_link->bandwidth_bytes_per_s;
    o.host_link_name = o.whatif.device.host_link->name;
  }
  o.host_cores = host_cores;
  return o;
}

}  // namespace rooflens
