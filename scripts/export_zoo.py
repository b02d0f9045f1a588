#!/usr/bin/python3
"""Regenerate rooflens' bundled model zoo (models/*.onnx + models/zoo.json).

What it does
------------
For every image-classification CNN of torchvision 0.14.1, and its vision
transformers (ViT, Swin, Swin V2, MaxViT; families "vit", "swin", "swin_v2",
"maxvit"), this script

  1. builds the model with weights=None (random init, torch.manual_seed(0);
     googlenet/inception_v3 with aux_logits=False, init_weights=True, i.e. the
     inference graph without the auxiliary classifiers) and calls .eval();
  2. takes the input resolution from the *DEFAULT* weights' transforms
     (get_model_weights(name).DEFAULT.transforms().crop_size) -- reading the
     weights enum needs no download;
  3. takes acc@1 / acc@5 / num_params (and _ops, if the enum has it -- it does
     not in torchvision 0.14, so gflops_published is null) from DEFAULT.meta;
  4. computes reference counts with forward hooks at batch 1 under no_grad:
       conv MACs   = out.numel() * (in_channels / groups) * kh * kw
       linear MACs = out.numel() * in_features
     plus the sum of out.numel() over those Conv2d/Linear modules, the number
     of parameters of the built model (torch_params) and of the parameters
     owned by modules whose forward actually ran (ref_params_executed);
     for the transformers, whose attention and projections call F.linear and
     torch.bmm/matmul rather than nn.Linear modules, the MACs come instead from
     the ATen operators PyTorch executes (a TorchDispatchMode, grad enabled so
     that nn.MultiheadAttention takes its decomposed path): every mm, addmm,
     bmm, baddbmm and convolution counts m*n*k (per batch matrix) or
     out.numel()*(C_in/groups)*prod(kernel).  That is every matrix product,
     attention's Q.K^T and A.V included (counted in full, no masking);
  5. exports ONNX, opset 17, dynamic batch axis, training=PRESERVE,
     do_constant_folding=True.  With the model in eval() mode PRESERVE exports
     inference semantics (BatchNormalization with a single output, no
     training_mode attribute, Dropout removed) but skips torch's eval-only
     "eval peephole" pass, which would fuse BatchNormalization into the
     preceding Conv and change the parameter/op structure.  The script
     verifies: every BatchNorm module that ran appears as exactly one
     BatchNormalization node, no BN node has >1 output or training_mode=1,
     and no Dropout node is left.  Before exporting, every float
     parameter/buffer gets small independent noise (decorrelate_): torch
     1.13 deduplicates initializers *by value* for eval models, and with
     random init all BN gammas (=1), betas/means (=0), vars (=1), zero biases
     ... would be merged into a few initializers behind Identity nodes.  The
     script checks that no initializer feeds an Identity node and that the
     ONNX float initializers hold exactly (executed torch parameters + BN
     running_mean/var) elements;
  6. strips the weight payload: every floating-point initializer keeps its
     name/dims/dtype but its data is cleared and it is marked
     data_location=EXTERNAL with external_data {location="stripped-weights.bin"
     (a file that deliberately does NOT exist), offset, length} -- offsets are
     contiguous, as if the weights had been written back to back.  Integer
     initializers (shapes, Slice bounds, ...) keep their data.  float
     Constant nodes are left as they are (they are scalars/tiny).
     The result is checked with onnx.checker.check_model on the saved path,
     in a temporary directory that holds an empty placeholder
     "stripped-weights.bin" (the checker only stat()s the location; it never
     reads external data; the placeholder is not shipped);
  7. writes models/<name>.onnx and models/zoo.json (schema rooflens.zoo/1,
     entries sorted by name).  Besides the schema fields, entries carry
     "weights" (the DEFAULT weights enum the metadata/resolution came from),
     "ref_params_executed", "onnx_float_params" and, where relevant, "notes".

Requirements: /usr/bin/python3 with the Debian packages python3-torch,
python3-torchvision and python3-onnx (scripts/install-deps.sh --with-fixtures).
They are needed ONLY to REGENERATE the zoo; the rooflens build and tests never
run this script, they only read the committed models/.

Usage:
  OMP_NUM_THREADS=2 /usr/bin/python3 scripts/export_zoo.py --keep-going   # all models
  OMP_NUM_THREADS=2 /usr/bin/python3 scripts/export_zoo.py resnet50 vgg16
      (a subset: those entries are regenerated and merged into the existing
       models/zoo.json; the others are kept)
Output is deterministic for a given torch/torchvision/onnx build.
"""

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time

