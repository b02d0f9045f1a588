// resolve_study_request (study_request.h).
#include "rooflens/session/study_request.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "rooflens/analysis/study_inputs.h"
#include "rooflens/session/model_session.h"
#include "rooflens/session/zoo.h"

namespace rooflens {
namespace {

Expected<std::string> read_text(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::invalid(fmt::format("{} '{}': cannot open the file", what, path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The models studied, by name and file, in order; each name once.
class ModelList {
 public:
  Status add(const std::string& name, const std::string& path, const std::string& where) {
    if (!names_.insert(name).second) return Status::invalid(where + ": model '" + name + "' given twice");
    models_.emplace_back(name, path);
    return Status::ok();
  }
  void add_if_new(const std::string& name, const std::string& path) {
    if (names_.insert(name).second) models_.emplace_back(name, path);
  }
  bool has(const std::string& name) const { return names_.count(name) > 0; }
  const std::vector<std::pair<std::string, std::string>>& models() const { return models_; }

 private:
  std::vector<std::pair<std::string, std::string>> models_;  // name, path
  std::set<std::string> names_;
};

// A zoo model by its key, else (timm's benchmark CSV names models without the prefix) as a
// timm model.
const ZooModel* find_zoo_model(const std::map<std::string, ZooModel>& zoo, const std::string& name) {
  if (auto z = zoo.find(name); z != zoo.end()) return &z->second;
  if (auto z = zoo.find(kTimmPrefix + name); z != zoo.end()) return &z->second;
  return nullptr;
}

// The rows of the measurements CSV, each found among the files by stem or else in the zoo.
Status add_measured_models(const StudyRequest& r, const std::map<std::string, ZooModel>& zoo, ModelList& list,
                           std::map<std::string, MeasuredRow>& given) {
  std::map<std::string, std::string> file_by_stem;
  for (const auto& f : r.files) file_by_stem[std::filesystem::path(f).stem().string()] = f;
  auto text = read_text(r.measurements_csv, "--measurements");
  if (!text) return text.status();
  auto rows = parse_measurements_csv(*text, r.measurements_csv);
  if (!rows) return rows.status();
  for (const auto& row : *rows) {
    std::string path;
    if (auto f = file_by_stem.find(row.model); f != file_by_stem.end())
      path = f->second;
    else if (auto z = find_zoo_model(zoo, row.model))
      path = z->path;
    else
      return Status::invalid(fmt::format("{}:{}: model '{}' is not in the zoo (rooflens zoo) nor among the given files",
                                         r.measurements_csv, row.line, row.model));
    given[row.model] = row;
    ROOFLENS_RETURN_IF_ERROR(list.add(row.model, path, r.measurements_csv));
  }
  return Status::ok();
}

// The files, then the named zoo models, then (with `zoo`) the rest of the zoo.
Status add_listed_models(const StudyRequest& r, const std::map<std::string, ZooModel>& zoo, ModelList& list) {
  for (const auto& f : r.files)
    ROOFLENS_RETURN_IF_ERROR(list.add(std::filesystem::path(f).stem().string(), f, "files"));
  for (const auto& n : r.models) {
    const ZooModel* z = find_zoo_model(zoo, n);
    if (!z) return Status::invalid("--models: '" + n + "' is not in the zoo (see rooflens zoo)");
    ROOFLENS_RETURN_IF_ERROR(list.add(z->name, z->path, "--models"));
  }
  if (r.zoo)
    for (const auto& [n, z] : zoo)
      if (r.zoo_set == ZooSet::kAll || z.zoo == r.zoo_set) list.add_if_new(n, z.path);
  return Status::ok();
}

// Accuracy from the CSV, else from the zoo manifest.
void join_accuracy(StudyEntry& e, const std::map<std::string, AccuracyRow>& acc_csv, const std::string& acc_file,
                   const std::map<std::string, ZooModel>& zoo) {
  if (auto r = acc_csv.find(e.name); r != acc_csv.end()) {
    e.acc1 = r->second.acc1;
    e.acc5 = r->second.acc5;
    e.accuracy_source = acc_file;
  } else if (const ZooModel* z = find_zoo_model(zoo, e.name); z && z->acc1) {
    e.acc1 = z->acc1;
    e.acc5 = z->acc5;
    e.accuracy_source = z->manifest;
  }
}

}  // namespace

Expected<ResolvedStudy> resolve_study_request(const StudyRequest& r) {
  for (const auto& f : r.files)
    if (!std::filesystem::exists(f)) return Status::invalid("'" + f + "': no such file");
  const auto zoo = zoo_index(r.models_dir, ZooSet::kAll);  // names are unique across both zoos
  ModelList list;
  std::map<std::string, MeasuredRow> given;
  ROOFLENS_RETURN_IF_ERROR(!r.measurements_csv.empty() ? add_measured_models(r, zoo, list, given)
                                                       : add_listed_models(r, zoo, list));
  if (list.models().empty()) return Status::invalid("study: give ONNX files, --models, --zoo or --measurements");

  std::map<std::string, AccuracyRow> acc_csv;
  if (!r.accuracy_csv.empty()) {
    auto text = read_text(r.accuracy_csv, "--accuracy");
    if (!text) return text.status();
    auto rows = parse_accuracy_csv(*text, r.accuracy_csv);
    if (!rows) return rows.status();
    for (const auto& row : *rows) acc_csv[row.model] = row;
  }
  std::set<std::string> fold;
  for (const auto& n : r.fold) {
    if (!list.has(n)) return Status::invalid("--fold: '" + n + "' is not among the studied models");
    fold.insert(n);
  }

  ResolvedStudy out;
  for (const auto& [name, path] : list.models()) {
    StudyEntry e;
    e.name = name;
    e.load = ModelSession::from_file(path).loader(r.dtype);
    join_accuracy(e, acc_csv, r.accuracy_csv, zoo);
    if (auto g = given.find(name); g != given.end()) {
      e.given_throughput = g->second.throughput;
      e.given_batch = g->second.batch;
    }
    e.fold = fold.count(name) > 0;
    out.entries.push_back(std::move(e));
    out.files.push_back(path);
  }
  return out;
}

}  // namespace rooflens
