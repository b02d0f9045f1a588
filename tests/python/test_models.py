"""Models from Python: load, analyze, predict, devices, fold, whatif, doctor, study, measure."""
import json
import math
import os
import threading

import pytest

import rooflens


def test_version_and_exceptions():
    assert rooflens.__version__
    assert issubclass(rooflens.Unsupported, rooflens.Error)
    assert issubclass(rooflens.Unavailable, rooflens.Error)
    assert issubclass(rooflens.Error, RuntimeError)


def test_zoo_lists_models():
    z = rooflens.zoo_models()
    assert "alexnet" in z and "resnet50" in z
    assert z["resnet50"]["acc1_percent"] > 70


def test_load_file_and_name(alexnet_path):
    m = rooflens.load(alexnet_path)
    assert m.name == "alexnet"
    assert m.dtype == "fp16"


def test_load_bytes_matches_file(alexnet_path):
    with open(alexnet_path, "rb") as f:
        data = f.read()
    a = rooflens.analyze(rooflens.load(data, name="x"))
    b = rooflens.analyze(rooflens.load(alexnet_path))
    assert a.flops == b.flops and a.params == b.params
    assert a.model == "x"


def test_analyze_totals_match_layers(alexnet):
    a = rooflens.analyze(alexnet, batch=1)
    assert a.batch == 1
    assert a.flops == sum(L.flops for L in a.layers)
    assert a.macs == sum(L.macs for L in a.layers)
    assert 0.6e9 < a.macs < 0.8e9  # AlexNet: ~0.71 GMACs per image
    assert a.params > 60e6


def test_analyze_scales_with_batch(alexnet):
    a1 = rooflens.analyze(alexnet, batch=1)
    a8 = rooflens.analyze(alexnet, batch=8)
    assert a8.flops == 8 * a1.flops


def test_analyze_layer_records_name_units(alexnet):
    L = rooflens.analyze(alexnet).layers[0]
    for key in ("macs", "flops", "bytes", "ai_flop_per_byte", "flops_share", "input_shapes"):
        assert key in L.to_dict()
    assert L.ai_flop_per_byte == pytest.approx(L.flops / L.bytes)
    with pytest.raises(AttributeError):
        L.nope  # noqa: B018


def test_analyze_unfused_has_more_layers(alexnet):
    assert len(rooflens.analyze(alexnet, fused=False).layers) > len(rooflens.analyze(alexnet).layers)


def test_analyze_dtype_changes_bytes(alexnet):
    a32 = rooflens.analyze(alexnet, dtype="fp32", batch=1)
    a16 = rooflens.analyze(alexnet, dtype="fp16", batch=1)
    assert a32.bytes == pytest.approx(2 * a16.bytes, rel=0.01)


def test_analysis_text_and_to_dict(alexnet):
    a = rooflens.analyze(alexnet)
    assert "Conv" in a.text()
    d = a.to_dict()
    assert d["layers"][0]["name"] == a.layers[0].name


def test_to_pandas_or_import_error(alexnet):
    a = rooflens.analyze(alexnet)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            a.to_pandas()
    else:
        assert len(a.to_pandas()) == len(a.layers)


def test_predict_max_batch(alexnet):
    p = rooflens.predict(alexnet, device="v100", dtype="fp16", batch="max")
    assert p.batch == p.max_batch and p.batch > 1
    assert p.throughput_img_per_s > 0 and 0 < p.utilization <= 1
    assert p.device == "v100-sxm2-16gb"
    assert p.time_s == pytest.approx(sum(L.time_s for L in p.layers), rel=1e-6)


def test_predict_list_keeps_order(alexnet):
    ps = rooflens.predict(alexnet, batch=[8, "max", 1])
    assert [p.batch for p in ps][0] == 8 and ps[2].batch == 1
    assert ps[1].batch == ps[1].max_batch


def test_predict_throughput_is_batch_over_time(alexnet):
    p = rooflens.predict(alexnet, batch=16)
    assert p.throughput_img_per_s == pytest.approx(16 / p.time_s, rel=1e-9)


def test_predict_two_devices_differ(alexnet):
    v = rooflens.predict(alexnet, device="v100", batch=64)
    a = rooflens.predict(alexnet, device="a100", batch=64)
    assert a.throughput_img_per_s > v.throughput_img_per_s


def test_predict_roofline_svg(alexnet):
    p = rooflens.predict(alexnet, batch=8)
    svg = p._repr_svg_()
    assert svg.lstrip().startswith("<svg") or "<svg" in svg[:200]