import warnings

import onnx
import onnx.checker
import torch
import torch.nn as nn
import torchvision
from torchvision import models as tvm

OPSET = 17
STRIPPED_LOCATION = "stripped-weights.bin"
SCHEMA = "rooflens.zoo/1"
GENERATOR = "scripts/export_zoo.py"

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIR = os.path.join(REPO_ROOT, "models")

# name -> family
ZOO = collections.OrderedDict()
for _n in ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152"):
    ZOO[_n] = "resnet"
for _n in ("resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d"):
    ZOO[_n] = "resnext"
for _n in ("wide_resnet50_2", "wide_resnet101_2"):
    ZOO[_n] = "wide_resnet"
for _n in ("vgg11", "vgg13", "vgg16", "vgg19"):
    ZOO[_n] = "vgg"
    ZOO[_n + "_bn"] = "vgg"
for _n in ("densenet121", "densenet161", "densenet169", "densenet201"):
    ZOO[_n] = "densenet"
ZOO["mobilenet_v2"] = "mobilenet_v2"
ZOO["mobilenet_v3_large"] = "mobilenet_v3"
ZOO["mobilenet_v3_small"] = "mobilenet_v3"
for _i in range(8):
    ZOO["efficientnet_b%d" % _i] = "efficientnet"
for _n in ("s", "m", "l"):
    ZOO["efficientnet_v2_" + _n] = "efficientnet_v2"
for _n in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf"):
    ZOO["regnet_x_" + _n] = "regnet_x"
for _n in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf", "128gf"):
    ZOO["regnet_y_" + _n] = "regnet_y"
for _n in ("0_5", "0_75", "1_0", "1_3"):
    ZOO["mnasnet" + _n] = "mnasnet"
for _n in ("x0_5", "x1_0", "x1_5", "x2_0"):
    ZOO["shufflenet_v2_" + _n] = "shufflenet_v2"
ZOO["squeezenet1_0"] = "squeezenet"
ZOO["squeezenet1_1"] = "squeezenet"
ZOO["googlenet"] = "googlenet"
ZOO["inception_v3"] = "inception"
for _n in ("tiny", "small", "base", "large"):
    ZOO["convnext_" + _n] = "convnext"
ZOO["alexnet"] = "alexnet"
# vision transformers (torchvision 0.14.1)
for _n in ("b_16", "b_32", "l_16", "l_32"):
    ZOO["vit_" + _n] = "vit"
for _n in ("t", "s", "b"):
    ZOO["swin_" + _n] = "swin"
    ZOO["swin_v2_" + _n] = "swin_v2"
ZOO["maxvit_t"] = "maxvit"
TRANSFORMER_FAMILIES = {"vit", "swin", "swin_v2", "maxvit"}

BUILD_KWARGS = {
    "googlenet": {"aux_logits": False, "init_weights": True},
    "inception_v3": {"aux_logits": False, "init_weights": True},
}

FLOAT_TYPES = {
    onnx.TensorProto.FLOAT: 4,
    onnx.TensorProto.FLOAT16: 2,
    onnx.TensorProto.BFLOAT16: 2,
    onnx.TensorProto.DOUBLE: 8,
}


def log(msg):
    print(msg, flush=True)


def build_model(name):
    torch.manual_seed(0)
    model = tvm.get_model(name, weights=None, **BUILD_KWARGS.get(name, {}))
    model.eval()
    return model


def weights_info(name):
    w = tvm.get_model_weights(name).DEFAULT
    t = w.transforms()
    crop = t.crop_size
    h = crop[0]
    wd = crop[1] if len(crop) > 1 else crop[0]
    meta = w.meta
    metrics = meta["_metrics"]["ImageNet-1K"]
    ops = meta.get("_ops")
    return {
        "weights": "%s.%s" % (type(w).__name__, w.name),
        "input_shape": [3, int(h), int(wd)],
        "acc1": metrics["acc@1"],
        "acc5": metrics["acc@5"],
        "num_params": int(meta["num_params"]),
        "gflops_published": (float(ops) if ops is not None else None),
    }


