// The zoo study (Kosaian & Phanishayee 2022, section 3): accuracy, throughput and
// utilization of many models on one device, their Pareto frontiers, AI against the
// device's CMR, and FoldedCNN what-ifs. Plain data; report/ formats it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

// Where throughput numbers come from.
enum class StudySource {
  kPredicted,     // the performance model over the device database
  kMeasured,      // run on this CPU through the oneDNN backend
  kMeasurements,  // a user's CSV of measured throughput (e.g. timm's benchmark CSV)
};
std::string_view study_source_name(StudySource s);

struct LayerPoint {
  double ai = 0;          // FLOP per byte of the fused layer
  double time_share = 0;  // share of the model's predicted time (0 when not predicted)
  double flops = 0;       // FLOPs of the layer at the study batch
};

struct StudyModel {
  std::string name;
  std::optional<double> acc1, acc5;                    // top-1 / top-5 accuracy in percent
  std::string accuracy_source;                         // "models/zoo.json", a CSV path, or "" when unknown
  int64_t batch = 1;                                   // images per batch the numbers are for
  std::optional<int64_t> max_batch;                    // largest batch that fits the device (images)
  double throughput = 0;                               // images/s
  std::optional<double> throughput_q1, throughput_q3;  // measured spread (images/s)
  double flops_per_image = 0;                          // FLOPs (2 x MACs + other arithmetic), fused view
  double macs_per_image = 0;
  int64_t params = 0;
  double utilization = 0;                       // achieved FLOP/s over the datasheet peak
  std::optional<double> utilization_measured;   // over the device's measured peak
  double ai = 0;                                // aggregate AI, FLOP/B
  bool ai_above_cmr = false;                    // against the CMR of the study dtype (datasheet peak)
  std::map<std::string, double> time_by_bound;  // bound name -> share of predicted time
  std::vector<LayerPoint> layers;
  int attention_layers = 0;  // fused attention layers (Q.K^T ... A.V); > 0 marks a transformer
};

// One model before and after FoldedCNN folding at `factor` (images/s; utilization over the
// peak the study plots, see plotted_utilization; folded throughput counts original images).
struct FoldResult {
  std::string model;
  int factor = 4;
  double throughput_before = 0, throughput_after = 0;
  double utilization_before = 0, utilization_after = 0;
  double ai_before = 0, ai_after = 0;
  double flops_per_image_before = 0, flops_per_image_after = 0;
  int64_t batch_after = 0;  // images per batch after folding
  // A measured baseline times a predicted speedup can pass the peak that utilization is
  // taken over; such a projection is cut to that peak (utilization_after 1) and flagged.
  bool capped_at_peak = false;
};

struct Frontiers {
  // Indices into Study::models, each sorted along its frontier.
  std::vector<size_t> acc_throughput, acc_utilization, throughput_utilization;
  std::vector<size_t> all_three;  // on every frontier (models without accuracy are on none
                                  // of the accuracy frontiers)
};

struct Study {
  std::string schema = "rooflens.study/1";
  std::string device_id, device_name, dtype;
  std::string batch_spec;  // "max" or a number
  StudySource source = StudySource::kPredicted;
  std::string source_detail;  // e.g. the measurements file, the CPU backend and threads
  double peak_datasheet = 0;  // FLOP/s of the study dtype
  std::optional<double> peak_measured;
  double bandwidth = 0;  // B/s
  double cmr = 0;        // datasheet peak / bandwidth (FLOP/B)
  std::optional<double> cmr_measured;
  bool utilization_uses_measured_peak = false;  // which utilization the plots use
  std::vector<StudyModel> models;
  Frontiers frontiers;
  std::vector<FoldResult> folds;
  // Throughput-utilization frontiers before and after folding, indices into models; after
  // folding each folded model sits at its folded point.
  std::vector<size_t> frontier_before_fold, frontier_after_fold;
  // Spearman rank correlation over the models with accuracy (the paper's Figure 1(c)
  // finding is a positive utilization-accuracy correlation); unset with fewer than 3.
  std::optional<double> spearman_utilization_accuracy, spearman_throughput_accuracy;
  std::vector<std::string> notes;
};

}  // namespace rooflens
