// The search strategies as ask/tell objects: each one says which network to evaluate next
// (ask) and learns the reward of each evaluation that comes back (tell). One driver
// (search_driver.cpp: run_search, run_async_search) runs any of them over an evaluation pool
// on the simulated clock; a strategy knows nothing about workers, clocks or logs.
//
// Determinism: a strategy draws only from the SearchRng it is handed, in the order the
// benchmark draws (nats-sss.md section 4), so with one worker every strategy reproduces the
// benchmark's sequential loop exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "rooflens/nas/search.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// What the driver knows when it asks for a network.
struct AskContext {
  bool time_left = true;  // the evaluation would start before the budget ends
  int64_t in_flight = 0;  // evaluations dispatched and not yet returned
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // The next network to evaluate, or nullopt when the strategy has none now (out of time, out
  // of candidates, or waiting for a result). Draws from `rng`.
  virtual std::optional<int64_t> ask(SearchRng& rng, const AskContext& context) = 0;
  // The reward of a network this strategy asked for, in the order results arrive. Evaluations
  // lost with their worker are never told.
  virtual void tell(int64_t arch, double reward) = 0;
  // Simulated seconds spent before the first evaluation (filter: the space table's cost).
  virtual double start_seconds() const { return 0; }
  // Filter only: the networks it evaluates, in its order (SearchResult::filter_candidates).
  virtual std::vector<int64_t> candidates() const { return {}; }
};

// The strategy of config.strategy. REINFORCE draws its policy's initial logits from `rng` here.
// Errors: filter when the space's frontier cannot be computed.
Expected<std::unique_ptr<Strategy>> make_strategy(const SearchConfig& config, const SpaceTable& space, SearchRng& rng);

}  // namespace rooflens::nas