def reference_counts(model, x):
    """Hook-based MAC / output-element / parameter counts at batch 1."""
    macs = [0]
    outs = [0]
    ran = []  # modules whose forward executed, in order
    handles = []

    def conv_hook(m, inp, out):
        kh, kw = m.kernel_size
        macs[0] += out.numel() * (m.in_channels // m.groups) * kh * kw
        outs[0] += out.numel()

    def linear_hook(m, inp, out):
        macs[0] += out.numel() * m.in_features
        outs[0] += out.numel()

    def ran_hook(m, inp, out):
        ran.append(m)

    for m in model.modules():
        handles.append(m.register_forward_hook(ran_hook))
        if isinstance(m, nn.Conv2d):
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
    try:
        with torch.no_grad():
            y = model(x)
    finally:
        for h in handles:
            h.remove()

    seen_mod = set()
    seen_par = set()
    executed_params = 0
    bn_executed = 0
    bn_stats = 0  # running_mean + running_var elements: ONNX initializers, not torch parameters
    for m in ran:
        if id(m) in seen_mod:
            continue
        seen_mod.add(id(m))
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            bn_executed += 1
            bn_stats += m.running_mean.numel() + m.running_var.numel()
        for p in m.parameters(recurse=False):
            if id(p) not in seen_par:
                seen_par.add(id(p))
                executed_params += p.numel()
    torch_params = sum(p.numel() for p in model.parameters())
    return {
        "ref_macs": int(macs[0]),
        "ref_output_elements": int(outs[0]),
        "torch_params": int(torch_params),
        "ref_params_executed": int(executed_params),
        "bn_executed": bn_executed,
        "bn_stats": int(bn_stats),
        "out_shape": list(y.shape),
    }


def aten_counts(model, x):
    """Reference counts for the transformers, from the ATen operators PyTorch executes at
    batch 1 (a TorchDispatchMode; grad on, so that nn.MultiheadAttention decomposes).

    A tensor is *input-dependent* if it derives from the image x. Then:
      macs    = every mm/addmm/bmm/baddbmm (m*n*k per batch matrix) and convolution
                (out.numel()*C_in/groups*prod(kernel)) with an input-dependent operand:
                attention's Q.K^T and A.V included; products of parameters alone (Swin V2's
                position-bias MLP on its coordinate table) are computed once when the model
                loads, not per inference (torch's exporter leaves that MLP in the graph, and
                rooflens folds it at load: docs/cost-model.md), so they do not count;
      outputs = the output elements of those products;
      stored  = the elements of the float tensors the input-dependent computation reads that
                do not depend on the input: parameters and buffers read directly, and tensors
                computed from parameters alone (a relative-position-bias table gathered by its
                index, Swin V2's MLP output), each counted once, one-element tensors and
                BatchNorm running statistics excluded. That is what an inference engine stores
                once parameter-only subgraphs are folded (by torch's exporter, or at load).
    """
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten
    aten = torch.ops.aten
    total = [0, 0]
    keep = []  # every tensor seen stays alive, so that ids are not reused
    dep = set()  # ids of input-dependent tensors
    pderived = {}  # id -> tensor: parameters, buffers and tensors computed from them alone
    stored = {}  # id -> numel
    bn_stats = set()
    for n, b in model.named_buffers():
        if n.endswith(("running_mean", "running_var")):
            bn_stats.add(id(b))
    for t in list(model.parameters()) + list(model.buffers()):
        pderived[id(t)] = t
        keep.append(t)
    dep.add(id(x))

    def mm(a, b):
        return a.shape[-2] * a.shape[-1] * b.shape[-1] * (a.numel() // (a.shape[-2] * a.shape[-1]))

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            ins = [t for t in tree_flatten((args, kwargs or {}))[0] if isinstance(t, torch.Tensor)]
            outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
            keep.extend(ins)
            keep.extend(outs)
            is_dep = any(id(t) in dep for t in ins)
            p = func.overloadpacket
            if is_dep:
                for t in outs:
                    dep.add(id(t))
                for t in ins:
                    if (id(t) not in dep and id(t) in pderived and id(t) not in bn_stats
                            and t.is_floating_point() and t.numel() > 1):
                        stored[id(t)] = t.numel()
                if p in (aten.mm, aten.bmm, aten.addmm, aten.baddbmm, aten.convolution, aten._convolution):
                    total[1] += out.numel()
                if p in (aten.mm, aten.bmm):
                    total[0] += mm(args[0], args[1])
                elif p in (aten.addmm, aten.baddbmm):
                    total[0] += mm(args[1], args[2])
                elif p in (aten.convolution, aten._convolution):
                    k = 1
                    for d in args[1].shape[1:]:
                        k *= d
                    total[0] += out.numel() * k
            elif any(id(t) in pderived for t in ins):
                for t in outs:
                    pderived[id(t)] = t
            if p in (aten._native_multi_head_attention, aten.matmul, aten.einsum, aten.linear):
                raise RuntimeError("aten_counts: %s reached dispatch undecomposed" % p)
            return out

    with torch.enable_grad(), Count():
        model(x)
    return int(total[0]), int(total[1]), int(sum(stored.values()))


def decorrelate_(model):
    """Give every float parameter/buffer independent U(0, 0.01) noise.

    torch 1.13's exporter deduplicates initializers *by value* when the model
    is not training (_jit_pass_onnx_deduplicate_initializers).  With random
    init, all BatchNorm gammas are 1, betas/running_means 0, running_vars 1,
    zero-initialised biases are 0, ... so dozens of distinct parameters would
    collapse into a handful of initializers fed through Identity nodes -- a
    graph no trained model ever produces.  The noise makes the tensors
    distinct (as trained weights are); values are irrelevant because the
    payload is stripped anyway, and running_var stays positive.  Runs after
    the reference counts, which do not depend on values.
    """
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for _, t in sorted(model.state_dict(keep_vars=True).items()):
            if t.is_floating_point():
                t.add_(torch.rand(t.shape, generator=g, dtype=t.dtype) * 0.01)


def patch_swin_v2_for_export():
    """torchvision 0.14.1's shifted_window_attention zeroes Swin V2's key bias in place
    (qkv_bias[length:2*length].zero_()), which torch 1.13 cannot export (aten::zero_). The
    same values written with torch.cat export, and constant folding turns them into the qkv
    bias initializer: parameters and MACs are unchanged. Export only; counts run unpatched."""
    import inspect
    from torchvision.models import swin_transformer as st
    src = inspect.getsource(st.shifted_window_attention)
    old = ("        qkv_bias = qkv_bias.clone()\n"
           "        length = qkv_bias.numel() // 3\n"
           "        qkv_bias[length : 2 * length].zero_()\n")
    new = ("        length = qkv_bias.numel() // 3\n"
           "        qkv_bias = torch.cat([qkv_bias[:length], torch.zeros_like(qkv_bias[length : 2 * length]),"
           " qkv_bias[2 * length :]])\n")
    if old not in src:
        raise RuntimeError("swin_transformer.shifted_window_attention changed; cannot patch zero_()")
    ns = dict(st.__dict__)
    exec(compile(src.replace(old, new), st.__file__, "exec"), ns)
    original = st.shifted_window_attention
    st.shifted_window_attention = ns["shifted_window_attention"]
    return lambda: setattr(st, "shifted_window_attention", original)


def export_onnx(model, x, workdir, transformer=False):
    path = os.path.join(workdir, "export.onnx")
    # nn.MultiheadAttention's fast path (aten::_native_multi_head_attention, which torch 1.13
    # cannot export) is taken only with autograd off: transformers export with it on.
    grad = torch.enable_grad() if transformer else torch.no_grad()
    restore = patch_swin_v2_for_export() if transformer else None
    with grad:
        torch.onnx.export(
            model,
            x,
            path,
            opset_version=OPSET,
            input_names=["input"],
            output_names=["logits"],
            dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
            training=torch.onnx.TrainingMode.PRESERVE,
            do_constant_folding=True,
        )
    if restore:
        restore()
    # Large models (>2 GB) are exported by torch with external data files in
    # workdir; we never need the payload, so don't load it.
    return onnx.load(path, load_external_data=False)


def verify_graph(name, m, bn_executed):
    counts = collections.Counter(n.op_type for n in m.graph.node)
    for n in m.graph.node:
        if n.op_type == "BatchNormalization":
            if len(n.output) != 1:
                raise RuntimeError("%s: BatchNormalization %s has %d outputs (training mode)"
                                   % (name, n.name, len(n.output)))
            for a in n.attribute:
                if a.name == "training_mode" and a.i != 0:
                    raise RuntimeError("%s: BatchNormalization %s has training_mode=%d"
                                       % (name, n.name, a.i))
        if n.op_type == "Dropout" and ZOO[name] not in TRANSFORMER_FAMILIES:
            # Swin's F.dropout(attn, p=0.0, training=False) exports as a Dropout node (an
            # identity at inference, a view for rooflens); the CNNs have none.
            raise RuntimeError("%s: Dropout node %s left in eval export" % (name, n.name))
    if counts.get("BatchNormalization", 0) != bn_executed:
        raise RuntimeError("%s: %d BatchNorm modules ran but ONNX has %d BatchNormalization nodes"
                           % (name, bn_executed, counts.get("BatchNormalization", 0)))
    if [i.name for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}] != ["input"]:
        raise RuntimeError("%s: unexpected graph inputs" % name)
    # Float initializers only: integer buffers (Swin V2's relative_position_index, equal in
    # every block of a stage) may be shared; rooflens reads them through the Identity.
    inits = {t.name for t in m.graph.initializer if t.data_type in FLOAT_TYPES}
    for n in m.graph.node:
        if n.op_type == "Identity" and n.input[0] in inits:
            raise RuntimeError("%s: initializer %s was deduplicated into %s via Identity"
                               % (name, n.input[0], n.output[0]))
    if [o.name for o in m.graph.output] != ["logits"]:
        raise RuntimeError("%s: unexpected graph outputs" % name)
    return counts


def strip_weights(m):
    """Clear float initializer payloads, mark them EXTERNAL in a non-existent file."""
    offset = 0
    stripped = 0
    for t in m.graph.initializer:
        if t.data_type not in FLOAT_TYPES:
            if t.data_location == onnx.TensorProto.EXTERNAL:
                raise RuntimeError("integer initializer %s was exported as external data" % t.name)
            continue
        numel = 1
        for d in t.dims:
            numel *= d
        nbytes = numel * FLOAT_TYPES[t.data_type]
        t.ClearField("raw_data")
        t.ClearField("float_data")
        t.ClearField("double_data")
        t.ClearField("int32_data")  # float16/bfloat16 may be stored here
        del t.external_data[:]
        t.data_location = onnx.TensorProto.EXTERNAL
        for k, v in (("location", STRIPPED_LOCATION), ("offset", str(offset)), ("length", str(nbytes))):
            e = t.external_data.add()
            e.key = k
            e.value = v
        offset += nbytes
        stripped += numel
    return stripped, offset


def onnx_float_params(m):
    n = 0
    for t in m.graph.initializer:
        if t.data_type in FLOAT_TYPES:
            k = 1
            for d in t.dims:
                k *= d
            n += k
    return n


def check_stripped(data):
    """onnx.checker on the serialized stripped model; the checker stat()s the
    external location relative to the model dir, so give it an empty
    placeholder in a scratch directory."""
    d = tempfile.mkdtemp(prefix="rooflens_check_")
    try:
        p = os.path.join(d, "model.onnx")
        with open(p, "wb") as f:
            f.write(data)
        open(os.path.join(d, STRIPPED_LOCATION), "wb").close()
        onnx.checker.check_model(p, full_check=False)
    finally:
        shutil.rmtree(d)


def max_float_constant(m):
    best = 0
    for n in m.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value" and a.t.data_type in FLOAT_TYPES:
                    k = 1
                    for dd in a.t.dims:
                        k *= dd
                    best = max(best, k)
    return best


def export_with_weights(name, out_dir):
    """Steps 1, 5 of the above for one model, weights KEPT: out_dir/<name>.onnx, for peers
    that need real initializer data (bench/peer_ort.sh). models/ and zoo.json are untouched."""
    t0 = time.time()
    info = weights_info(name)
    model = build_model(name)
    torch.manual_seed(0)
    x = torch.randn(1, *info["input_shape"])
    decorrelate_(model)
    workdir = tempfile.mkdtemp(prefix="rooflens_export_%s_" % name)
    try:
        m = export_onnx(model, x, workdir, transformer=ZOO[name] in TRANSFORMER_FAMILIES)
    finally:
        shutil.rmtree(workdir)
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, name + ".onnx.tmp")
    with open(tmp, "wb") as f:
        f.write(m.SerializeToString())
    os.replace(tmp, os.path.join(out_dir, name + ".onnx"))  # atomically: no partial file
    log("%-20s with weights -> %s (%.1f s)" % (name, out_dir, time.time() - t0))


