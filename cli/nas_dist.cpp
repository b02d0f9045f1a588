// The nas command under mpirun (nas_dist.h). The environment is read here, not in the library.
#include "nas_dist.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "common.h"
#include "rooflens/train/train_oracle.h"

namespace rooflens::cli {
namespace {

// ROOFLENS_MPI_LIVENESS_S: seconds of silence after which a peer rank is lost (default 10):
// a worker for rank 0, rank 0 for a worker. Invalid input when not a number > 0.
Expected<double> liveness_seconds() {
  const char* v = std::getenv("ROOFLENS_MPI_LIVENESS_S");
  if (v == nullptr) return 10.0;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (*v == '\0' || *end != '\0' || !(x > 0))
    return Status::invalid(fmt::format("ROOFLENS_MPI_LIVENESS_S={}: expected seconds > 0", v));
  return x;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return *end == '\0' ? static_cast<int>(x) : fallback;
}

}  // namespace

MpiLaunch detect_mpi_launch() {
  MpiLaunch l;
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) {
    l.size = env_int("OMPI_COMM_WORLD_SIZE", 1);
    l.rank = env_int("OMPI_COMM_WORLD_RANK", 0);
  } else if (std::getenv("PMIX_RANK") != nullptr) {  // another PMIx launcher (srun, prterun)
    l.rank = env_int("PMIX_RANK", 0);
    l.size = env_int("PMIX_SIZE", env_int("PMI_SIZE", 1));
  }
  if (l.size < 1) l.size = 1;
  return l;
}

Expected<std::unique_ptr<dist::MpiSession>> start_nas_mpi(const NasArgs& a, const MpiLaunch& launch) {
  if (launch.size <= 1) return std::unique_ptr<dist::MpiSession>();
  if (a.oracle.rfind("train:", 0) != 0)
    return Status::invalid(
        fmt::format("running under mpirun with {} ranks: only the training oracle (--oracle "
                    "train:...) is spread over ranks; run --oracle {} without mpirun",
                    launch.size, a.oracle));
  if (a.resume)
    return Status::invalid(
        "--resume under mpirun: an MPI run's order depends on when results arrive, so its log "
        "cannot be replayed step by step; start again into a fresh --out with the same --db, "
        "which answers every network already trained without training it (docs/nas.md)");
  if (a.throughput != "predicted")
    return Status::invalid(
        "--throughput measured under mpirun: measurements are not spread over ranks; use "
        "predicted throughput, or run without mpirun");
  auto s = dist::MpiSession::start();
  if (!s) return s.status().with_context(fmt::format("running under mpirun (rank {} of {})", launch.rank, launch.size));
  if ((*s)->rank() == 0) {
    // Open MPI 4.1: without --enable-recovery mpirun kills every rank when one dies.
    const char* recovery = std::getenv("OMPI_MCA_orte_enable_recovery");
    if (recovery == nullptr || (std::strcmp(recovery, "1") != 0 && std::strcmp(recovery, "true") != 0))
      std::fprintf(stderr,
                   "nas: note: mpirun ends the whole job if a worker rank dies; start it with "
                   "--enable-recovery to keep the run going without that rank (docs/nas.md)\n");
  }
  return s;
}

int run_nas_worker(dist::MpiSession& session) {
  train::register_train_oracle();
  dist::MpiWorkerOptions o;
  auto live = liveness_seconds();
  if (!live) return report_error(live.status());
  o.root_liveness_seconds = *live;
  // Test hook (tests/cli/nas_mpi.sh): ROOFLENS_TEST_KILL_WORKER=RANK:JOB kills rank RANK with
  // SIGKILL when its JOB-th job arrives, as a crash or the OOM killer would.
  if (const char* kill_spec = std::getenv("ROOFLENS_TEST_KILL_WORKER")) {
    int rank = -1, job = -1;
    if (std::sscanf(kill_spec, "%d:%d", &rank, &job) == 2 && rank == session.rank())
      o.before_job = [job](int64_t n) {
        if (n == job) ::kill(::getpid(), SIGKILL);
      };
  }
  Status st = dist::run_mpi_worker(session, o);
  if (!st) return report_error(st.with_context(fmt::format("worker rank {}", session.rank())));
  return 0;
}

Expected<std::unique_ptr<nas::EvalPool>> make_nas_mpi_pool(dist::MpiSession& session, nas::AccuracyOracle& oracle,
                                                           const std::string& spec) {
  auto* t = dynamic_cast<nas::DistributableOracle*>(&oracle);
  if (t == nullptr) return Status::internal("MPI: the oracle of a train: spec cannot work on another process");
  dist::MpiPoolOptions o;
  auto live = liveness_seconds();
  if (!live) return live.status();
  o.liveness_seconds = *live;
  return dist::make_mpi_pool(session, *t, spec, o);
}

}  // namespace rooflens::cli
