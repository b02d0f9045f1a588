"""rooflens: roofline and utilization analysis of neural networks, from Python.

    import rooflens
    m = rooflens.zoo("resnet50")                       # or load("x.onnx"), load(bytes), from_torch(...)
    a = rooflens.analyze(m)                            # per-layer MACs, FLOPs, bytes, AI (FLOP/B)
    p = rooflens.predict(m, device="v100", dtype="fp16", batch="max")
    p.throughput_img_per_s, p.utilization, p.layers.to_pandas()
    rooflens.sss.network("8:16:24:32:64", device="v100")   # NATS-Bench size space
    rooflens.nas.Strategy("reinforce", space, seed=0)      # ask/tell

Errors: ValueError for invalid input (a malformed model, a bad dtype or device name, an arch
outside the space), rooflens.Unsupported (an op or feature rooflens does not handle),
rooflens.Unavailable (missing hardware, plugin or data); both derive from rooflens.Error.
Long calls release the GIL. docs/python.md maps every function to its CLI command.
"""
from __future__ import annotations

import os as _os
import sys as _sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

# The plugins (librooflens-cuda/torch/mpi.so) take the core from the process, so the core's
# symbols must be global (the extension also promotes itself; this covers the first import).
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _core
finally:
    _sys.setdlopenflags(_flags)

from ._records import Analysis, Doctor, Measurement, Prediction, Record, Study, Table  # noqa: E402

__version__ = _core.__version__
Error = _core.Error
Unsupported = _core.Unsupported
Unavailable = _core.Unavailable
Model = _core.Model


def _bundled_data() -> None:
    """Uses the device database and zoo installed with the package (pip), else the source tree's."""
    here = _os.path.dirname(__file__)
    dev = _os.path.join(here, "data", "devices")
    zoo_dir = _os.path.join(here, "models")
    _core.set_data_dirs(dev if _os.path.isdir(dev) else "", zoo_dir if _os.path.isfile(_os.path.join(zoo_dir, "zoo.json")) else "")


_bundled_data()


def set_data_dirs(devices_dir: str = "", models_dir: str = "") -> None:
    """Reads devices from `devices_dir` (*.json, schema rooflens.device/1) and the zoo from
    `models_dir` (zoo.json) from now on; "" keeps the current one (`--devices-dir`)."""
    _core.set_data_dirs(devices_dir, models_dir)


def _shapes(input_shapes: Union[None, str, Sequence[Any], Dict[str, Sequence[int]]]) -> List[str]:
    """`--input-shape` values from Python: "3x299x299", ["NAME:1x3x224x224"], {"x": (1, 3, 224, 224)}."""
    if input_shapes is None:
        return []
    if isinstance(input_shapes, str):
        return [input_shapes]
    if isinstance(input_shapes, dict):
        return [f"{k}:" + "x".join(str(int(d)) for d in v) for k, v in input_shapes.items()]
    out = []
    for s in input_shapes:
        out.append(s if isinstance(s, str) else "x".join(str(int(d)) for d in s))
    return out


def _batch(batch: Union[None, int, str]) -> Optional[int]:
    if batch is None or batch == "max":
        return None
    if isinstance(batch, bool) or not isinstance(batch, int):
        raise ValueError(f"batch {batch!r}: expected a positive integer or 'max'")
    if batch < 1:
        raise ValueError(f"batch {batch}: must be >= 1")
    return batch


def load(source: Union[str, bytes, bytearray, "_os.PathLike[str]"], input_shapes=None, batch: Optional[int] = None,
         dtype: str = "fp16", name: Optional[str] = None) -> Model:
    """A model from an ONNX file path or ONNX bytes, imported once (`rooflens analyze FILE`).

    input_shapes: "3x299x299" (all but the batch of the first input), "NAME:1x3x299x299", a
    list of them, or {"NAME": (1, 3, 299, 299)}. batch: the batch it is analysed at by default
    (None: the file's, a symbolic one read as 1). dtype: fp32, fp16, bf16, int8 or fp8.
    Raises ValueError for a malformed or truncated file, rooflens.Unsupported for unknown ops.
    """
    if batch is not None:
        batch = _batch(batch)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _core.open_bytes(bytes(source), name or "model", _shapes(input_shapes), batch, dtype)
    return _core.open_file(_os.fspath(source), _shapes(input_shapes), batch, dtype)


def zoo_models() -> Dict[str, Dict[str, Any]]:
    """The bundled zoo: name -> {path, acc1_percent, acc5_percent} (`rooflens zoo`)."""
    return _core.zoo_models()


