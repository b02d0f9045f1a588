// librooflens-mpi.so's entry point (plugin.h): MPI sessions, rank 0's pool and the workers.
#include "rooflens/plugin/plugin.h"

namespace {
using rooflens::dist::MpiSession;
const rooflens::plugin::MpiApi kMpi{
    &MpiSession::start,
    [](MpiSession& s) { s.finish(); },
    [](const MpiSession& s) { return s.host(); },
    [](MpiSession& s, int rank) { s.mark_lost(rank); },
    [](const MpiSession& s, int rank) { return s.is_lost(rank); },
    [](MpiSession& s) { s.stop_workers(); },
    &rooflens::dist::make_mpi_pool,
    &rooflens::dist::run_mpi_worker,
};
const rooflens::plugin::Table kTable{rooflens::plugin::kApiVersion, ROOFLENS_VERSION, "mpi", nullptr, nullptr, &kMpi};
}  // namespace

extern "C" __attribute__((visibility("default"))) const rooflens::plugin::Table* rooflens_plugin_table() {
  return &kTable;
}
