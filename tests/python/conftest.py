"""Fixtures of the Python suite: the module from the build tree (PYTHONPATH=build/python, set by
ctest), a small zoo model, a space predicted once, a CSV oracle over the whole space."""
import os

import pytest

import rooflens

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="session")
def alexnet():
    return rooflens.zoo("alexnet")


@pytest.fixture(scope="session")
def alexnet_path():
    return rooflens.zoo_models()["alexnet"]["path"]


@pytest.fixture(scope="session")
def space():
    return rooflens.sss.space(device="v100", dtype="fp16", batch=256)


def _accuracy(index: int) -> float:
    # A smooth made-up accuracy: wider networks are better, deterministic.
    w = [8 * (1 + (index >> (3 * (4 - k)) & 7)) for k in range(5)]
    return 60.0 + 30.0 * sum(w) / (5 * 64)


@pytest.fixture(scope="session")
def csv_oracle(tmp_path_factory):
    p = tmp_path_factory.mktemp("oracle") / "acc.csv"
    with open(p, "w") as f:
        f.write("arch,accuracy,train_seconds\n")
        for i in range(rooflens.sss.SIZE):
            f.write(f"{i},{_accuracy(i):.4f},100\n")
    return str(p)


@pytest.fixture(scope="session")
def accuracy():
    return _accuracy
