// Progress of a NATS-Bench single-file read (a multi-GB bzip2 stream, minutes) on stderr: the
// library reports through a callback, the CLI prints. On a terminal one line rewritten in
// place; otherwise (a log) a line at every 10 % of the file.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "rooflens/nas/nats_single_file.h"

namespace rooflens::cli {

class NatsProgress {
 public:
  explicit NatsProgress(std::string path)
      : state_(std::make_shared<State>(State{std::move(path), isatty(fileno(stderr)) != 0})) {}

  std::function<void(const nas::NatsReadProgress&)> callback() const {
    return [s = state_](const nas::NatsReadProgress& p) {
      const double total = static_cast<double>(p.compressed_total);
      const int pct = total > 0 ? static_cast<int>(100.0 * static_cast<double>(p.compressed_read) / total) : 0;
      if (!s->tty && pct / 10 == s->last_decile) return;
      s->last_decile = pct / 10;
      s->printed = true;
      std::fprintf(stderr, "%sreading %s: %d%% of %.1f MB (%.1f MB of pickle), %llu networks%s", s->tty ? "\r" : "",
                   s->path.c_str(), pct, total / 1e6, static_cast<double>(p.pickle_bytes) / 1e6,
                   static_cast<unsigned long long>(p.networks), s->tty ? "" : "\n");
      std::fflush(stderr);
    };
  }
  // Ends the rewritten line on a terminal.
  void finish() const {
    if (state_->tty && state_->printed) std::fputc('\n', stderr);
  }

 private:
  struct State {
    std::string path;
    bool tty = false;
    int last_decile = -1;
    bool printed = false;
  };
  std::shared_ptr<State> state_;
};

}  // namespace rooflens::cli
