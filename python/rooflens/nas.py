"""Neural architecture search on the size space, driven from Python (`rooflens nas`).

Strategies (random, rea, reinforce, filter) are ask/tell objects:

    space = rooflens.sss.space("v100")
    s = rooflens.nas.Strategy("reinforce", space, seed=0)
    arch = s.ask()                    # an index; rooflens.sss.arch(arch) is its string
    s.tell(arch, s.reward(accuracy, space[arch].throughput_img_per_s))

search() runs one strategy over a user evaluation function on the simulated clock, logged
to a JSONL file that resume=True continues; experiment() runs strategy x seed runs as the
CLI does and judges them against the oracle's frontier. hypervolume() and igd() measure
frontiers (both objectives maximized, normalised by the space's bounds).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _core
from ._records import Record, Table
from .sss import Space

STRATEGIES = ("random", "rea", "reinforce", "filter")


def _config(strategy: str, seed: int = 0, budget_seconds: float = 20000.0, reward: str = "accuracy",
            target_throughput: float = 175000.0, w: float = 0.07, max_evaluations: int = 0,
            filter_order: str = "spread"):
    return _core.search_config(strategy, int(seed), float(budget_seconds), reward, float(target_throughput), float(w),
                               int(max_evaluations), filter_order)


class Strategy:
    """A search strategy as an ask/tell object over a space table.

    reward: "accuracy", "soft" or "hard" (the throughput-aware rewards with target_throughput
    in images/s and exponent w), as `rooflens nas --reward`.
    """

    def __init__(self, name: str, space: Space, seed: int = 0, reward: str = "accuracy",
                 target_throughput: float = 175000.0, w: float = 0.07, filter_order: str = "spread"):
        self.name = name
        self._space = space
        self._core = _core.Strategy(_config(name, seed, 20000.0, reward, target_throughput, w, 0, filter_order),
                                    space._core)

    def ask(self, time_left: bool = True, in_flight: int = 0) -> Optional[int]:
        """The next network (an SSS index) or None when the strategy has none now."""
        return self._core.ask(time_left, in_flight)

    def tell(self, arch: Union[int, str], reward: float) -> None:
        """The reward of a network this strategy asked for (ValueError otherwise)."""
        self._core.tell(arch, float(reward))

    def reward(self, accuracy_percent: float, throughput_img_per_s: float) -> float:
        """The strategy's reward for an accuracy (%) at a throughput (images/s)."""
        return self._core.reward(float(accuracy_percent), float(throughput_img_per_s))

    @property
    def start_seconds(self) -> float:
        """Simulated seconds spent before the first evaluation (filter: the space's cost)."""
        return self._core.start_seconds


Evaluate = Callable[[int, int], Union[float, Tuple[float, float]]]


def search(strategy: str, space: Space, evaluate: Evaluate, log: str, seed: int = 0, budget_seconds: float = 20000.0,
           resume: bool = False, reward: str = "accuracy", target_throughput: float = 175000.0, w: float = 0.07,
           max_evaluations: int = 0, description: str = "a Python evaluation function") -> Dict[str, Any]:
    """Runs `strategy` with `evaluate(arch_index, oracle_seed) -> accuracy_percent` or
    `(accuracy_percent, cost_seconds)` on the simulated clock until budget_seconds, logging each
    evaluation to `log` (JSONL, as `rooflens nas` writes). resume=True continues an
    interrupted log (its steps replayed, not re-evaluated); a finished log is returned as is.
    An exception in evaluate() stops the search and propagates."""
    cfg = _config(strategy, seed, budget_seconds, reward, target_throughput, w, max_evaluations)
    r = _core.search(cfg, space._core, evaluate, log, bool(resume), description)
    r["evaluations"] = Table(r["evaluations"])
    return r


def experiment(strategies: Sequence[str], space: Space, oracle: Union[str, Evaluate], out: str, seeds: int = 1,
               seed_base: int = 0, budget_seconds: float = 20000.0, resume: bool = False, reward: str = "accuracy",
               target_throughput: float = 175000.0, w: float = 0.07, max_evaluations: int = 0,
               final_accuracy: Optional[Callable[[int], float]] = None, threads: int = 0) -> Dict[str, Any]:
    """strategy x seed runs logged to `out`/<strategy>-seed<k>.jsonl (`rooflens nas`), judged by
    hypervolume ratio and IGD against the oracle's final accuracies when it knows them all.

    oracle: "nats:PATH", "csv:FILE", or a function as for search() (then final_accuracy, a
    function of the index, gives the truth). resume=True needs a directory holding the logs of
    this experiment (ValueError otherwise)."""
    base = _config(strategies[0].split(":")[0] if strategies else "random", 0, budget_seconds, reward,
                   target_throughput, w, max_evaluations)
    return _core.experiment(list(strategies), int(seeds), int(seed_base), out, base, space._core, oracle,
                            final_accuracy, bool(resume), int(threads))


def read_log(path: str) -> Tuple[Table, bool]:
    """The evaluations of a search log and whether it is finished."""
    evals, done = _core.read_search_log(path)
    return Table(evals), done


def hypervolume(points: Sequence[Tuple[float, float]], space: Optional[Sequence[Tuple[float, float]]] = None) -> float:
    """Hypervolume of (throughput, accuracy) points, both maximized, normalised to the bounds of
    `space` (default: the points'), reference (0, 0)."""
    return _core.hypervolume([tuple(map(float, p)) for p in points],
                             None if space is None else [tuple(map(float, p)) for p in space])


def igd(truth: Sequence[Tuple[float, float]], found: Sequence[Tuple[float, float]],
        space: Optional[Sequence[Tuple[float, float]]] = None) -> float:
    """Inverted generational distance: mean normalised distance from each true-frontier point
    to the nearest found point (0: all found; inf when nothing is found)."""
    return _core.igd([tuple(map(float, p)) for p in truth], [tuple(map(float, p)) for p in found],
                     None if space is None else [tuple(map(float, p)) for p in space])


def true_frontier(throughput: Sequence[float], accuracy: Sequence[float]) -> List[int]:
    """Indices on the accuracy-throughput Pareto frontier (throughput ascending)."""
    return _core.true_frontier(list(map(float, throughput)), list(map(float, accuracy)))


def score_search(evaluated: Sequence[int], throughput: Sequence[float], accuracy: Sequence[float]) -> Record:
    """hypervolume_ratio, igd, true_frontier_size and true_frontier_found of a search."""
    return Record(_core.score_search(list(map(int, evaluated)), list(map(float, throughput)),
                                     list(map(float, accuracy))))


def oracle(spec: str):
    """An accuracy oracle (`rooflens nas --oracle`): "nats:PATH" (NATS-Bench) or "csv:FILE".
    .evaluate(arch, seed) -> (accuracy_percent, cost_seconds); .final_accuracy(arch)."""
    return _core.make_oracle(spec)


def nats_network(path: str) -> Dict[str, Any]:
    """One NATS-Bench per-network file (a .pickle.pbz2 of the -simple directory), read natively:
    hp ("01", "12", "90") -> arch, results (per dataset and seed: accuracies %, times s)."""
    return _core.nats_network(path)


def nats_meta(path: str) -> List[str]:
    """The arch strings of a NATS-Bench meta file."""
    return _core.nats_meta(path)
