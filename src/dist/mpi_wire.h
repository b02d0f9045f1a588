// What rank 0 and the workers say to each other (mpi_pool.h): tags, text messages of MPI_CHAR
// (a job, and the oracle's own result text wrapped in JSON), and polling without spinning.
// Internal to src/dist.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "rooflens/util/status.h"

namespace rooflens::dist {

inline constexpr int kTagJob = 1;        // rank 0 -> worker: {"arch", "seed", "spec"}
inline constexpr int kTagResult = 2;     // worker -> rank 0: {"ok": true, "result"} or {"ok": false, "code", "message"}
inline constexpr int kTagStop = 3;       // rank 0 -> worker: empty
inline constexpr int kTagHeartbeat = 4;  // both ways, empty: worker -> rank 0 and rank 0 -> worker, every second

// Seconds a poll sleeps when nothing has arrived: short next to a training (seconds), long
// enough that an idle rank costs no CPU worth mentioning.
inline constexpr double kPollSleepSeconds = 0.002;

// Every MPI call of a process goes through send_text / poll_message, which hold this lock:
// MPI_THREAD_SERIALIZED with heartbeat threads beside the main one.
std::mutex& mpi_mutex();

Status mpi_error(int rc, const std::string& what);
// Sends without waiting (MPI_Isend; the text is kept until the send completes): a blocking send
// to a rank that has died never returns. Completed sends are reaped by later calls.
Status send_text(const std::string& text, int dest, int tag);
// Waits up to `seconds` for every send to complete; false when some did not (a peer is gone:
// MPI_Finalize would wait for it).
bool drain_sends(double seconds);
// A message that has arrived (MPI_Iprobe), or nullopt; `source` MPI_ANY_SOURCE or a rank.
struct Message {
  int source = -1;
  int tag = -1;
  std::string text;
};
Expected<std::optional<Message>> poll_message(int source);
void sleep_seconds(double s);
double now_seconds();  // steady clock

}  // namespace rooflens::dist
