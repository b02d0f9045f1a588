// Spreading the training oracle's evaluations over Open MPI ranks (architecture.md, "dist").
//
// `mpirun -n N rooflens nas ... --oracle train:...`: rank 0 runs the strategy
// (nas::run_async_search), the results cache / database, the logs and the progress; ranks
// 1..N-1 train. dist knows only nas's oracle interface (nas::DistributableOracle; the training
// oracle implements it and the program registers its scheme). Rank 0's pool (make_mpi_pool)
// answers a job here when the oracle can (answer_here: its cache, no message at all), else
// sends (arch, oracle seed, worker spec) to the worker's rank, which makes that oracle, does the
// work (do_work) and sends back its result text (or the error); rank 0 hands it to accept_work,
// which stores it and returns the Evaluation evaluate() would have returned. So 1 rank or N,
// the same network with the same seed gets the same accuracy (training is deterministic for a
// given thread count).
//
// Liveness: every worker sends a heartbeat every MpiWorkerOptions::heartbeat_seconds from a
// thread of its own (training blocks the main thread); rank 0 declares a worker lost when it
// has heard nothing from it for MpiPoolOptions::liveness_seconds, returns its job as lost
// (nas::PoolDone::worker_lost) and sends it nothing more. Open MPI 4.1 without ULFM reports
// no error to the survivors when a rank dies (a receive from it just never completes), hence
// the heartbeats; and mpirun ends the whole job when a rank dies unless it is started with
// `--enable-recovery` (docs/nas.md). With a rank lost, MPI_Finalize waits for it forever (its
// PMIx fence), so then every process skips it (rank 0's stop message says so) and just exits.
//
// Rank 0 sends a heartbeat to every worker every second too: a worker that hears nothing from
// rank 0 for MpiWorkerOptions::root_liveness_seconds stops (rank 0 died; with mpirun
// --enable-recovery it would otherwise wait for jobs forever).
//
// Messages: text (JSON) of MPI_CHAR on MPI_COMM_WORLD, tags kTag* in mpi_wire.h. Sends never
// block (MPI_Isend, reaped later): a blocking send to a dead rank never returns (seen here: a
// worker's MPI_Send of its result to a killed rank 0 spun forever). Every wait polls with short
// sleeps instead of blocking in MPI: Open MPI's blocking calls spin, and rank 0 spinning would
// take a core from the workers. A process whose sends to a dead peer never complete skips
// MPI_Finalize (which would wait for the peer) and just exits.
//
// In the `rooflens` program these functions go through the mpi plugin (plugin/plugin.h):
// without it (a build without libopenmpi-dev, or the plugin not loadable) mpi_built() is false
// and start() answers why.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rooflens/nas/async_search.h"
#include "rooflens/util/status.h"

namespace rooflens::dist {

// Whether this program can use MPI (the mpi plugin loads).
bool mpi_built();

// The MPI job of this process, from MPI_Init to MPI_Finalize (once per process). Start it only
// when the process was launched by mpirun (the CLI looks at OMPI_COMM_WORLD_SIZE / PMIX_RANK):
// a program run directly never initialises MPI.
class MpiSession {
 public:
  // MPI_Init_thread (MPI_THREAD_SERIALIZED: a worker's heartbeat thread sends while its main
  // thread trains); errors return (MPI_ERRORS_RETURN) instead of aborting the job.
  // Unsupported without MPI; unavailable when MPI_Init fails.
  static Expected<std::unique_ptr<MpiSession>> start();
  // Rank 0: tells every worker not known to be lost to stop. Then MPI_Finalize (finish()).
  ~MpiSession();
  // The destructor's work, once (the program's destructor calls the mpi plugin's).
  void finish();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::string host() const;  // MPI_Get_processor_name

  // Rank 0: a worker rank known to be dead (gets no stop message).
  void mark_lost(int rank);
  bool is_lost(int rank) const;
  // Rank 0: sends stop to every worker not lost (the destructor does it too; once only).
  void stop_workers();
  // A worker whose rank 0 is gone: the destructor then skips MPI_Finalize (which could wait for
  // the dead rank forever); the process just exits.
  void abandon() { abandoned_ = true; }

 private:
  MpiSession() = default;
  int rank_ = 0, size_ = 1;
  bool stopped_ = false, abandoned_ = false, finished_ = false;
  mutable std::mutex lost_mu_;
  std::vector<bool> lost_;
  std::thread heartbeat_;  // rank 0: heartbeats to the workers
  std::atomic<bool> heartbeat_stop_{false};
};

struct MpiPoolOptions {
  double liveness_seconds = 10;  // silence after which a worker is lost
};

// Rank 0: a pool of size() - 1 workers (worker w is rank w + 1) working for `oracle` (made by
// make_oracle(spec) on this rank, so that it shares the process-wide cache); each job carries
// oracle.worker_spec(spec). Invalid input on a rank other than 0 or a job of one rank.
Expected<std::unique_ptr<nas::EvalPool>> make_mpi_pool(MpiSession& session, nas::DistributableOracle& oracle,
                                                       const std::string& spec, MpiPoolOptions options = {});

struct MpiWorkerOptions {
  double heartbeat_seconds = 1;
  // Silence from rank 0 (it sends a heartbeat every second) after which the worker stops with
  // an unavailable Status and abandons the session: rank 0 died.
  double root_liveness_seconds = 10;
  // Called with the 1-based number of each job this rank receives, before it trains (the CLI's
  // test hook to kill a worker mid-run).
  std::function<void(int64_t job)> before_job;
  // Called after each job with (arch, oracle seed, accuracy or -1 on error, wall seconds).
  std::function<void(int64_t arch, uint64_t seed, double accuracy, double seconds)> after_job;
};

// Ranks >= 1: receives jobs from rank 0 and trains them until told to stop. Returns when rank 0
// says stop; an error only when MPI itself fails (a training error goes back to rank 0).
Status run_mpi_worker(MpiSession& session, const MpiWorkerOptions& options = {});

}  // namespace rooflens::dist
