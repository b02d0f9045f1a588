#!/usr/bin/env python3
"""Regenerate rooflens' second bundled zoo: timm's image-classification CNNs
(models/timm/*.onnx + models/timm/zoo.json).

The seed study (Kosaian & Phanishayee 2022) measured 103 CNNs of timm 0.5 that
compiled with TensorRT; this script exports the same families from timm 0.5.4
(pinned in scripts/venv-requirements.txt), the last 0.5 release, the way
scripts/export_zoo.py exports torchvision's CNNs:

  1. builds each model with pretrained=False (random init, torch.manual_seed(0)),
     .eval(); TResNet's InplaceAbn layers (which need the CUDA-only inplace_abn
     package to run at all) are replaced by the BatchNorm2d + LeakyReLU(0.01)
     (or Identity) they compute at inference, with the same parameters and
     running statistics; nothing else is changed;
  2. takes acc@1, acc@5, the image size and the parameter count from timm's
     published ImageNet table (results/results-imagenet.csv of
     huggingface/pytorch-image-models at the commit named in RESULTS, a copy
     of the rows used in models/timm/results-imagenet.csv).  That table names
     weights as <architecture>.<tag>; each model here names the row of the
     weights timm 0.5.4 loaded by default (the file of its default_cfg url),
     so the accuracy is that of the network the paper's timm version shipped.
     The input resolution is the table's img_size (the size that accuracy was
     measured at);
  3. reference counts at batch 1 under no_grad, counted at the functional
     level so that convs run through F.conv2d directly (timm's Conv2dSame,
     BlurPool2d's fixed blur filter) count too:
       conv MACs   = out.numel() * (in_channels / groups) * prod(kernel)
                     (F.conv1d and F.conv2d: ECA's 1-D conv included)
       linear MACs = out.numel() * in_features                (F.linear)
     plus the sum of out.numel() of those calls, the built model's parameter
     count (torch_params) and the parameters of modules whose forward ran
     (ref_params_executed), as in export_zoo.py;
  4. exports ONNX (opset 17, dynamic batch, training=PRESERVE, constant
     folding), verifies it, strips the float weight payload and checks the
     stripped file with onnx.checker -- all with export_zoo.py's own functions;
     Pad amounts the graph computes from the input's size (timm's SAME padding,
     BlurPool2d's reflect padding) are folded to constants first (ONNX Runtime
     evaluates them once; they do not depend on the batch);
  5. writes models/timm/<name>.onnx and models/timm/zoo.json (schema
     rooflens.zoo/1, plus "timm", "results_csv" and "results_commit").
     A model that fails to build or export is listed in zoo.json under
     "failed" with the reason, never dropped silently.

  6. with --check-import build/rooflens (after exporting): every model through
     `rooflens analyze`; those rooflens cannot import move to "failed" with the
     error line (stage "rooflens import") and their files are removed.

Usage (CPU-heavy: run under /work/bin/rllock or with few threads):
  OMP_NUM_THREADS=2 /opt/rooflens-venv/bin/python scripts/export_timm_zoo.py --keep-going
  OMP_NUM_THREADS=2 /opt/rooflens-venv/bin/python scripts/export_timm_zoo.py tresnet_m dpn68
  /opt/rooflens-venv/bin/python scripts/export_timm_zoo.py --check-import build/rooflens
"""

import argparse
import collections
import csv
import json
import os
import sys
import tempfile
import shutil
import time
import warnings

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

import timm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_zoo as tv  # noqa: E402  (strip_weights, check_stripped, export_onnx, ...)

TIMM_VERSION = "0.5.4"
SCHEMA = "rooflens.zoo/1"
GENERATOR = "scripts/export_timm_zoo.py"
RESULTS = {
    "repo": "huggingface/pytorch-image-models",
    "path": "results/results-imagenet.csv",
    "commit": "0173a139a2c66db3a41ebfe1d8ac4fb02483642e",
}
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(REPO_ROOT, "models", "timm")
RESULTS_COPY = os.path.join(OUT_DIR, "results-imagenet.csv")

