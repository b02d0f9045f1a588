// `rooflens nas-db list|export|check [FILE]`: the training oracle's results database
// (store/train_store.h): what it holds, its accuracies as CSV for the csv: oracle, and whether
// it is sound. FILE defaults to the database `rooflens nas` uses without --db.
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "commands.h"
#include "common.h"
#include "rooflens/report/table.h"
#include "rooflens/store/train_export.h"
#include "rooflens/store/train_store.h"
#include "train_db_path.h"

namespace rooflens::cli {

void add_nas_db(CLI::App& app, NasDbArgs& a) {
  auto* cmd = app.add_subcommand("nas-db",
                                 "the training oracle's results database (rooflens nas --oracle train:... "
                                 "--db FILE): list, export CSV for the csv: oracle, check");
  cmd->require_subcommand(1);
  const std::string file_help = "results database (default: the one rooflens nas uses without --db)";
  auto add_filters = [&a](CLI::App* c) {
    c->add_option("--space", a.space, "only this search space (nats-sss)");
    c->add_option("--dataset", a.dataset, "only this dataset (fashion-mnist, or the data directory)");
    c->add_option("--recipe", a.recipe, "only recipes containing this text (e.g. \"train 3000 \"; list shows them)");
  };
  auto* list = cmd->add_subcommand("list",
                                   "trainings per space, dataset and recipe: count, networks, best mean "
                                   "accuracy, seconds spent; --rows or --limit N lists the trainings too");
  list->add_option("file", a.file, file_help);
  list->add_flag("--rows", a.rows, "also list every training");
  list->add_option("--limit", a.limit, "also list the first N trainings")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            char* end = nullptr;
            const long long n = std::strtoll(v.c_str(), &end, 10);
            return !v.empty() && *end == '\0' && n >= 1 ? std::string()
                                                        : "expected an integer N >= 1 (trainings to list)";
          },
          "N>=1", "positive"));
  add_filters(list);
  list->final_callback([&a] { a.action = "list"; });
  auto* exp = cmd->add_subcommand("export",
                                  "CSV for --oracle csv:FILE (arch,accuracy,train_seconds,trials): the "
                                  "mean over each network's stored seeds, of one (space, dataset, recipe)");
  exp->add_option("file", a.file, file_help);
  exp->add_option("-o,--out", a.out, "CSV file, written atomically (default: stdout)");
  add_filters(exp);
  exp->final_callback([&a] { a.action = "export"; });
  auto* check = cmd->add_subcommand("check",
                                    "SQLite integrity_check, the schema and every row's values; exit 0 when "
                                    "sound, 2 with the problems listed");
  check->add_option("file", a.file, file_help);
  check->final_callback([&a] { a.action = "check"; });
}

