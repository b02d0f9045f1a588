// A study request (model files, bundled zoo models, a measurements CSV, an accuracy CSV, the
// models to fold) resolved to the study's entries: each model with a loader over its model
// session, its accuracy (the accuracy CSV, else the zoo manifest) and the throughput given
// for it. What `rooflens study` maps its flags to before analysis/study_run.h runs it.
#pragma once

#include <string>
#include <vector>

#include "rooflens/analysis/study_run.h"
#include "rooflens/session/zoo.h"

namespace rooflens {

struct StudyRequest {
  std::vector<std::string> files;         // ONNX files, each named by its stem
  std::vector<std::string> models;        // bundled zoo models by name
  bool zoo = false;                       // and every model of `zoo_set` not named already
  ZooSet zoo_set = ZooSet::kTorchvision;  // the zoo `zoo` adds (--zoo, --zoo timm, --zoo all)
  // Throughput per model (analysis/study_inputs.h): its rows are the models studied, each
  // found among `files` by stem, else in the zoo; `models` and `zoo` are then not used.
  std::string measurements_csv;
  std::string accuracy_csv;       // accuracy per model, over the zoo manifest's
  std::vector<std::string> fold;  // models folded whatever their AI; each must be studied
  DType dtype = DType::kF16;      // the dtype the loaders analyse at
  std::string models_dir;         // the zoos: a directory holding zoo.json (and timm/zoo.json)
};

struct ResolvedStudy {
  std::vector<StudyEntry> entries;  // files (or measurement rows) first, then models, then the zoo
  std::vector<std::string> files;   // the model file of each entry
};

// Nothing is imported here: each entry's loader imports its file on first use. Errors are
// invalid input naming the field by its `rooflens study` flag and the value: a file that
// does not exist, a model not in the zoo, a model given twice, an unreadable or malformed
// CSV, a fold model not studied, nothing to study.
Expected<ResolvedStudy> resolve_study_request(const StudyRequest& r);

}  // namespace rooflens
