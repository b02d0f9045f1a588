// `rooflens devices`: the device database with peaks, CMR per dtype and the host link.
#include "commands.h"
#include "common.h"
#include "rooflens/device/device.h"
#include "rooflens/report/predict_report.h"

namespace rooflens::cli {

void add_devices(CLI::App& app, DevicesArgs& a) {
  auto* cmd = app.add_subcommand("devices", "List the device database: peaks (dense), CMR per dtype and host link");
  cmd->add_option("--format", a.format, "table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files (default: the bundled data/devices)");
}

int run_devices(const DevicesArgs& a) {
  auto db = load_device_dir(devices_dir(a.devices_dir));
  if (!db) return report_error(db.status());
  std::string out;
  if (a.format == "json")
    out = report::devices_json(*db).dump(2) + "\n";
  else if (a.format == "csv")
    out = report::render_csv(report::devices_table(*db, true));
  else
    out = report::render_text(report::devices_table(*db, false)) +
          "\nPeaks are dense datasheet figures (FLOP/s; INT8 in OP/s); CMR = peak / memory bandwidth (FLOP/B).\n"
          "Host link: the GPU's link to the host, theoretical GB/s in one direction (datasheets quote both directions\n"
          "summed: \"PCIe Gen4: 64 GB/s\" is 31.5 each way); '-' for a CPU.\n"
          "Sources per figure: data/devices/<id>.json, \"sources\".\n";
  Status w = write_output("", out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