def zoo(name: str, **kwargs) -> Model:
    """A bundled zoo model by name (resnet50, mobilenet_v2, ...); keyword arguments as load()."""
    models = _core.zoo_models()
    if name not in models:
        raise ValueError(f"zoo model '{name}' is not in the zoo; known: {', '.join(sorted(models))}")
    return load(models[name]["path"], **kwargs)


def from_torch(module, example_input, dtype: str = "fp16", batch: Optional[int] = None, opset: int = 13,
               name: Optional[str] = None) -> Model:
    """A PyTorch module exported through torch.onnx into memory (no file), then loaded.

    example_input: a tensor (or tuple of tensors) of the shape the model takes; its first
    dimension is the batch (exported as a dynamic axis, so predict() may rebatch it).
    Raises rooflens.Unavailable when torch is not importable.
    """
    try:
        import io
        import torch
    except ImportError as e:
        raise Unavailable("from_torch needs PyTorch (python3-torch or pip install torch)") from e
    args = example_input if isinstance(example_input, tuple) else (example_input,)
    names = [f"input{i}" for i in range(len(args))]
    buf = io.BytesIO()
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, args, buf, input_names=names, output_names=["output"],
                              dynamic_axes={n: {0: "batch"} for n in names}, opset_version=opset,
                              do_constant_folding=True)
    finally:
        module.train(was_training)
    return load(buf.getvalue(), dtype=dtype, batch=batch, name=name or type(module).__name__.lower())


def _model(model: Union[Model, str, bytes], dtype: Optional[str] = None) -> Model:
    if isinstance(model, Model):
        return model
    if isinstance(model, (str, bytes, bytearray)) or hasattr(model, "__fspath__"):
        if isinstance(model, str) and not _os.path.exists(model) and model in _core.zoo_models():
            return zoo(model, dtype=dtype or "fp16")
        return load(model, dtype=dtype or "fp16")
    raise TypeError(f"expected a rooflens.Model, an ONNX path or bytes, got {type(model).__name__}")


def analyze(model, batch: Optional[int] = None, dtype: Optional[str] = None, fused: bool = True) -> Analysis:
    """Per-layer and total MACs, FLOPs, bytes, params and AI (FLOP/B) (`rooflens analyze`).

    fused: layers as an inference engine fuses them (BN folded, epilogues); False: per node.
    """
    m = _model(model, dtype)
    return Analysis(m.analyze(None if batch is None else _batch(batch), dtype, fused))


def predict(model, device: str = "v100", dtype: str = "fp16", batch: Union[int, str, Sequence[Union[int, str]]] = "max",
            datasheet_peak: bool = False, engine: Optional[str] = None) -> Union[Prediction, List[Prediction]]:
    """Predicted time (s), throughput (img/s), utilization, bounds per layer (`rooflens predict`).

    device: an id or alias (devices()), a device .json file, or "custom:fp16=125e12,bw=900e9,mem=16e9".
    engine: the execution a GPU prediction describes (`--engine`): tensorrt (default),
    rooflens-cuda, pytorch-eager, pytorch-graph, pytorch-compile, or an engine .json file.
    batch: an int, "max" (the largest that fits the device's memory), or a list of them (one
    Prediction each, in order). Raises ValueError for an unknown device or dtype,
    rooflens.Unsupported when the device has no peak for the dtype.
    """
    m = _model(model, dtype)
    many = isinstance(batch, (list, tuple))
    items = list(batch) if many else [batch]
    ints = [_batch(b) for b in items if b != "max"]
    want_max = any(b == "max" for b in items)
    ps = [Prediction(p) for p in m.predict(device, dtype, ints, want_max, datasheet_peak, engine or "")]
    # Back in the order asked for (the library puts max last).
    out, it_int, p_max = [], iter(ps[: len(ints)]), ps[-1] if want_max else None
    for b in items:
        out.append(p_max if b == "max" else next(it_int))
    return out if many else out[0]


def devices() -> Table:
    """The device database (`rooflens devices`): id, name, kind, peaks (FLOP/s), bandwidth (B/s)."""
    d = _core.devices()
    return Table(d if isinstance(d, list) else d.get("devices", []))


