// The dist module without MPI (mpi_pool.h): the `rooflens` program and builds without
// libopenmpi-dev. Every entry point says so; nothing here ever touches MPI.
#include "rooflens/dist/mpi_pool.h"

namespace rooflens::dist {

namespace {
Status not_built() {
  return Status::unsupported("this program is built without MPI (install libopenmpi-dev and rebuild; `rooflens` "
                             "hands train: oracles to rooflens-full, which links MPI when it is found)");
}
}  // namespace

bool mpi_built() { return false; }

Expected<std::unique_ptr<MpiSession>> MpiSession::start() { return not_built(); }
MpiSession::~MpiSession() = default;
std::string MpiSession::host() const { return "localhost"; }
void MpiSession::mark_lost(int) {}
bool MpiSession::is_lost(int) const { return false; }
void MpiSession::stop_workers() {}

Expected<std::unique_ptr<nas::EvalPool>> make_mpi_pool(MpiSession&, nas::DistributableOracle&, const std::string&,
                                                       MpiPoolOptions) {
  return not_built();
}

Status run_mpi_worker(MpiSession&, const MpiWorkerOptions&) { return not_built(); }

}  // namespace rooflens::dist
