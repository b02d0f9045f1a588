// A measured study's measurer (see study_run.h, measure_study_on).
#include <fmt/format.h>

#include "rooflens/analysis/study_run.h"
#include "rooflens/exec/measure.h"
#include "rooflens/exec/timing.h"

namespace rooflens {

void measure_study_on(StudyOptions& o, BackendFactory make, bool gpu, const ExecOptions& exec, double max_seconds,
                      const std::string& where) {
  o.source = StudySource::kMeasured;
  o.source_detail = where + ", median of repeated runs";
  o.measure = [make = std::move(make), gpu, exec, max_seconds](const LoadedModel& l) -> Expected<MeasuredThroughput> {
    auto backend = make();
    if (!backend) return backend.status();
    MeasureOptions mo;
    mo.exec = exec;
    mo.timing = model_timing(gpu, max_seconds);
    auto m = measure_model(l.graph, l.analysis, **backend, mo);
    if (!m) return m.status();
    return MeasuredThroughput{m->throughput, m->throughput_q1, m->throughput_q3};
  };
}

void note_database_peaks(Study& s, const std::string& device_id) {
  s.notes.push_back("peaks and CMR from the database entry '" + device_id +
                    "', not from this machine: run `rooflens probe cpu --out local.json` and pass that file as the "
                    "device for this CPU's measured peaks");
}

}  // namespace rooflens