def test_predict_layers_say_what_the_kernel_table_did(alexnet, tmp_path):
    # A CPU device whose measured kernel table times matrix products only, with an in-network
    # level of 1.5 for them: AlexNet's classifier layers name the class and the level, the
    # convolutions (timed by the roofline) have none.
    from conftest import SOURCE
    with open(os.path.join(SOURCE, "data", "devices", "epyc-milan-2c.json")) as f:
        dev = json.load(f)
    dev["kernel_table"] = {
        "schema": "rooflens.kernel_table/1", "backend": "oneDNN test", "threads": 2, "dtype": "fp32",
        "dispatch_s": 2e-6,
        "classes": {"gemm": {"features": ["log_rows", "log_cols", "log_k", "transcendental"],
                             "coef": [-20.0, 1.0, 0.9, 0.95, 0.0], "samples": 10}},
        "network_levels": [{"batch": 1, "level": 1.1, "classes": {"gemm": 1.5}}],
    }
    path = tmp_path / "cpu.json"
    path.write_text(json.dumps(dev))
    p = rooflens.predict(alexnet, device=str(path), dtype="fp32", batch=1)
    timed = [L for L in p.layers if L.kernel_table]
    assert len(timed) == 3  # the three fully connected layers
    for L in timed:
        assert L.kernel_table["class"] == "gemm" and L.kernel_table["level_class"] == "gemm"
        assert L.kernel_table["level"] == pytest.approx(1.5) and L.kernel_table["level_position"] == 0
    names = {L.name for L in timed}
    assert all(L.kernel_table is None for L in p.layers if L.name not in names)


def test_predict_custom_device(alexnet):
    p = rooflens.predict(alexnet, device="custom:fp16=100e12,bw=1e12,mem=16e9", batch=8)
    assert p.peak_flop_per_s == 100e12


def test_devices_table():
    ds = rooflens.devices()
    ids = [d.id for d in ds]
    assert "v100-sxm2-16gb" in ids and len(ids) > 5


def test_fold_gives_a_model(alexnet):
    f = rooflens.fold(alexnet, factor=2)
    assert isinstance(f, rooflens.Model)
    a = rooflens.analyze(f)
    assert a.flops > 0


def test_whatif_rows(alexnet):
    rows = rooflens.whatif(alexnet, device="v100", batch=64, devices=["a100"])
    groups = {r.group for r in rows}
    assert "baseline" in groups and "device" in groups
    base = [r for r in rows if r.group == "baseline"][0]
    assert base.throughput_img_per_s > 0
    dev = [r for r in rows if r.group == "device" and r.ok][0]
    assert dev.speedup == pytest.approx(dev.throughput_img_per_s / base.throughput_img_per_s, rel=1e-6)


def test_doctor_html(alexnet):
    d = rooflens.doctor(alexnet, device="v100", batch=64)
    assert len(d.findings) > 0
    assert "<" in d._repr_html_()
    assert d.text()


def test_study_two_models():
    s = rooflens.study(["alexnet", "vgg11"], device="v100", batch=64)
    names = sorted(m["name"] if "name" in m.to_dict() else m["model"] for m in s.models)
    assert names == ["alexnet", "vgg11"]
    assert "<html" in s.html()[:500].lower() or "<!doctype" in s.html()[:200].lower()


def test_study_measured_on_this_cpu():
    s = rooflens.study(["alexnet"], source="measured", batch=1, threads=1, max_seconds=0.2, tactic_cache="",
                       fold_below_cmr=False)
    d = s.to_dict()
    assert d["source_text"].startswith("measured on this CPU through the onednn backend (1 thread(s))"), d["source_text"]
    (m,) = d["models"]
    assert m["throughput"] > 0 and m["batch"] == 1
    assert "measured on this CPU" in s.text()
    # No device given: the peaks are a database entry's, and the study says so.
    assert any("not from this machine" in n for n in d["notes"]), d["notes"]


def test_study_measured_refuses_what_it_cannot_measure():
    with pytest.raises(ValueError, match="source 'nosuch'"):
        rooflens.study(["alexnet"], source="nosuch")
    with pytest.raises(ValueError, match="device 'v100.*' is a GPU: backend 'onednn' measures on this CPU"):
        rooflens.study(["alexnet"], source="measured", device="v100", dtype="fp32")
    with pytest.raises(rooflens.Unsupported, match="no fp16 peak|fp16 cannot be measured here"):
        rooflens.study(["alexnet"], source="measured", dtype="fp16")
    with pytest.raises(ValueError, match="backend 'nosuch'"):
        rooflens.study(["alexnet"], source="measured", backend="nosuch")


def test_measure_onednn_briefly(alexnet):
    r = rooflens.measure(alexnet, backend="onednn", batch=1, threads=1, max_seconds=0.3, tactic_cache="")
    assert r.throughput_img_per_s > 0 and r.latency_s > 0
    assert r.backend
    assert len(r.layers) > 0
    # One thread asked: nothing to adapt; the contention of the timed runs is still assessed.
    assert r.threads == 1 and r.threads_asked == 1 and r.thread_choice is None
    assert isinstance(r.contended, bool) and r.contention