# timm 0.5.4 name -> (family, row of results-imagenet.csv for its default weights)
ZOO = collections.OrderedDict()


def _add(family, pairs):
    for name, row in pairs:
        ZOO[name] = (family, row)


_add("tresnet", [("tresnet_m", "tresnet_m.miil_in21k_ft_in1k"), ("tresnet_l", "tresnet_l.miil_in1k"),
                 ("tresnet_xl", "tresnet_xl.miil_in1k"), ("tresnet_m_448", "tresnet_m.miil_in1k_448"),])
_add("resnet", [("resnet18", "resnet18.tv_in1k"), ("resnet26d", "resnet26d.bt_in1k"), ("resnet34", "resnet34.bt_in1k"),
                ("resnet34d", "resnet34d.ra2_in1k"), ("resnet50", "resnet50.a1_in1k"),
                ("resnet50d", "resnet50d.ra2_in1k"), ("resnet101", "resnet101.a1h_in1k"),
                ("resnet101d", "resnet101d.ra2_in1k"), ("resnet152", "resnet152.a1h_in1k"), ("resnetblur50", "resnetblur50.bt_in1k"),
                ("resnetrs50", "resnetrs50.tf_in1k"),])
_add("wide_resnet", [("wide_resnet50_2", "wide_resnet50_2.racm_in1k"),])
_add("resnext", [("resnext50_32x4d", "resnext50_32x4d.a1h_in1k"), ("resnext50d_32x4d", "resnext50d_32x4d.bt_in1k"),
                 ("ig_resnext101_32x8d", "resnext101_32x8d.fb_wsl_ig1b_ft_in1k"),])
_add("senet", [("seresnet50", "seresnet50.ra2_in1k"), ("seresnext26d_32x4d", "seresnext26d_32x4d.bt_in1k"),
               ("seresnext26t_32x4d", "seresnext26t_32x4d.bt_in1k"),
               ("seresnext50_32x4d", "seresnext50_32x4d.racm_in1k"),
               ("legacy_seresnet18", "legacy_seresnet18.in1k"),
               ("legacy_seresnet50", "legacy_seresnet50.in1k"),])
_add("resnest", [("resnest14d", "resnest14d.gluon_in1k"), ("resnest26d", "resnest26d.gluon_in1k"),
                 ("resnest50d", "resnest50d.in1k"), ("resnest50d_4s2x40d", "resnest50d_4s2x40d.in1k"),
                 ("resnest101e", "resnest101e.in1k")])
_add("sknet", [("skresnet18", "skresnet18.ra_in1k"), ("skresnet34", "skresnet34.ra_in1k"),
               ("skresnext50_32x4d", "skresnext50_32x4d.ra_in1k")])
_add("ecaresnet", [("ecaresnet26t", "ecaresnet26t.ra2_in1k"), ("ecaresnet50d", "ecaresnet50d.miil_in1k"),
                   ("ecaresnet50t", "ecaresnet50t.ra2_in1k"), ("ecaresnet101d", "ecaresnet101d.miil_in1k"),
                   ("ecaresnetlight", "ecaresnetlight.miil_in1k"),
                   ("ecaresnet50d_pruned", "ecaresnet50d_pruned.miil_in1k"),
                   ("ecaresnet101d_pruned", "ecaresnet101d_pruned.miil_in1k")])
_add("res2net", [("res2net50_26w_4s", "res2net50_26w_4s.in1k"), ("res2net50_14w_8s", "res2net50_14w_8s.in1k"),
                 ("res2net101_26w_4s", "res2net101_26w_4s.in1k"), ("res2next50", "res2next50.in1k")])