namespace {

int run_list(store::SqliteTrainStore& db, const NasDbArgs& a) {
  auto rows = db.rows();
  if (!rows) return report_error(rows.status());
  const store::TrainFilter filter{a.space, a.dataset, a.recipe};
  std::vector<store::StoredTraining> picked;
  for (auto& t : *rows)
    if (filter.matches(t.key)) picked.push_back(std::move(t));
  const auto groups = store::group_trainings(picked);
  std::string out = fmt::format("{}: {} trainings in {} group(s)\n", db.path(), picked.size(), groups.size());
  report::Table t;
  t.headers = {"group",     "space",     "dataset", "trainings", "networks", "best mean acc (%)",
               "best arch", "train (s)", "test (s)"};
  t.numeric = {true, false, false, true, true, true, false, true, true};
  std::string recipes;  // long: one line each below the table
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    t.rows.push_back({std::to_string(i + 1), g.space, g.dataset, std::to_string(g.trainings),
                      std::to_string(g.networks), report::fmt_fixed(g.best_accuracy, 2), g.best_arch,
                      report::fmt_fixed(g.train_seconds, 1), report::fmt_fixed(g.eval_seconds, 1)});
    recipes += fmt::format("group {} recipe: {}\n", i + 1, g.recipe);
  }
  if (!groups.empty()) out += report::render_text(t) + recipes;
  if (a.rows || a.limit > 0) {
    report::Table r;
    r.headers = {"group",    "arch",       "seed",    "accuracy (%)",    "train (s)",
                 "test (s)", "final loss", "threads", "stored at (UTC)", "versions"};
    r.numeric = {true, false, true, true, true, true, true, true, false, false};
    for (const auto& s : picked) {
      if (a.limit > 0 && static_cast<int64_t>(r.rows.size()) >= a.limit) break;
      size_t g = 0;
      while (g + 1 < groups.size() && !(groups[g].space == s.key.space && groups[g].dataset == s.key.dataset &&
                                        groups[g].recipe == s.key.recipe))
        ++g;
      r.rows.push_back({std::to_string(g + 1), s.key.arch, std::to_string(s.key.seed),
                        report::fmt_fixed(s.result.accuracy, 2), report::fmt_fixed(s.result.train_seconds, 2),
                        report::fmt_fixed(s.result.eval_seconds, 2), report::fmt_fixed(s.result.final_loss, 4),
                        std::to_string(s.result.threads), s.stored_at, s.result.versions});
    }
    if (!r.rows.empty()) out += "\n" + report::render_text(r);
    if (r.rows.size() < picked.size())
      out += fmt::format("({} of {} trainings listed)\n", r.rows.size(), picked.size());
  }
  Status w = write_output("", out);
  return w ? kExitOk : report_error(w);
}

int run_export(store::SqliteTrainStore& db, const NasDbArgs& a) {
  auto rows = db.rows();
  if (!rows) return report_error(rows.status());
  auto group = store::select_one_group(*rows, {a.space, a.dataset, a.recipe}, db.path());
  if (!group) return report_error(group.status());
  auto csv = store::accuracy_csv(*group);
  if (!csv) return report_error(csv.status().with_context(db.path()));
  Status w = write_output(a.out, *csv);
  if (!w) return report_error(w);
  if (!a.out.empty() && a.out != "-")
    std::fprintf(stderr, "%s: %zu trainings of %s on %s written to %s (use --oracle csv:%s)\n", db.path().c_str(),
                 group->size(), (*group)[0].key.space.c_str(), (*group)[0].key.dataset.c_str(), a.out.c_str(),
                 a.out.c_str());
  return kExitOk;
}

int run_check(store::SqliteTrainStore& db) {
  auto problems = db.check();
  if (!problems) return report_error(problems.status());
  if (problems->empty()) {
    auto rows = db.rows();
    if (!rows) return report_error(rows.status());
    std::printf("%s: ok (integrity_check ok, schema version %d, %zu trainings with sound values)\n", db.path().c_str(),
                store::kSchemaVersion, rows->size());
    return kExitOk;
  }
  std::printf("%s: %zu problem(s):\n", db.path().c_str(), problems->size());
  for (const std::string& p : *problems) std::printf("  %s\n", p.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "rooflens: error: %s is damaged (problems listed above)\n", db.path().c_str());
  return kExitInput;
}

}  // namespace

int run_nas_db(const NasDbArgs& a) {
  std::string file = a.file;
  if (file.empty()) {
    auto d = default_train_db();
    if (!d) return report_error(d.status());
    file = *d;
  }
  store::OpenOptions o;
  o.create = false;                     // reading: a missing file is an error, not a new database
  o.quick_check = a.action != "check";  // check runs the full integrity_check itself
  auto db = store::SqliteTrainStore::open(file, o);
  if (!db) return report_error(db.status());
  if (a.action == "list") return run_list(**db, a);
  if (a.action == "export") return run_export(**db, a);
  if (a.action == "check") return run_check(**db);
  return report_error(Status::invalid("nas-db: only 'nas-db list', 'nas-db export' and 'nas-db check' exist"));
}

}  // namespace rooflens::cli
