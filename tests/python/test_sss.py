"""The size space from Python: one network, the whole space as arrays."""
import numpy as np
import pytest

from rooflens import sss


def test_index_and_arch_roundtrip():
    assert sss.index("8:8:8:8:8") == 0
    assert sss.index("64:64:64:64:64") == sss.SIZE - 1
    assert sss.arch(sss.index("8:16:24:32:64")) == "8:16:24:32:64"


def test_arch_outside_the_space():
    with pytest.raises(ValueError):
        sss.index("8:16:24:32:65")
    with pytest.raises(ValueError):
        sss.network("8:16:24:32")
    with pytest.raises(ValueError):
        sss.arch(sss.SIZE)
    with pytest.raises(ValueError):
        sss.network(-1)


def test_network_costs():
    n = sss.network("8:16:24:32:64", device="v100", dtype="fp16", batch=256)
    assert n.arch == "8:16:24:32:64" and n.batch == 256
    assert n.flops_per_image >= 2 * n.macs_per_image > 0
    assert n.flop_benchmark == n.macs_per_image + 10  # CIFAR-10 classifier bias
    assert n.throughput_img_per_s > 0 and 0 < n.utilization < 1


def test_network_max_batch():
    n = sss.network("64:64:64:64:64", batch="max")
    assert n.batch > 256


def test_network_by_index_equals_by_string():
    a = sss.network(sss.index("16:16:16:16:16"), batch=64)
    b = sss.network("16:16:16:16:16", batch=64)
    assert a.to_dict() == b.to_dict()


def test_space_arrays(space):
    a = space.arrays()
    assert len(space) == sss.SIZE
    assert a["throughput_img_per_s"].shape == (sss.SIZE,)
    assert a["widths"].shape == (sss.SIZE, 5)
    assert a["index"].dtype == np.int64
    assert np.all(a["index"] == np.arange(sss.SIZE))
    assert np.all(a["utilization"] > 0) and np.all(a["utilization"] < 1)


def test_space_matches_single_network(space):
    a = space.arrays()
    i = sss.index("8:16:24:32:64")
    n = sss.network("8:16:24:32:64", batch=256)
    assert a["throughput_img_per_s"][i] == pytest.approx(n.throughput_img_per_s, rel=1e-12)
    assert a["macs_per_image"][i] == n.macs_per_image
    assert space["8:16:24:32:64"].throughput_img_per_s == a["throughput_img_per_s"][i]


def test_space_widths_decode_index(space):
    a = space.arrays()
    assert list(a["widths"][sss.index("8:16:24:32:64")]) == [8, 16, 24, 32, 64]


def test_space_bad_dataset():
    with pytest.raises(ValueError):
        sss.network("8:8:8:8:8", dataset="mnist-ish")