_add("efficientnet", [("efficientnet_b0", "efficientnet_b0.ra_in1k"), ("efficientnet_b1", "efficientnet_b1.ft_in1k"),
                      ("efficientnet_b2", "efficientnet_b2.ra_in1k"), ("efficientnet_b3", "efficientnet_b3.ra2_in1k"),
                      ("efficientnet_b4", "efficientnet_b4.ra2_in1k"), ("efficientnet_es", "efficientnet_es.ra_in1k"), ("efficientnet_el", "efficientnet_el.ra_in1k"),
                      ("efficientnet_lite0", "efficientnet_lite0.ra_in1k"),
                      ("tf_efficientnet_b0", "tf_efficientnet_b0.aa_in1k"),
                      ("tf_efficientnet_b1", "tf_efficientnet_b1.aa_in1k"),
                      ("tf_efficientnet_b2", "tf_efficientnet_b2.aa_in1k"),
                      ("tf_efficientnet_b3", "tf_efficientnet_b3.aa_in1k"),
                      ("tf_efficientnet_b4", "tf_efficientnet_b4.aa_in1k"),
                      ("tf_efficientnet_lite0", "tf_efficientnet_lite0.in1k"),
                      ("tf_efficientnet_lite4", "tf_efficientnet_lite4.in1k"),])
_add("efficientnet_v2", [("efficientnetv2_rw_t", "efficientnetv2_rw_t.ra2_in1k"),
                         ("efficientnetv2_rw_s", "efficientnetv2_rw_s.ra2_in1k"),
                         ("tf_efficientnetv2_b0", "tf_efficientnetv2_b0.in1k"),
                         ("tf_efficientnetv2_b1", "tf_efficientnetv2_b1.in1k"),
                         ("tf_efficientnetv2_b2", "tf_efficientnetv2_b2.in1k"),
                         ("tf_efficientnetv2_b3", "tf_efficientnetv2_b3.in1k"),
                         ("tf_efficientnetv2_s", "tf_efficientnetv2_s.in1k")])
_add("mixnet", [("mixnet_s", "mixnet_s.ft_in1k"), ("mixnet_m", "mixnet_m.ft_in1k"), ("mixnet_l", "mixnet_l.ft_in1k"),
                ("mixnet_xl", "mixnet_xl.ra_in1k"), ("tf_mixnet_s", "tf_mixnet_s.in1k"),])
_add("mnasnet", [("mnasnet_100", "mnasnet_100.rmsp_in1k"), ("semnasnet_100", "semnasnet_100.rmsp_in1k"), ("mnasnet_small", "mnasnet_small.lamb_in1k"),
                 ("spnasnet_100", "spnasnet_100.rmsp_in1k")])
_add("fbnet", [("fbnetc_100", "fbnetc_100.rmsp_in1k"), ("fbnetv3_b", "fbnetv3_b.ra2_in1k"), ("fbnetv3_g", "fbnetv3_g.ra2_in1k")])
_add("mobilenet_v3", [("mobilenetv3_large_100", "mobilenetv3_large_100.ra_in1k"),
                      ("mobilenetv3_rw", "mobilenetv3_rw.rmsp_in1k"),
                      ("tf_mobilenetv3_large_100", "tf_mobilenetv3_large_100.in1k"),
                      ("tf_mobilenetv3_large_075", "tf_mobilenetv3_large_075.in1k"),
                      ("tf_mobilenetv3_small_100", "tf_mobilenetv3_small_100.in1k")])
_add("mobilenet_v2", [("mobilenetv2_050", "mobilenetv2_050.lamb_in1k"), ("mobilenetv2_100", "mobilenetv2_100.ra_in1k"),
                      ("mobilenetv2_120d", "mobilenetv2_120d.ra_in1k"),
                      ("mobilenetv2_140", "mobilenetv2_140.ra_in1k")])
_add("rexnet", [("rexnet_100", "rexnet_100.nav_in1k"),
                ("rexnet_150", "rexnet_150.nav_in1k"), ("rexnet_200", "rexnet_200.nav_in1k")])
_add("ghostnet", [("ghostnet_100", "ghostnet_100.in1k")])
_add("lcnet", [("lcnet_050", "lcnet_050.ra2_in1k"),
               ("lcnet_100", "lcnet_100.ra2_in1k")])
