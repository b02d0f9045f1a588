// Groups and the csv: oracle's CSV from stored trainings (train_export.h).
#include "rooflens/store/train_export.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

#include "rooflens/nas/sss_space.h"

namespace rooflens::store {
namespace {

using GroupKey = std::tuple<std::string, std::string, std::string>;

GroupKey group_of(const train::TrainKey& k) { return {k.space, k.dataset, k.recipe}; }

struct NetworkMean {
  double accuracy_sum = 0, seconds_sum = 0;
  int trials = 0;
};

// `s` as one shell word: double quotes when nothing in it is special there (recipes hold a
// single quote: "images' mean/std"), else single quotes with each ' written '\''.
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$`\\!*?[]{}()<>|&;#~") == std::string::npos) return s;
  if (s.find_first_of("\"$`\\!") == std::string::npos) return "\"" + s + "\"";
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string list_groups(const std::vector<TrainGroup>& groups) {
  std::string out;
  for (const TrainGroup& g : groups)
    out += fmt::format("\n  --space {} --dataset {} --recipe {}  ({} trainings of {} networks)", shell_word(g.space),
                       shell_word(g.dataset), shell_word(g.recipe), g.trainings, g.networks);
  return out;
}

}  // namespace

bool TrainFilter::matches(const train::TrainKey& k) const {
  return (space.empty() || k.space == space) && (dataset.empty() || k.dataset == dataset) &&
         (recipe.empty() || k.recipe.find(recipe) != std::string::npos);
}

std::vector<TrainGroup> group_trainings(const std::vector<StoredTraining>& rows) {
  std::vector<TrainGroup> groups;
  std::map<GroupKey, size_t> where;
  std::vector<std::map<std::string, NetworkMean>> nets;
  for (const StoredTraining& t : rows) {
    auto [it, fresh] = where.emplace(group_of(t.key), groups.size());
    if (fresh) {
      TrainGroup g;
      g.space = t.key.space;
      g.dataset = t.key.dataset;
      g.recipe = t.key.recipe;
      groups.push_back(std::move(g));
      nets.emplace_back();
    }
    TrainGroup& g = groups[it->second];
    ++g.trainings;
    g.train_seconds += t.result.train_seconds;
    g.eval_seconds += t.result.eval_seconds;
    NetworkMean& n = nets[it->second][t.key.arch];
    n.accuracy_sum += t.result.accuracy;
    ++n.trials;
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    groups[i].networks = nets[i].size();
    bool first = true;
    for (const auto& [arch, n] : nets[i]) {
      const double mean = n.accuracy_sum / n.trials;
      if (first || mean > groups[i].best_accuracy) {
        groups[i].best_accuracy = mean;
        groups[i].best_arch = arch;
        first = false;
      }
    }
  }
  return groups;
}

Expected<std::vector<StoredTraining>> select_one_group(const std::vector<StoredTraining>& rows,
                                                       const TrainFilter& filter, const std::string& file) {
  std::vector<StoredTraining> picked;
  for (const StoredTraining& t : rows)
    if (filter.matches(t.key)) picked.push_back(t);
  if (picked.empty()) {
    if (rows.empty()) return Status::invalid(fmt::format("{}: holds no trainings", file));
    return Status::invalid(
        fmt::format("{}: no trainings match the filter; the file holds:{}", file, list_groups(group_trainings(rows))));
  }
  const auto groups = group_trainings(picked);
  if (groups.size() > 1)
    return Status::invalid(
        fmt::format("{}: the trainings selected come from {} different (space, dataset, recipe) "
                    "combinations, whose accuracies do not mix; pick one with --space, --dataset "
                    "and --recipe:{}",
                    file, groups.size(), list_groups(groups)));
  return picked;
}

Expected<std::string> accuracy_csv(const std::vector<StoredTraining>& group_rows) {
  std::map<int64_t, NetworkMean> nets;  // by SSS index: the CSV in index order
  for (const StoredTraining& t : group_rows) {
    if (t.key.space != "nats-sss")
      return Status::unsupported(
          fmt::format("space '{}': only NATS-SSS trainings (space nats-sss) are exported for "
                      "the csv: oracle",
                      t.key.space));
    auto idx = sss_index(t.key.arch);
    if (!idx) return idx.status().with_context(fmt::format("stored training {} seed {}", t.key.arch, t.key.seed));
    NetworkMean& n = nets[*idx];
    n.accuracy_sum += t.result.accuracy;
    n.seconds_sum += t.result.train_seconds + t.result.eval_seconds;
    ++n.trials;
  }
  std::string csv = "arch,accuracy,train_seconds,trials\n";
  for (const auto& [idx, n] : nets) {
    const double seconds = n.seconds_sum / n.trials;
    csv += fmt::format("{},{},{},{}\n", sss_arch_string(idx), n.accuracy_sum / n.trials,
                       seconds > 0 ? fmt::format("{}", seconds) : std::string(), n.trials);
  }
  return csv;
}

}  // namespace rooflens::store
