// rooflens command line: thin subcommands over the library.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "commands.h"
#include "common.h"

int main(int argc, char** argv) {
  // Named here, not from argv[0], so help always says `rooflens`.
  CLI::App app{"rooflens: how close a CNN comes to a device's peak, why not closer, and what would bring it closer",
               "rooflens"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rooflens 0.1.0");
  rooflens::cli::AnalyzeArgs analyze;
  rooflens::cli::ZooArgs zoo;
  rooflens::cli::add_analyze(app, analyze);
  rooflens::cli::add_zoo(app, zoo);
  rooflens::cli::PredictArgs predict;
  rooflens::cli::DevicesArgs devices;
  rooflens::cli::add_predict(app, predict);
  rooflens::cli::add_devices(app, devices);
  rooflens::cli::MeasureArgs measure;
  rooflens::cli::ValidateArgs validate;
  rooflens::cli::add_measure(app, measure);
  rooflens::cli::add_validate(app, validate);
  rooflens::cli::ProbeArgs probe;
  rooflens::cli::add_probe(app, probe);
  rooflens::cli::FoldArgs fold;
  rooflens::cli::add_fold(app, fold);
  rooflens::cli::StudyArgs study;
  rooflens::cli::add_study(app, study);
  rooflens::cli::WhatIfArgs whatif;
  rooflens::cli::add_whatif(app, whatif);
  rooflens::cli::SssArgs sss;
  rooflens::cli::add_sss(app, sss);
  rooflens::cli::NasArgs nas;
  rooflens::cli::add_nas(app, nas);
  rooflens::cli::NasDbArgs nas_db;
  rooflens::cli::add_nas_db(app, nas_db);
  rooflens::cli::DoctorArgs doctor;
  rooflens::cli::add_doctor(app, doctor);
  // A first word that names no command: say so and list them (CLI11 would ask for "a subcommand").
  const CLI::App& commands = app;
  const auto listed = commands.get_subcommands([](const CLI::App* c) { return !c->get_name().empty(); });
  bool known = argc < 2 || argv[1][0] == '-';
  std::string names;
  for (const CLI::App* c : listed) {
    known = known || c->check_name(argv[1]);
    names += (names.empty() ? "" : ", ") + c->get_name();
  }
  if (!known) {
    std::fprintf(stderr, "rooflens: error: '%s' is not a rooflens command; the commands are: %s (see --help)\n",
                 argv[1], names.c_str());
    return rooflens::cli::kExitInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "rooflens: error: %s (see --help)\n", e.what());
    return rooflens::cli::kExitInput;
  }
  try {
    if (app.got_subcommand("analyze")) return rooflens::cli::run_analyze(analyze);
    if (app.got_subcommand("zoo")) return rooflens::cli::run_zoo(zoo);
    if (app.got_subcommand("predict")) return rooflens::cli::run_predict(predict);
    if (app.got_subcommand("devices")) return rooflens::cli::run_devices(devices);
    if (app.got_subcommand("measure")) return rooflens::cli::run_measure(measure);
    if (app.got_subcommand("validate")) return rooflens::cli::run_validate(validate);
    if (app.got_subcommand("probe")) return rooflens::cli::run_probe(probe);
    if (app.got_subcommand("fold")) return rooflens::cli::run_fold(fold);
    if (app.got_subcommand("study")) return rooflens::cli::run_study(study);
    if (app.got_subcommand("whatif")) return rooflens::cli::run_whatif(whatif);
    if (app.got_subcommand("sss")) return rooflens::cli::run_sss(sss);
    if (app.got_subcommand("nas")) return rooflens::cli::run_nas(nas);
    if (app.got_subcommand("nas-db")) return rooflens::cli::run_nas_db(nas_db);
    if (app.got_subcommand("doctor")) return rooflens::cli::run_doctor(doctor);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rooflens: internal error: %s\n", e.what());
    return rooflens::cli::kExitInternal;
  }
  return rooflens::cli::kExitInternal;
}