_add("tinynet", [("tinynet_a", "tinynet_a.in1k"), ("tinynet_b", "tinynet_b.in1k"), ("tinynet_e", "tinynet_e.in1k")])
_add("hardcorenas", [("hardcorenas_%s" % c, "hardcorenas_%s.miil_green_in1k" % c) for c in "abcdef"])
_add("regnet_x", [("regnetx_%s" % s, "regnetx_%s.pycls_in1k" % s)
                  for s in ("002", "006", "008", "016", "032", "080", "160", "320")])
_add("regnet_y", [("regnety_%s" % s, "regnety_%s.%s_in1k" % (s, {"032": "ra", "160": "deit"}.get(s, "pycls")))
                  for s in ("002", "006", "008", "016", "032", "080", "160", "320")])
_add("dpn", [("dpn68", "dpn68.mx_in1k"), ("dpn68b", "dpn68b.ra_in1k"), ("dpn92", "dpn92.mx_in1k"), ("dpn131", "dpn131.mx_in1k")])
_add("dla", [(n, n + ".in1k") for n in ("dla34", "dla60", "dla60x", "dla102", "dla102x", "dla60_res2net")])
_add("hrnet", [(n, n + ".ms_in1k") for n in ("hrnet_w18_small", "hrnet_w18_small_v2", "hrnet_w18",
                                             "hrnet_w32", "hrnet_w48")])
_add("cspnet", [("cspresnet50", "cspresnet50.ra_in1k"), ("cspresnext50", "cspresnext50.ra_in1k"),
                ("cspdarknet53", "cspdarknet53.ra_in1k")])
_add("xception", [("xception", "legacy_xception.tf_in1k"), ("xception41", "xception41.tf_in1k"),
                  ("xception65", "xception65.tf_in1k"),])
_add("inception", [("inception_v3", "inception_v3.tv_in1k"), ("tf_inception_v3", "inception_v3.tf_in1k"), ("inception_v4", "inception_v4.tf_in1k"),
                   ("inception_resnet_v2", "inception_resnet_v2.tf_in1k")])
_add("vovnet", [("ese_vovnet19b_dw", "ese_vovnet19b_dw.ra_in1k"), ("ese_vovnet39b", "ese_vovnet39b.ra_in1k")])
_add("selecsls", [("selecsls42b", "SelecSls42b.in1k"), ("selecsls60", "SelecSls60.in1k"),
                  ("selecsls60b", "SelecSls60b.in1k")])
_add("densenet", [("densenet121", "densenet121.ra_in1k"), ("densenet201", "densenet201.tv_in1k"),
                  ("densenetblur121d", "densenetblur121d.ra_in1k")])
_add("repvgg", [(n, n + ".rvgg_in1k") for n in ("repvgg_a2", "repvgg_b0", "repvgg_b1", "repvgg_b3")])
_add("gernet", [("gernet_s", "gernet_s.idstcv_in1k"), ("gernet_m", "gernet_m.idstcv_in1k"),
                ("gernet_l", "gernet_l.idstcv_in1k")])


def log(msg):
    print(msg, flush=True)


class IabnInference(nn.Sequential):
    """What timm's InplaceAbn computes in eval mode: BatchNorm2d then its activation."""

    def __init__(self, iabn):
        bn = nn.BatchNorm2d(iabn.num_features, eps=iabn.eps, momentum=iabn.momentum, affine=iabn.affine)
        with torch.no_grad():
            if iabn.affine:
                bn.weight.copy_(iabn.weight)
                bn.bias.copy_(iabn.bias)
            bn.running_mean.copy_(iabn.running_mean)
            bn.running_var.copy_(iabn.running_var)
        act = {"leaky_relu": lambda: nn.LeakyReLU(iabn.act_param), "elu": lambda: nn.ELU(iabn.act_param),
               "identity": nn.Identity}[iabn.act_name]()
        super().__init__(bn, act)


def replace_iabn_(module):
    from timm.models.layers import InplaceAbn
    n = 0
    for name, child in list(module.named_children()):
        if isinstance(child, InplaceAbn):
            setattr(module, name, IabnInference(child))
            n += 1
        else:
            n += replace_iabn_(child)
    return n


