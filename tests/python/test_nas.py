"""NAS from Python: ask/tell strategies, a logged search with a user evaluation and resume,
the experiment, frontier metrics, the oracles and the NATS-Bench reader."""
import math
import os

import pytest

import rooflens
from rooflens import nas, sss


@pytest.mark.parametrize("name", ["random", "rea", "reinforce", "filter"])
def test_strategy_ask_tell(space, accuracy, name):
    s = nas.Strategy(name, space, seed=1)
    seen = []
    for _ in range(30):
        a = s.ask()
        if a is None:
            break
        assert 0 <= a < sss.SIZE
        s.tell(a, accuracy(a))
        seen.append(a)
    assert len(seen) > 0


def test_strategy_is_deterministic(space, accuracy):
    def run():
        s = nas.Strategy("reinforce", space, seed=7)
        out = []
        for _ in range(20):
            a = s.ask()
            s.tell(a, accuracy(a))
            out.append(a)
        return out

    assert run() == run()


def test_tell_unasked_arch_is_refused(space):
    s = nas.Strategy("random", space, seed=0)
    with pytest.raises(ValueError, match="did not ask"):
        s.tell("8:8:8:8:8", 50.0)


def test_unknown_strategy(space):
    with pytest.raises(ValueError):
        nas.Strategy("annealing", space)


def test_reward_soft_penalizes_slow(space):
    s = nas.Strategy("random", space, reward="soft", target_throughput=1e9)
    assert s.reward(90.0, 1e3) < s.reward(90.0, 1e9)


def test_search_logs_and_resumes(tmp_path, space, accuracy):
    log = str(tmp_path / "run.jsonl")
    calls = []

    def evaluate(arch, seed):
        calls.append(arch)
        return accuracy(arch), 100.0

    r = nas.search("rea", space, evaluate, log, seed=3, budget_seconds=3000)
    n = len(r["evaluations"])
    assert n == len(calls) and n >= 30  # 100 s each, checked before each sample
    assert r["clock_s"] == pytest.approx(100.0 * n)
    assert r["best_arch"] == sss.arch(r["best_arch_index"])
    evals, done = nas.read_log(log)
    assert done and len(evals) == n
    # Resuming a finished log evaluates nothing again and gives the same answer.
    again = nas.search("rea", space, evaluate, log, seed=3, budget_seconds=3000, resume=True)
    assert len(calls) == n and again["best_arch"] == r["best_arch"] and again["was_complete"]


def test_search_resume_after_interruption(tmp_path, space, accuracy):
    log = str(tmp_path / "cut.jsonl")
    full = nas.search("reinforce", space, lambda a, s: (accuracy(a), 10.0), str(tmp_path / "full.jsonl"), seed=5,
                      budget_seconds=300)
    nas.search("reinforce", space, lambda a, s: (accuracy(a), 10.0), log, seed=5, budget_seconds=300)
    lines = open(log).read().splitlines()
    with open(log, "w") as f:  # cut after the header and 10 evaluations
        f.write("\n".join(lines[:11]) + "\n")
    calls = []

    def evaluate(a, s):
        calls.append(a)
        return accuracy(a), 10.0

    r = nas.search("reinforce", space, evaluate, log, seed=5, budget_seconds=300, resume=True)
    assert r["replayed_steps"] == 10
    assert [e.arch_index for e in r["evaluations"]] == [e.arch_index for e in full["evaluations"]]
    assert len(calls) == len(full["evaluations"]) - 10


def test_search_refuses_existing_log(tmp_path, space, accuracy):
    log = str(tmp_path / "x.jsonl")
    nas.search("random", space, lambda a, s: (accuracy(a), 1.0), log, budget_seconds=3)
    with pytest.raises(ValueError):
        nas.search("random", space, lambda a, s: (accuracy(a), 1.0), log, budget_seconds=3)


def test_search_user_exception_propagates(tmp_path, space):
    def evaluate(a, s):
        raise KeyError("my training failed")

    with pytest.raises(KeyError, match="my training failed"):
        nas.search("random", space, evaluate, str(tmp_path / "e.jsonl"), budget_seconds=10)


def test_search_bad_return_value(tmp_path, space):
    with pytest.raises(ValueError):
        nas.search("random", space, lambda a, s: (1.0, -5.0), str(tmp_path / "b.jsonl"), budget_seconds=10)