def process(name):
    t0 = time.time()
    family = ZOO[name]
    info = weights_info(name)
    model = build_model(name)
    torch.manual_seed(0)
    x = torch.randn(1, *info["input_shape"])
    ref = reference_counts(model, x)
    if family in TRANSFORMER_FAMILIES:
        ref["ref_macs_linear_modules"] = ref["ref_macs"]
        ref["ref_output_elements_linear_modules"] = ref["ref_output_elements"]
        ref["ref_macs"], ref["ref_output_elements"], ref["ref_stored_params"] = aten_counts(model, x)
        # attention modules call F.linear on their children's weights, so "modules whose
        # forward ran" misses them; every parameter of these models is used
        ref["ref_params_executed"] = ref["torch_params"]
    if ref["out_shape"] != [1, 1000]:
        raise RuntimeError("%s: unexpected output shape %s" % (name, ref["out_shape"]))

    decorrelate_(model)
    workdir = tempfile.mkdtemp(prefix="rooflens_export_%s_" % name)
    try:
        m = export_onnx(model, x, workdir, transformer=family in TRANSFORMER_FAMILIES)
    finally:
        shutil.rmtree(workdir)
    del model

    counts = verify_graph(name, m, ref["bn_executed"])
    onnx_params = onnx_float_params(m)
    strip_weights(m)
    data = m.SerializeToString()
    check_stripped(data)
    out_path = os.path.join(MODELS_DIR, name + ".onnx")
    with open(out_path, "wb") as f:
        f.write(data)

    entry = {
        "name": name,
        "family": family,
        "file": name + ".onnx",
        "input_shape": info["input_shape"],
        "weights": info["weights"],
        "acc1": info["acc1"],
        "acc5": info["acc5"],
        "num_params": info["num_params"],
        "torch_params": ref["torch_params"],
        "ref_params_executed": ref["ref_params_executed"],
        "onnx_float_params": int(onnx_params),
        "gflops_published": info["gflops_published"],
        "ref_macs": ref["ref_macs"],
        "ref_output_elements": ref["ref_output_elements"],
        "onnx_ops": sorted(counts.keys()),
    }
    notes = []
    if info["num_params"] != ref["torch_params"]:
        diff = info["num_params"] - ref["torch_params"]
        if name == "inception_v3":
            notes.append("torchvision num_params (%d) includes the AuxLogits branch (%d parameters), "
                         "which is not part of the inference graph; the model is built with "
                         "aux_logits=False (torch_params=%d)."
                         % (info["num_params"], diff, ref["torch_params"]))
        else:
            notes.append("torchvision num_params (%d) differs from the built model's parameter "
                         "count (%d) by %d." % (info["num_params"], ref["torch_params"], diff))
    if name in ("googlenet", "inception_v3"):
        notes.append("Built with aux_logits=False and the default transform_input=False; "
                     "torchvision enables transform_input when it loads the pretrained weights, "
                     "which would prepend a per-channel input affine (Slice/Mul/Add/Concat) "
                     "that is not in this graph.")
    if ref["ref_params_executed"] != ref["torch_params"]:
        notes.append("%d parameters belong to modules that do not run in the forward pass."
                     % (ref["torch_params"] - ref["ref_params_executed"]))
    if family in TRANSFORMER_FAMILIES:
        entry["ref_macs_rule"] = ("aten: every mm/addmm/bmm/baddbmm/convolution PyTorch executes on "
                                  "input-dependent operands (scripts/export_zoo.py aten_counts)")
        entry["ref_stored_params"] = ref["ref_stored_params"]
        if ref["ref_stored_params"] != ref["torch_params"]:
            v2 = ("; Swin V2's key bias, zeroed, which the exporter folds too, and its "
                  "position-bias MLP on the coordinate table and clamped, exponentiated logit "
                  "scale, which the exporter leaves in the graph and rooflens computes at load"
                  if family == "swin_v2" else "")
            notes.append("Parameter-only subgraphs are computed before inference (the relative "
                         "position bias gathered from its table, which the exporter folds%s): "
                         "inference stores %d float elements where the model has %d parameters "
                         "(ref_stored_params, counted in PyTorch)."
                         % (v2, ref["ref_stored_params"], ref["torch_params"]))
        if onnx_params != ref["ref_params_executed"] + ref["bn_stats"]:
            notes.append("ONNX float initializers hold %d elements, executed parameters + "
                         "BatchNorm statistics %d (float buffers such as position tables, or "
                         "parameters folded by the exporter)."
                         % (onnx_params, ref["ref_params_executed"] + ref["bn_stats"]))
    elif onnx_params != ref["ref_params_executed"] + ref["bn_stats"]:
        raise RuntimeError("%s: ONNX float initializers hold %d elements, expected %d executed "
                           "parameters + %d BatchNorm running_mean/var elements"
                           % (name, onnx_params, ref["ref_params_executed"], ref["bn_stats"]))
    if notes:
        entry["notes"] = " ".join(notes)

    dt = time.time() - t0
    log("%-20s %7.1f s  %9d bytes  in=%s  GMACs=%.3f  params=%d  bn=%d  maxConst=%d"
        % (name, dt, len(data), "x".join(map(str, info["input_shape"])), ref["ref_macs"] / 1e9,
           ref["torch_params"], ref["bn_executed"], max_float_constant(m)))
    return entry


