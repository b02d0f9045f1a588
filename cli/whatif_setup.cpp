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
  std::vector<std::string> ids;
  std::stringstream ss(devices);
  for (std::string id; std::getline(ss, id, ',');) ids.push_back(id);
  auto eng = resolve_engine(engine, *dev);
  if (!eng) return eng.status();
  auto o = whatif_options(*dev, dtype, *batch_or_max, *db, ids, *eng);
  if (!o) return o.status().with_context("--devices");
  auto s = std::make_unique<WhatIfSetup>();
  s->options = std::move(*o);
  s->load = ModelSession::from_file(file, *shapes).typed_loader();
  return s;
}

DoctorOptions doctor_options(const WhatIfSetup& s, double jpeg_images_per_s_per_core) {
  return rooflens::doctor_options(s.options, static_cast<int>(std::thread::hardware_concurrency()),
                                  jpeg_images_per_s_per_core);
}

}  // namespace rooflens::cli
