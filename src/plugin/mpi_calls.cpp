// The program's dist entry points (dist/mpi_pool.h): through the mpi plugin (plugin.h), or its
// load status when it cannot be loaded. A session exists only when the plugin loaded (start()
// made it there), so its members call the plugin without checking again.
#include "rooflens/plugin/plugin.h"

namespace rooflens::dist {
namespace {
const plugin::MpiApi& api() { return *(*plugin::load(plugin::Kind::kMpi))->mpi; }
}  // namespace

bool mpi_built() { return plugin::load(plugin::Kind::kMpi).has_value(); }

Expected<std::unique_ptr<MpiSession>> MpiSession::start() {
  auto p = plugin::load(plugin::Kind::kMpi);
  if (!p) return p.status();
  return (*p)->mpi->start();
}

MpiSession::~MpiSession() { api().finish(*this); }
std::string MpiSession::host() const { return api().host(*this); }
void MpiSession::mark_lost(int rank) { api().mark_lost(*this, rank); }
bool MpiSession::is_lost(int rank) const { return api().is_lost(*this, rank); }
void MpiSession::stop_workers() { api().stop_workers(*this); }

Expected<std::unique_ptr<nas::EvalPool>> make_mpi_pool(MpiSession& session, nas::DistributableOracle& oracle,
                                                       const std::string& spec, MpiPoolOptions options) {
  return api().make_pool(session, oracle, spec, options);
}

Status run_mpi_worker(MpiSession& session, const MpiWorkerOptions& options) {
  return api().run_worker(session, options);
}

}  // namespace rooflens::dist
