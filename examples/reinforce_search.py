#!/usr/bin/env python3
"""A REINFORCE search on the NATS-Bench size space driven from Python, with a reward of its own.

The user's evaluation here is a stand-in for training (a smooth made-up accuracy, so the
example runs in seconds); the reward is the user's too: accuracy minus a penalty for networks
below a target throughput on the chosen GPU, predicted by rooflens. The loop asks the
strategy for a network, evaluates it, tells the reward, and charges a simulated clock.
Then the same search runs through rooflens.nas.search(), logged and resumable as the CLI's.

    PYTHONPATH=build/python python3 examples/reinforce_search.py --device v100 --budget 20000
"""
import argparse
import os
import sys

try:
    import rooflens  # noqa: F401
except ImportError as e:  # the module is not built
    print(f"rooflens is not importable ({e}); build it: /work/bin/rlbuild rooflens_python", file=sys.stderr)
    sys.exit(77)
from rooflens import nas, sss


def accuracy(index: int) -> float:
    """A stand-in for training: wider late layers help, with diminishing returns (percent)."""
    w = [int(x) for x in sss.arch(index).split(":")]
    return 50.0 + 10.0 * sum((c / 64.0) ** 0.5 * (k + 1) for k, c in enumerate(w)) / 15.0 * 4.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="v100")
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--budget", type=float, default=20000.0, help="simulated seconds")
    ap.add_argument("--train-seconds", type=float, default=200.0, help="simulated seconds per evaluation")
    ap.add_argument("--target", type=float, default=60000.0, help="target throughput, images/s")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="reinforce-example")
    a = ap.parse_args()

    space = sss.space(device=a.device, dtype=a.dtype, batch=256)
    thr = space.arrays()["throughput_img_per_s"]

    def reward(index: int, acc: float) -> float:
        shortfall = max(0.0, 1.0 - thr[index] / a.target)
        return acc - 20.0 * shortfall

    # 1. The ask/tell loop, in Python, on a simulated clock.
    strategy = nas.Strategy("reinforce", space, seed=a.seed)
    clock, best = 0.0, (float("-inf"), None)
    evaluated = []
    while clock < a.budget:
        index = strategy.ask()
        if index is None:
            break
        acc = accuracy(index)
        clock += a.train_seconds
        r = reward(index, acc)
        strategy.tell(index, r)
        evaluated.append(index)
        best = max(best, (r, index))
    print(f"ask/tell: {len(evaluated)} networks in {clock:.0f} simulated s; best {sss.arch(best[1])} "
          f"reward {best[0]:.2f}, {thr[best[1]]:.0f} img/s on {space._core.device}")

    # How close to the true reward frontier: hypervolume ratio and IGD over (throughput, accuracy).
    all_acc = [accuracy(i) for i in range(sss.SIZE)]
    score = nas.score_search(evaluated, list(thr), all_acc)
    print(f"frontier: hypervolume ratio {score.hypervolume_ratio:.3f}, IGD {score.igd:.4f}, "
          f"{score.true_frontier_found}/{score.true_frontier_size} true-frontier networks found")

    # 2. The same strategy through the library's driver: logged (JSONL), resumable.
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, f"reinforce-seed{a.seed}.jsonl")
    if os.path.exists(log):
        os.remove(log)
    res = nas.search("reinforce", space, lambda i, seed: (accuracy(i), a.train_seconds), log, seed=a.seed,
                     budget_seconds=a.budget)
    again = nas.search("reinforce", space, lambda i, seed: (accuracy(i), a.train_seconds), log, seed=a.seed,
                       budget_seconds=a.budget, resume=True)
    assert again["best_arch"] == res["best_arch"] and again["was_complete"]
    print(f"logged: {len(res['evaluations'])} evaluations to {log}; best {res['best_arch']} "
          f"({res['best_reward']:.2f}% accuracy); resume replays the finished log")
    if len(evaluated) == 0 or not (0.0 <= score.hypervolume_ratio <= 1.0):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