def load_zoo(path):
    if os.path.exists(path):
        with open(path) as f:
            z = json.load(f)
        return {e["name"]: e for e in z.get("models", [])}
    return {}


def write_zoo(path, entries):
    z = collections.OrderedDict()
    z["schema"] = SCHEMA
    z["generator"] = GENERATOR
    z["torch"] = torch.__version__
    z["torchvision"] = torchvision.__version__
    z["onnx"] = onnx.__version__
    z["opset"] = OPSET
    z["models"] = [entries[k] for k in sorted(entries)]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(z, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def op_summary(entries):
    users = collections.defaultdict(list)
    for k in sorted(entries):
        for op in entries[k]["onnx_ops"]:
            users[op].append(k)
    log("\nONNX op-type union (%d op types):" % len(users))
    for op in sorted(users):
        log("  %-22s %3d  %s" % (op, len(users[op]), ", ".join(users[op])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="models to regenerate (default: all)")
    ap.add_argument("--keep-going", action="store_true",
                    help="continue with the next model after a failure")
    ap.add_argument("--with-weights", metavar="DIR",
                    help="export the named models WITH their (random) weights to DIR instead of "
                         "regenerating models/ (for peers that run them: bench/peer_ort.sh)")
    args = ap.parse_args()

    unknown = [n for n in args.names if n not in ZOO]
    if unknown:
        ap.error("unknown model(s): %s" % ", ".join(unknown))
    if args.with_weights:
        if not args.names:
            ap.error("--with-weights: name the models to export")
        warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        for name in args.names:
            export_with_weights(name, args.with_weights)
        return
    available = set(tvm.list_models(module=tvm))
    missing = [n for n in ZOO if n not in available]
    if missing:
        sys.exit("torchvision %s lacks: %s" % (torchvision.__version__, ", ".join(missing)))

    # The exporter warns about constant folding with PRESERVE "when model is in
    # training mode"; our models are in eval(), so it does not apply.
    warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    os.makedirs(MODELS_DIR, exist_ok=True)
    zoo_path = os.path.join(MODELS_DIR, "zoo.json")
    names = args.names or list(ZOO)
    # full regeneration starts from scratch; a subset merges into what exists
    entries = load_zoo(zoo_path) if args.names else {}
    log("torch %s, torchvision %s, onnx %s, opset %d, %d model(s)"
        % (torch.__version__, torchvision.__version__, onnx.__version__, OPSET, len(names)))
    failures = []
    t_all = time.time()
    for name in names:
        try:
            entries[name] = process(name)
        except Exception as e:  # noqa: BLE001
            failures.append((name, repr(e)))
            log("%-20s FAILED: %r" % (name, e))
            if not args.keep_going:
                break
        write_zoo(zoo_path, entries)  # after every model: partial progress survives
    log("\ntotal %.1f s" % (time.time() - t_all))
    op_summary(entries)
    diffs = [(k, e["num_params"], e["torch_params"]) for k, e in sorted(entries.items())
             if e["num_params"] != e["torch_params"]]
    if diffs:
        log("\nnum_params (torchvision meta) != torch_params (built model):")
        for k, a, b in diffs:
            log("  %-20s %12d %12d  diff %d" % (k, a, b, a - b))
    if failures:
        log("\nFAILURES:")
        for n, e in failures:
            log("  %s: %s" % (n, e))
        sys.exit(1)


if __name__ == "__main__":
    main()