def measure(model, backend: str = "onednn", batch: int = 1, threads: int = 0, max_seconds: float = 2.0,
            tune: bool = True, tactic_cache: Optional[str] = None, fixed_threads: bool = False,
            device: Optional[str] = None, host_reference: bool = True,
            reference_max_move: Optional[float] = None, layout: str = "channels-last",
            flush_denormals: bool = True, paired_reference: bool = True, state_wait: float = 0.0) -> Measurement:
    """Runs the model on a backend and times it (`rooflens measure`): onednn (this CPU, fp32),
    cuda (a GPU, the model's dtype; rooflens.Unavailable without one) or reference.

    threads: 0 for all cores. max_seconds: cap on the measured time. tactic_cache: the file
    oneDNN keeps its tactic choices in (None: ROOFLENS_TACTIC_CACHE or the user cache, as the
    CLI; "" for none). On a CPU backend a short trial first checks whether the machine is
    contended; if so, half the threads are tried too, then the batch split into independent
    streams of one thread each, and the fastest is measured (`threads`, `streams` and
    `thread_choice` say which; `contended` and `contention` describe the timed runs).
    fixed_threads: always the asked count as one team, as `measure --fixed-threads`.

    host_reference (CPU): time a fixed GEMM, a DRAM triad and one core's clock before and after
    the runs (`host_reference`: the readings, `move`, `flagged`), as the CLI does unless
    --no-host-reference. reference_max_move: how far (a share) the reference may move during
    the runs before they are flagged and timed again, as --reference-max-move (None: the
    library's default, 0.10). paired_reference: also time one pass of the reference's
    convolutions after every timed run and read the host's drift from those passes as the runs
    saw them (`host_reference`: `paired_kernels_s`, `paired_runs`), as the CLI does unless
    --no-paired-reference. device (CPU): an id or a device file, ideally one from `rooflens probe
    cpu --kernels` on this machine; the measurement is then set against it:
    predicted_img_per_s, drift (the host's speed now over its speed when the device file's
    kernel table was probed), normalized_throughput_img_per_s (measured / drift, comparable
    between calls) and predicted_at_host_state_img_per_s. state_wait (CPU, with such a device
    file): before each block of runs, wait up to this many seconds while the host's dispatch
    reads another state than the kernel table's (`host_reference`: `state_waited_s`,
    `state_wait_ran_out`), as --state-wait; 0 (the default): measure in either.

    layout (onednn): the activations' layout between layers, as `measure --layout`:
    "channels-last" (the default), "blocked" (oneDNN's nChw16c where the channels allow; 3x3
    stride-1 convolutions may then run as Winograd) or "auto" (each layer in the layout it ran
    faster in, chosen by timing once and cached beside the tactics); `layout` in the result
    says what ran. Another name raises ValueError.

    flush_denormals (onednn): compute with denormal floats flushed to zero (the default, as
    TensorFlow and OpenVINO run), or False for IEEE denormals as ONNX Runtime and PyTorch run
    by default, as `measure --keep-denormals`; `denormals_flushed` in the result says which.
    """
    m = _model(model)
    if tactic_cache is None:
        tactic_cache = _tactic_cache_path()
    extra = {} if reference_max_move is None else {"reference_max_move": float(reference_max_move)}
    return Measurement(_core.measure(m, backend, _batch(batch), int(threads), float(max_seconds), bool(tune),
                                     tactic_cache, bool(fixed_threads), device or "", bool(host_reference),
                                     layout=str(layout), flush_denormals=bool(flush_denormals),
                                     paired_reference=bool(paired_reference), state_wait=float(state_wait),
                                     **extra))


def _tactic_cache_path() -> str:
    p = _os.environ.get("ROOFLENS_TACTIC_CACHE")
    if p is not None:
        return "" if p == "off" else p
    base = _os.environ.get("XDG_CACHE_HOME") or (_os.path.join(_os.path.expanduser("~"), ".cache"))
    return _os.path.join(base, "rooflens", "tactics.json")


def fold(model, factor: int = 4, align: int = 0, batch: Optional[int] = None) -> Model:
    """The FoldedCNN transform (`rooflens fold`): `factor` images per input, widths rounded up to
    `align` when not 0. The result is a Model (analyze/predict it). batch: images (a multiple of
    factor; default: factor)."""
    m = _model(model)
    return _core.fold(m, int(factor), int(align), None if batch is None else _batch(batch))


def whatif(model, device: str = "v100", dtype: str = "fp16", batch: Union[int, str] = "max",
           devices: Sequence[str] = (), engine: Optional[str] = None) -> Table:
    """What-if rows (`rooflens whatif`): fold, channel padding, dtypes, batches, other devices;
    each with throughput_img_per_s, speedup, utilization. devices: ids for the device rows
    (empty: every GPU of the database). engine: as for predict()."""
    m = _model(model, dtype)
    return Table(_core.whatif(m, device, dtype, _batch(batch), list(devices), engine or ""))


def doctor(model, device: str = "v100", dtype: str = "fp16", batch: Union[int, str] = "max",
           engine: Optional[str] = None) -> Doctor:
    """The doctor (`rooflens doctor`): which of the nine checklist items apply, with remedies.
    engine: as for predict()."""
    m = _model(model, dtype)
    return Doctor(_core.doctor(m, device, dtype, _batch(batch), engine or ""))


