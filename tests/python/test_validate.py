"""rooflens.validate(): the library's zoo validation (session/zoo_validation.h) from Python,
the same rooflens.validate/1 document as `rooflens validate --format json`."""
import pytest

import rooflens

QUICK = dict(batch=1, threads=1, max_seconds=0.1, tactic_cache="")


def test_validate_two_models_in_alternating_rounds():
    v = rooflens.validate(["squeezenet1_1", "alexnet"], repeat=2, host_reference=False, **QUICK)
    assert v["schema"] == "rooflens.validate/1"
    assert [m["name"] for m in v["models"]] == ["squeezenet1_1", "alexnet"]
    for m in v["models"]:
        assert len(m["runs"]) == 2 and all(r > 0 for r in m["runs"])
        assert m["predicted"] > 0 and m["measured"] == pytest.approx(sorted(m["runs"])[0] / 2 + sorted(m["runs"])[1] / 2)
    assert v["repeat"] == 2 and v["batch"] == 1 and v["threads"] == 1
    assert v["normalized"] is None  # no host reference asked
    assert 0 <= v["within_25"] <= 1 and v["failures"] == []
    assert {c["class"] for c in v["layer_classes"]}  # the first round's layers, by class


def test_validate_normalises_by_the_host_reference():
    v = rooflens.validate(["squeezenet1_1"], device="epyc-milan-2c", **QUICK)
    m = v["models"][0]
    assert len(m["host_per_run"]) == 1 and m["host_per_run"][0]["drift"] > 0
    assert v["normalized"]["n"] == 1
    assert "first reading" in v["host_baseline"]


def test_validate_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match="not in the bundled zoo.*nosuch"):
        rooflens.validate(["nosuch"], **QUICK)
    with pytest.raises(ValueError, match="backend 'tpu'"):
        rooflens.validate(["alexnet"], backend="tpu", **QUICK)
    with pytest.raises(ValueError, match="repeat"):
        rooflens.validate(["alexnet"], repeat=0, **QUICK)