def test_experiment_with_csv_oracle(tmp_path, space, csv_oracle):
    out = str(tmp_path / "exp")
    r = nas.experiment(["random", "reinforce"], space, "csv:" + csv_oracle, out, seeds=2, budget_seconds=2000)
    assert len(r["runs"]) == 4 and len(r["logs"]) == 4
    assert all(os.path.exists(p) for p in r["logs"])
    assert r["scores"] is not None
    for s in r["scores"]:
        assert 0 <= s["hypervolume_ratio"] <= 1 and s["igd"] >= 0


def test_experiment_with_python_oracle(tmp_path, space, accuracy):
    out = str(tmp_path / "py")
    r = nas.experiment(["rea"], space, lambda a, s: (accuracy(a), 50.0), out, budget_seconds=1000,
                       final_accuracy=accuracy)
    assert len(r["runs"][0]["evaluations"]) >= 20
    assert r["scores"][0]["hypervolume_ratio"] > 0


def test_resume_on_a_directory_that_never_ran(tmp_path, space, csv_oracle):
    with pytest.raises(ValueError, match="resume|never|log"):
        nas.experiment(["random"], space, "csv:" + csv_oracle, str(tmp_path / "never"), resume=True)


def test_experiment_resume_continues(tmp_path, space, csv_oracle):
    out = str(tmp_path / "again")
    a = nas.experiment(["random"], space, "csv:" + csv_oracle, out, budget_seconds=1000)
    b = nas.experiment(["random"], space, "csv:" + csv_oracle, out, budget_seconds=1000, resume=True)
    assert b["runs"][0]["was_complete"]
    assert b["runs"][0]["best_arch"] == a["runs"][0]["best_arch"]


def test_hypervolume_and_igd():
    pts = [(1.0, 0.0), (0.0, 1.0)]
    space = [(0.0, 0.0), (1.0, 1.0)]
    assert nas.hypervolume([(1.0, 1.0)], space) == pytest.approx(1.0)
    assert nas.hypervolume(pts, space) == pytest.approx(0.0)
    assert nas.hypervolume([(0.5, 0.5)], space) == pytest.approx(0.25)
    assert nas.igd(pts, pts, space) == pytest.approx(0.0)
    assert nas.igd([(1.0, 1.0)], [(0.0, 1.0)], space) == pytest.approx(1.0)
    assert math.isinf(nas.igd(pts, [], space))


def test_igd_needs_truth():
    with pytest.raises(ValueError):
        nas.igd([], [(1.0, 1.0)], [(0.0, 0.0), (1.0, 1.0)])


def test_true_frontier_and_score():
    thr = [1.0, 2.0, 3.0, 0.5]
    acc = [90.0, 80.0, 70.0, 60.0]
    assert nas.true_frontier(thr, acc) == [0, 1, 2]
    s = nas.score_search([0, 1, 2], thr, acc)
    assert s.hypervolume_ratio == pytest.approx(1.0) and s.true_frontier_found == 3


def test_csv_oracle_object(csv_oracle, accuracy):
    o = nas.oracle("csv:" + csv_oracle)
    acc, cost = o.evaluate("8:16:24:32:64", 0)
    assert acc == pytest.approx(accuracy(sss.index("8:16:24:32:64")), abs=1e-3) and cost == 100
    assert "csv" in o.describe().lower() or csv_oracle in o.describe()
    with pytest.raises(ValueError):
        o.evaluate(sss.SIZE + 3, 0)


def test_unknown_oracle_scheme():
    with pytest.raises(ValueError):
        nas.oracle("magic:whatever")


NATS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "nats-sss-v1_0-50262-simple")


def test_nats_network_reader():
    path = os.path.join(NATS, "000000.pickle.pbz2")
    if not os.path.exists(path):
        pytest.skip("NATS-Bench sample data not found at " + NATS)
    n = nas.nats_network(path)
    assert "90" in n or "12" in n
    hp = n.get("90") or n.get("12")
    assert hp["arch_index"] == 0 and hp["results"]


def test_nats_oracle_missing_dir_is_refused():
    with pytest.raises((ValueError, rooflens.Unavailable)):
        nas.oracle("nats:/no/such/dir")