def test_measure_fixed_threads_keeps_the_asked_count(alexnet):
    r = rooflens.measure(alexnet, backend="onednn", threads=2, max_seconds=0.2, tactic_cache="", fixed_threads=True)
    assert r.threads == 2 and r.streams == 1 and r.thread_choice is None
    a = rooflens.measure(alexnet, backend="onednn", threads=2, max_seconds=0.2, tactic_cache="")
    assert a.threads in (1, 2) and a.thread_choice  # the trial's verdict, whichever it was
    assert a.streams == 1  # batch 1 cannot be split into streams


def test_measure_sets_the_run_against_the_host_state(alexnet):
    r = rooflens.measure(alexnet, threads=1, max_seconds=0.2, tactic_cache="", device="epyc-milan-2c")
    h = r.host_reference
    assert h["gemm_flops_before"] > 0 and h["stream_bytes_after"] > 0 and h["move"] >= 0
    assert isinstance(h["flagged"], bool)
    # That device file has no kernel table: this call's first reading is the baseline, so the
    # host has not drifted from it and normalised equals measured.
    assert r.drift == pytest.approx(1.0, rel=1e-12)
    assert r.normalized_throughput_img_per_s == pytest.approx(r.throughput_img_per_s, rel=1e-12)
    assert r.predicted_img_per_s > 0
    assert r.predicted_at_host_state_img_per_s == pytest.approx(r.predicted_img_per_s, rel=1e-12)
    assert "first reading" in r.host_baseline
    bare = rooflens.measure(alexnet, threads=1, max_seconds=0.2, tactic_cache="", host_reference=False)
    assert "host_reference" not in bare.keys() and "drift" not in bare.keys()


def test_measure_pairs_each_run_with_a_pass_of_the_reference_unless_asked_not_to(alexnet):
    r = rooflens.measure(alexnet, threads=1, max_seconds=0.2, tactic_cache="", device="epyc-milan-2c")
    assert r.host_reference["paired_runs"] >= 3 and r.host_reference["paired_kernels_s"] > 0
    bare = rooflens.measure(alexnet, threads=1, max_seconds=0.2, tactic_cache="", device="epyc-milan-2c",
                            paired_reference=False)
    assert bare.host_reference["paired_runs"] == 0 and bare.host_reference["paired_kernels_s"] == 0


def test_measure_refuses_a_reference_move_outside_its_range(alexnet):
    with pytest.raises(ValueError, match="reference_max_move"):
        rooflens.measure(alexnet, threads=1, max_seconds=0.1, tactic_cache="", reference_max_move=-0.1)


def test_measure_takes_the_activation_layout(alexnet):
    r = rooflens.measure(alexnet, threads=1, max_seconds=0.1, tactic_cache="", host_reference=False, layout="blocked")
    assert "blocked" in r.layout and r.throughput_img_per_s > 0
    assert rooflens.measure(alexnet, threads=1, max_seconds=0.1, tactic_cache="", host_reference=False).layout == \
        "channels-last"
    with pytest.raises(ValueError, match="layout 'nchw': expected channels-last, blocked or auto"):
        rooflens.measure(alexnet, threads=1, max_seconds=0.1, tactic_cache="", layout="nchw")



def test_measure_flushes_denormals_unless_asked_not_to(alexnet):
    quick = dict(threads=1, max_seconds=0.1, tactic_cache="", host_reference=False)
    assert rooflens.measure(alexnet, **quick).denormals_flushed is True
    assert rooflens.measure(alexnet, flush_denormals=False, **quick).denormals_flushed is False


def test_calls_from_threads_agree(alexnet):
    want = rooflens.predict(alexnet, batch=32).throughput_img_per_s
    got = []

    def run():
        got.append(rooflens.predict(alexnet, batch=32).throughput_img_per_s)

    ts = [threading.Thread(target=run) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == [want] * 4 and not any(math.isnan(x) for x in got)


def test_predict_engine_names_the_execution(alexnet):
    trt = rooflens.predict(alexnet, device="v100", batch=64)
    eager = rooflens.predict(alexnet, device="v100", batch=64, engine="pytorch-eager")
    # Eager runs each activation as its own kernel with a host cost per call: slower.
    assert eager.throughput_img_per_s < trt.throughput_img_per_s
    assert eager.engine == "pytorch-eager" and trt.engine == "tensorrt"
    assert "pytorch-eager" in repr(eager)
    w = rooflens.whatif(alexnet, device="v100", batch=64, devices=["a100"], engine="pytorch-eager")
    assert len(w) > 0


def test_engine_errors(alexnet):
    with pytest.raises(ValueError, match="nosuch"):
        rooflens.predict(alexnet, device="v100", batch=8, engine="nosuch")
    with pytest.raises(ValueError, match="does not apply"):
        rooflens.doctor(alexnet, device="epyc-milan-2c", dtype="fp32", batch=8, engine="pytorch-compile")
