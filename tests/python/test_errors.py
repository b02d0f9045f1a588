"""Bad input raises the right exception with the library's message; nothing crashes."""
import pytest

import rooflens


def test_truncated_onnx_file(tmp_path, alexnet_path):
    data = open(alexnet_path, "rb").read()
    p = tmp_path / "cut.onnx"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError):
        rooflens.load(str(p))


def test_truncated_onnx_bytes(alexnet_path):
    data = open(alexnet_path, "rb").read()
    with pytest.raises(ValueError):
        rooflens.load(data[:100])


def test_missing_file():
    with pytest.raises(ValueError, match="no-such"):
        rooflens.load("/no-such/model.onnx")


def test_wrong_dtype_string(alexnet):
    with pytest.raises(ValueError, match="fp17"):
        rooflens.predict(alexnet, dtype="fp17")
    with pytest.raises(ValueError):
        rooflens.analyze(alexnet, dtype="fp12")


def test_wrong_dtype_at_load(alexnet_path):
    with pytest.raises(ValueError):
        rooflens.load(alexnet_path, dtype="fp12")


def test_unknown_device(alexnet):
    with pytest.raises(ValueError, match="v999"):
        rooflens.predict(alexnet, device="v999")


def test_device_without_the_dtype_is_unsupported(alexnet):
    cpu = [d.id for d in rooflens.devices() if d.kind == "cpu"]
    if not cpu:
        pytest.skip("no CPU device in the database")
    with pytest.raises(rooflens.Unsupported):
        rooflens.predict(alexnet, device=cpu[0], dtype="fp8", batch=1)


def test_bad_batch(alexnet):
    with pytest.raises(ValueError):
        rooflens.predict(alexnet, batch=0)
    with pytest.raises(ValueError):
        rooflens.predict(alexnet, batch="most")


def test_bad_input_shape(alexnet_path):
    with pytest.raises(ValueError):
        rooflens.load(alexnet_path, input_shapes="3xbanana")


def test_unknown_zoo_model():
    with pytest.raises(ValueError, match="not in the zoo"):
        rooflens.zoo("resnet5000")


def test_unknown_backend(alexnet):
    with pytest.raises(ValueError, match="backend"):
        rooflens.measure(alexnet, backend="tpu")


def test_cuda_without_gpu_is_unavailable_or_runs(alexnet):
    try:
        r = rooflens.measure(alexnet, backend="cuda", max_seconds=0.2)
    except rooflens.Unavailable as e:
        assert str(e)
    else:
        assert r.throughput_img_per_s > 0


def test_fold_factor_checked(alexnet):
    with pytest.raises(ValueError):
        rooflens.fold(alexnet, factor=1)


def test_wrong_type():
    with pytest.raises(TypeError):
        rooflens.analyze(42)
