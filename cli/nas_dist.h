// `mpirun -n N rooflens nas ... --oracle train:...` (rooflens/dist/mpi_pool.h): how the nas
// command finds out it runs under mpirun, makes the ranks >= 1 train, and gives rank 0 its pool.
// MPI itself is in the mpi plugin (plugin/plugin.h), loaded when a run starts under mpirun.
#pragma once

#include <memory>
#include <string>

#include "commands.h"
#include "rooflens/dist/mpi_pool.h"
#include "rooflens/nas/async_search.h"
#include "rooflens/nas/oracle.h"

namespace rooflens::cli {

// The ranks mpirun said this process has (OMPI_COMM_WORLD_SIZE/RANK, else PMIX_RANK with
// PMIX/PMI sizes); size 1 when not launched by mpirun. MPI is initialised only when size > 1, so
// the command without mpirun, and `mpirun -n 1`, run in one process and never call MPI_Init.
struct MpiLaunch {
  int rank = 0;
  int size = 1;
};
MpiLaunch detect_mpi_launch();

// Under mpirun with 2+ ranks: checks the arguments can be spread (a train: oracle, no --resume,
// predicted throughput) and starts MPI. nullptr when not under mpirun.
Expected<std::unique_ptr<dist::MpiSession>> start_nas_mpi(const NasArgs& a, const MpiLaunch& launch);

// Ranks >= 1: trains what rank 0 sends until it says stop; the exit code.
int run_nas_worker(dist::MpiSession& session);

// Rank 0: the pool of worker ranks for `oracle` (a TrainOracle made from `spec`).
Expected<std::unique_ptr<nas::EvalPool>> make_nas_mpi_pool(dist::MpiSession& session, nas::AccuracyOracle& oracle,
                                                           const std::string& spec);

}  // namespace rooflens::cli