def study(models: Iterable[str] = (), device: Optional[str] = None, dtype: Optional[str] = None,
          batch: Union[None, int, str] = None, zoo: bool = False, fold: Sequence[str] = (), fold_below_cmr: bool = True,
          fold_factor: int = 4, jobs: int = 0, source: str = "predicted", backend: str = "onednn", threads: int = 0,
          max_seconds: float = 3.0, tactic_cache: Optional[str] = None) -> Study:
    """The zoo study (`rooflens study`): models (zoo names or ONNX paths) predicted on a device,
    their throughput-utilization and accuracy frontiers, FoldedCNN what-ifs.

    source="measured" measures each model instead (`study --source measured`): on this CPU
    through `backend` (onednn or reference; fp32, `threads` threads, at most `max_seconds` per
    model), or on the GPU at hand with backend="cuda". Defaults: device v100, dtype fp16 and the
    largest batch that fits when predicted; this-cpu, fp32 and batch 8 when measured (cuda:
    fp16, batch 256). Raises ValueError for an unknown source or backend, or a device of the
    wrong kind; Unsupported for a dtype this CPU cannot measure; Unavailable without the backend.
    """
    measured = source == "measured"
    gpu = backend == "cuda"
    if device is None and measured and gpu:
        raise ValueError("backend='cuda' needs device= naming the GPU at hand's entry (rooflens.devices())")
    if device is None:
        device = "" if measured else "v100"  # "": this-cpu, and the study notes its peaks are the database's
    if dtype is None:
        dtype = "fp32" if measured and not gpu else "fp16"
    if batch is None:
        batch = (256 if gpu else 8) if measured else "max"
    if tactic_cache is None:
        tactic_cache = _tactic_cache_path()
    files, names = [], []
    for x in models:
        (files if _os.path.exists(x) else names).append(x)
    return Study(_core.study(files, names, bool(zoo), device, dtype, _batch(batch), list(fold), fold_below_cmr,
                             int(fold_factor), int(jobs), source, backend, int(threads), float(max_seconds),
                             tactic_cache))


def validate(models: Iterable[str] = (), device: str = "this-cpu", batch: int = 1, repeat: int = 1,
             max_repeat: int = 0, settle: float = 0.05, threads: int = 0, max_seconds: float = 3.0,
             backend: str = "onednn", keep_going: bool = False, host_reference: bool = True,
             progress: bool = False, tactic_cache: Optional[str] = None,
             paired_reference: bool = True, state_repeat: int = 0,
             state_wait: Optional[float] = None) -> Dict[str, Any]:
    """The performance model held to measurements on this CPU (`rooflens validate`): each model
    (bundled zoo names; empty: the whole torchvision zoo) measured on `backend` (onednn or
    reference) and predicted on `device` (ideally the file `rooflens probe cpu --kernels` wrote
    on this machine), in `repeat` alternating rounds (every other one reversed), then more
    rounds up to `max_repeat` for models whose median is not settled within +-`settle`, then up
    to `state_repeat` for models with no run in the host's faster dispatch state. state_wait:
    before each run, wait up to this many seconds for the kernel table's dispatch state, as
    --state-wait (None: the CLI's default, 60; 0: no wait).

    Returns the rooflens.validate/1 document `validate --format json` writes: the summary
    (spearman, median_abs_error, within_10, within_25) against the medians of raw runs and,
    under "normalized", against runs normalised by the host-state reference; per model its
    runs, spread, normalised median and host readings; per layer class. keep_going: a model
    that fails is listed under "failures" instead of raising. progress: a line per run on
    stderr. tactic_cache and paired_reference as measure(). Raises ValueError for an unknown model, device or backend.
    """
    names = list(models) if models else sorted(_core.zoo_models())
    if tactic_cache is None:
        tactic_cache = _tactic_cache_path()
    extra = {} if state_wait is None else {"state_wait": float(state_wait)}
    return _core.validate(names, device, backend, int(batch), int(threads), float(max_seconds), int(repeat),
                          int(max_repeat), float(settle), bool(keep_going), bool(host_reference), bool(progress),
                          tactic_cache, paired_reference=bool(paired_reference),
                          state_repeat=int(state_repeat), **extra)


from . import nas, sss  # noqa: E402

__all__ = ["Analysis", "Doctor", "Error", "Measurement", "Model", "Prediction", "Record", "Study", "Table",
           "Unavailable", "Unsupported", "analyze", "devices", "doctor", "fold", "from_torch", "load", "measure",
           "nas", "predict", "set_data_dirs", "sss", "study", "validate", "whatif", "zoo", "zoo_models"]
