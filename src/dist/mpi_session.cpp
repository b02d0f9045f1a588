// MpiSession (mpi_pool.h) and the message plumbing of mpi_wire.h.
#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "mpi_wire.h"
#include "rooflens/dist/mpi_pool.h"

namespace rooflens::dist {

bool mpi_built() { return true; }

Status mpi_error(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return Status::ok();
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Status::unavailable(fmt::format("MPI: {}: {}", what, std::string(text, static_cast<size_t>(len))));
}

std::mutex& mpi_mutex() {
  static std::mutex mu;
  return mu;
}

namespace {

struct PendingSend {
  MPI_Request request = MPI_REQUEST_NULL;
  std::unique_ptr<std::string> text;  // the buffer MPI reads until the send completes
};

std::vector<PendingSend>& outbox() {  // under mpi_mutex()
  static std::vector<PendingSend> v;
  return v;
}

// Drops the sends that have completed (or failed). Caller holds mpi_mutex().
void reap_sends() {
  auto& v = outbox();
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](PendingSend& p) {
                           int flag = 0;
                           return MPI_Test(&p.request, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag != 0;
                         }),
          v.end());
}

}  // namespace

Status send_text(const std::string& text, int dest, int tag) {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  reap_sends();
  PendingSend p;
  p.text = std::make_unique<std::string>(text);
  const int rc =
      MPI_Isend(p.text->data(), static_cast<int>(p.text->size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD, &p.request);
  if (rc != MPI_SUCCESS) return mpi_error(rc, fmt::format("sending to rank {}", dest));
  outbox().push_back(std::move(p));
  return Status::ok();
}

bool drain_sends(double seconds) {
  const double until = now_seconds() + seconds;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mpi_mutex());
      reap_sends();
      if (outbox().empty()) return true;
    }
    if (now_seconds() > until) return false;
    sleep_seconds(kPollSleepSeconds);
  }
}

Expected<std::optional<Message>> poll_message(int source) {
  std::lock_guard<std::mutex> lock(mpi_mutex());
  reap_sends();
  int flag = 0;
  MPI_Status st;
  int rc = MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  if (rc != MPI_SUCCESS) return mpi_error(rc, "probing for messages");
  if (!flag) return std::optional<Message>();
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  Message m;
  m.source = st.MPI_SOURCE;
  m.tag = st.MPI_TAG;
  m.text.resize(static_cast<size_t>(count));
  rc = MPI_Recv(m.text.data(), count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return mpi_error(rc, fmt::format("receiving from rank {}", st.MPI_SOURCE));
  return std::optional<Message>(std::move(m));
}

void sleep_seconds(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---------------------------------------------------------------------------------------

Expected<std::unique_ptr<MpiSession>> MpiSession::start() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Status::internal("MPI: MpiSession::start called twice in one process");
  int provided = 0;
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (rc != MPI_SUCCESS) return Status::unavailable("MPI: MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return Status::unsupported(
        fmt::format("MPI: this MPI library gives thread level {} (the workers' heartbeat "
                    "thread needs MPI_THREAD_SERIALIZED)",
                    provided));
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::unique_ptr<MpiSession> s(new MpiSession());
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size_);
  s->lost_.assign(static_cast<size_t>(s->size_), false);
  if (s->rank_ == 0 && s->size_ > 1) {
    // Rank 0's heartbeat: a worker that hears nothing from rank 0 for a long while (rank 0 died;
    // mpirun --enable-recovery would otherwise keep it waiting for jobs forever) stops.
    MpiSession* self = s.get();
    s->heartbeat_ = std::thread([self] {
      double next = 0;
      while (!self->heartbeat_stop_) {
        if (now_seconds() >= next) {
          for (int r = 1; r < self->size_; ++r)
            if (!self->is_lost(r)) (void)send_text("", r, kTagHeartbeat);
          next = now_seconds() + 1.0;
        }
        sleep_seconds(0.05);
      }
    });
  }
  return s;
}

std::string MpiSession::host() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<size_t>(len));
}

void MpiSession::mark_lost(int rank) {
  std::lock_guard<std::mutex> lock(lost_mu_);
  if (rank > 0 && rank < size_) lost_[static_cast<size_t>(rank)] = true;
}

bool MpiSession::is_lost(int rank) const {
  std::lock_guard<std::mutex> lock(lost_mu_);
  return rank > 0 && rank < size_ && lost_[static_cast<size_t>(rank)];
}

void MpiSession::stop_workers() {
  if (rank_ != 0 || stopped_) return;
  stopped_ = true;
  bool any_lost = false;
  for (int r = 1; r < size_; ++r) any_lost = any_lost || is_lost(r);
  // With a rank dead, MPI_Finalize waits for it forever (its PMIx fence; seen with Open MPI 4.1):
  // then every process skips it and just exits ("nofinalize").
  if (any_lost) abandoned_ = true;
  for (int r = 1; r < size_; ++r)
    if (!is_lost(r)) (void)send_text(any_lost ? "nofinalize" : "", r, kTagStop);  // a dead rank cannot be told
}

MpiSession::~MpiSession() { finish(); }

void MpiSession::finish() {
  if (finished_) return;
  finished_ = true;
  heartbeat_stop_ = true;
  if (heartbeat_.joinable()) heartbeat_.join();
  if (!abandoned_) stop_workers();
  // The stop messages must leave; a send that never completes goes to a dead rank, and
  // MPI_Finalize would wait for it.
  if (!drain_sends(5.0)) abandoned_ = true;
  if (abandoned_) return;  // a peer is gone: MPI_Finalize could wait for it forever; just exit
  MPI_Finalize();
}

}  // namespace rooflens::dist