def build_model(name):
    torch.manual_seed(0)
    model = timm.create_model(name, pretrained=False)
    n = replace_iabn_(model)
    model.eval()
    return model, n


def results_rows():
    with open(RESULTS_COPY, newline="") as f:
        return {r["model"]: r for r in csv.DictReader(row for row in f if not row.startswith("#"))}


def reference_counts(model, x):
    """MACs and conv/linear output elements counted at F.conv1d/F.conv2d/F.linear, batch 1;
    parameters of the model and of the modules that ran."""
    macs = [0]
    outs = [0]
    orig = {k: getattr(F, k) for k in ("conv1d", "conv2d", "linear")}

    def conv(fn):
        def wrapped(inp, weight, *a, **k):
            out = fn(inp, weight, *a, **k)
            macs[0] += out.numel() * weight[0].numel()  # (Cin/groups) * prod(kernel)
            outs[0] += out.numel()
            return out
        return wrapped

    def linear(inp, weight, *a, **k):
        out = orig["linear"](inp, weight, *a, **k)
        macs[0] += out.numel() * weight.shape[1]
        outs[0] += out.numel()
        return out

    ran = []
    handles = [m.register_forward_hook(lambda m, i, o: ran.append(m)) for m in model.modules()]
    F.conv1d, F.conv2d, F.linear = conv(orig["conv1d"]), conv(orig["conv2d"]), linear
    try:
        with torch.no_grad():
            y = model(x)
    finally:
        for k, v in orig.items():
            setattr(F, k, v)
        for h in handles:
            h.remove()
    seen_mod, seen_par = set(), set()
    executed, bn_executed, bn_stats = 0, 0, 0
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
                executed += p.numel()
    return {
        "ref_macs": int(macs[0]),
        "ref_output_elements": int(outs[0]),
        "torch_params": int(sum(p.numel() for p in model.parameters())),
        "ref_params_executed": int(executed),
        "bn_executed": bn_executed,
        "bn_stats": int(bn_stats),
        "float_buffers_executed": int(sum(b.numel() for m in seen_mod_modules(ran) for b in m.buffers(recurse=False)
                                          if b.is_floating_point() and not isinstance(m, nn.modules.batchnorm._BatchNorm))),
        "out_shape": list(y.shape),
    }


def seen_mod_modules(ran):
    seen = set()
    for m in ran:
        if id(m) not in seen:
            seen.add(id(m))
            yield m


