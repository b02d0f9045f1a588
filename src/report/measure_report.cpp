// The host-state reference of a measurement as JSON (report/measure_report.h).
#include "rooflens/report/measure_report.h"

namespace rooflens::report {

nlohmann::json host_reading_json(const HostStateReading& h) {
  return {{"gemm_flops_before", h.before.gemm_flops},
          {"gemm_flops_after", h.after.gemm_flops},
          {"stream_bytes_before", h.before.stream_bytes},
          {"stream_bytes_after", h.after.stream_bytes},
          {"clock_hz_before", h.before.clock_hz},
          {"clock_hz_after", h.after.clock_hz},
          {"fma_flops_before", h.before.fma_flops},
          {"fma_flops_after", h.after.fma_flops},
          {"dispatch_s_before", h.before.dispatch_s},
          {"dispatch_s_after", h.after.dispatch_s},
          {"kernels_s_before", h.before.kernels_s},
          {"kernels_s_after", h.after.kernels_s},
          {"kernels8_s_before", h.before.kernels8_s},
          {"kernels8_s_after", h.after.kernels8_s},
          {"move", h.move},
          {"flagged", h.flagged},
          {"blocks", h.blocks},
          {"paired_kernels_s", h.paired_kernels_s},
          {"paired_runs", h.paired_runs},
          {"state_waited_s", h.state_waited_s},
          {"state_wait_ran_out", h.state_wait_ran_out}};
}

}  // namespace rooflens::report