def process(name, rows):
    t0 = time.time()
    family, row_name = ZOO[name]
    row = rows[row_name]
    size = int(row["img_size"])
    model, n_iabn = build_model(name)
    torch.manual_seed(0)
    x = torch.randn(1, 3, size, size)
    ref = reference_counts(model, x)
    if ref["out_shape"] != [1, 1000]:
        raise RuntimeError("%s: unexpected output shape %s" % (name, ref["out_shape"]))
    tv.decorrelate_(model)
    workdir = tempfile.mkdtemp(prefix="rooflens_timm_%s_" % name)
    try:
        m = tv.export_onnx(model, x, workdir)
    finally:
        shutil.rmtree(workdir)
    del model
    counts = tv.verify_graph(name, m, ref["bn_executed"])
    folded_pads = fold_computed_pads(m, x)
    counts = collections.Counter(n.op_type for n in m.graph.node)
    onnx_params = tv.onnx_float_params(m)
    tv.strip_weights(m)
    data = m.SerializeToString()
    tv.check_stripped(data)
    with open(os.path.join(OUT_DIR, name + ".onnx"), "wb") as f:
        f.write(data)
    published_params = int(round(float(row["param_count"].replace(",", "")) * 1e6))
    entry = collections.OrderedDict([
        ("name", name), ("family", family), ("file", name + ".onnx"), ("input_shape", [3, size, size]),
        ("weights", row_name), ("acc1", float(row["top1"])), ("acc5", float(row["top5"])),
        ("param_count_published_m", float(row["param_count"].replace(",", ""))),
        ("num_params", ref["torch_params"]), ("torch_params", ref["torch_params"]),
        ("ref_params_executed", ref["ref_params_executed"]), ("onnx_float_params", int(onnx_params)),
        ("ref_macs", ref["ref_macs"]), ("ref_output_elements", ref["ref_output_elements"]),
        ("onnx_ops", sorted(counts.keys())),
    ])
    notes = []
    if abs(published_params - ref["torch_params"]) > 5000:  # the table rounds to 0.01 M
        notes.append("timm's table lists %s M parameters; the built model has %d." %
                     (row["param_count"], ref["torch_params"]))
    if folded_pads:
        notes.append("%d Pad amounts the graph computed from the input's size folded to constants "
                     "(fold_computed_pads)." % folded_pads)
    if n_iabn:
        notes.append("%d InplaceAbn layers exported as BatchNormalization + LeakyRelu (their inference "
                     "computation; inplace_abn itself is a CUDA-only training kernel)." % n_iabn)
    if ref["ref_params_executed"] != ref["torch_params"]:
        notes.append("%d parameters belong to modules that do not run in the forward pass."
                     % (ref["torch_params"] - ref["ref_params_executed"]))
    expected = ref["ref_params_executed"] + ref["bn_stats"] + ref["float_buffers_executed"]
    if onnx_params != expected:
        notes.append("ONNX float initializers hold %d elements; executed parameters + BatchNorm statistics + "
                     "fixed float buffers (blur filters) hold %d." % (onnx_params, expected))
    if notes:
        entry["notes"] = " ".join(notes)
    log("%-26s %6.1f s %8d bytes in=%d GMACs=%.3f params=%d" %
        (name, time.time() - t0, len(data), size, ref["ref_macs"] / 1e9, ref["torch_params"]))
    return entry


def fold_computed_pads(m, x):
    """Pads that the graph computes (timm's SAME padding from the input's size, BlurPool2d's
    reflect padding built from Python ints: Shape/Gather/.../Cast chains) replaced by their
    values, evaluated once with ONNX Runtime on the model with its weights; the chains left
    dead are removed. The values depend on the image size only, never on the batch, so the
    dynamic batch stays valid. Returns the number of Pad inputs folded."""
    import numpy as np
    import onnxruntime as ort
    from onnx import helper, numpy_helper
    inits = {t.name for t in m.graph.initializer}
    targets = sorted({n.input[1] for n in m.graph.node
                      if n.op_type == "Pad" and len(n.input) > 1 and n.input[1] and n.input[1] not in inits})
    if not targets:
        return 0
    probe = onnx.ModelProto()
    probe.CopyFrom(m)
    for t in targets:
        probe.graph.output.append(helper.make_tensor_value_info(t, onnx.TensorProto.INT64, None))
    sess = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    values = sess.run(targets, {"input": x.numpy()})
    for t, v in zip(targets, values):
        m.graph.initializer.append(numpy_helper.from_array(np.asarray(v, dtype=np.int64), t + "_folded"))
        for n in m.graph.node:
            if n.op_type == "Pad" and len(n.input) > 1 and n.input[1] == t:
                n.input[1] = t + "_folded"
    while True:  # drop nodes whose outputs nobody reads
        used = {i for n in m.graph.node for i in n.input} | {o.name for o in m.graph.output}
        dead = [n for n in m.graph.node if not any(o in used for o in n.output)]
        if not dead:
            break
        for n in dead:
            m.graph.node.remove(n)
    used = {i for n in m.graph.node for i in n.input}
    for t in [t for t in m.graph.initializer if t.name not in used]:
        m.graph.initializer.remove(t)
    return len(targets)


def write_zoo(path, entries, failed):
    z = collections.OrderedDict()
    z["schema"] = SCHEMA
    z["generator"] = GENERATOR
    z["timm"] = timm.__version__
    z["torch"] = torch.__version__
    z["onnx"] = onnx.__version__
    z["opset"] = tv.OPSET
    z["results_csv"] = "%s/%s" % (RESULTS["repo"], RESULTS["path"])
    z["results_commit"] = RESULTS["commit"]
    z["models"] = [entries[k] for k in sorted(entries)]
    z["failed"] = [failed[k] for k in sorted(failed)]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(z, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def check_import(binary):
    """Every exported model through `rooflens analyze`: a model rooflens cannot import or shape
    moves from "models" to "failed" (stage "rooflens import", the error line as the reason) and
    its file is removed, so that `rooflens study --zoo timm` studies what rooflens can read and
    the zoo says what it cannot."""
    import subprocess
    zoo_path = os.path.join(OUT_DIR, "zoo.json")
    with open(zoo_path) as f:
        z = json.load(f, object_pairs_hook=collections.OrderedDict)
    kept, failed = [], {e["name"]: e for e in z.get("failed", [])}
    for e in z["models"]:
        path = os.path.join(OUT_DIR, e["file"])
        r = subprocess.run([binary, "analyze", path, "--format", "json"], capture_output=True, text=True)
        if r.returncode == 0:
            kept.append(e)
            continue
        reason = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1].replace(OUT_DIR + "/", "")
        if "unknown op node(s)" in reason:  # by op type, not every node's name
            import re
            ops = collections.Counter(re.findall(r" \((\w+)\)", reason))
            reason = "rooflens: unknown op(s), not costed: %s" % ", ".join("%s x%d" % kv for kv in sorted(ops.items()))
        failed[e["name"]] = collections.OrderedDict([("name", e["name"]), ("family", e["family"]),
                                                     ("stage", "rooflens import"), ("reason", reason[:400]),
                                                     ("onnx_ops", e["onnx_ops"])])
        os.remove(path)
        log("%-26s rooflens cannot import: %s" % (e["name"], reason))
    z["models"] = kept
    z["failed"] = [failed[k] for k in sorted(failed)]
    with open(zoo_path + ".tmp", "w") as f:
        json.dump(z, f, indent=1)
        f.write("\n")
    os.replace(zoo_path + ".tmp", zoo_path)
    log("%d models import, %d listed as failed" % (len(kept), len(failed)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--keep-going", action="store_true")
    ap.add_argument("--check-import", metavar="ROOFLENS",
                    help="instead of exporting: run ROOFLENS analyze on every exported model and move those it "
                         "cannot import to the manifest's failed list")
    args = ap.parse_args()
    if args.check_import:
        check_import(args.check_import)
        return
    if timm.__version__ != TIMM_VERSION:
        sys.exit("timm %s installed; this zoo is timm %s (scripts/venv-requirements.txt)"
                 % (timm.__version__, TIMM_VERSION))
    unknown = [n for n in args.names if n not in ZOO]
    if unknown:
        ap.error("unknown model(s): %s" % ", ".join(unknown))
    warnings.filterwarnings("ignore")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    rows = results_rows()
    missing = [r for _, r in ZOO.values() if r not in rows]
    if missing:
        sys.exit("rows missing from %s: %s" % (RESULTS_COPY, ", ".join(missing)))
    zoo_path = os.path.join(OUT_DIR, "zoo.json")
    entries, failed = {}, {}
    if args.names and os.path.exists(zoo_path):
        with open(zoo_path) as f:
            z = json.load(f)
        entries = {e["name"]: e for e in z.get("models", [])}
        failed = {e["name"]: e for e in z.get("failed", [])}
    t_all = time.time()
    for name in args.names or list(ZOO):
        try:
            entries[name] = process(name, rows)
            failed.pop(name, None)
        except Exception as e:  # noqa: BLE001
            failed[name] = {"name": name, "family": ZOO[name][0], "stage": "export", "reason": repr(e)[:400]}
            entries.pop(name, None)
            log("%-26s FAILED: %r" % (name, e))
            if not args.keep_going:
                break
        write_zoo(zoo_path, entries, failed)
    log("total %.1f s, %d exported, %d failed" % (time.time() - t_all, len(entries), len(failed)))


if __name__ == "__main__":
    main()
