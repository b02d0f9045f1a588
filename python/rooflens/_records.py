"""Result objects of the rooflens module: numbers as attributes and dicts, units in the names.

Unit conventions (docs/design.md): FLOPs and MACs are counts (FLOPs = 2 x MACs plus other
arithmetic), bytes are bytes, times are seconds (``*_s``), rates are per second
(``throughput_img_per_s`` images/s, ``*_flop_per_s`` FLOP/s), arithmetic intensity is FLOP per
byte (``ai_flop_per_byte``), utilization and shares are fractions 0..1.
"""
from __future__ import annotations

import html as _html
from typing import Any, Dict, Iterator, List


class Record:
    """One row of numbers (a layer, a what-if variant, a NAS evaluation).

    Fields are attributes and keys: ``r.flops == r["flops"]``; ``to_dict()`` gives a copy.
    """

    __slots__ = ("_d",)

    def __init__(self, d: Dict[str, Any]):
        object.__setattr__(self, "_d", d)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._d[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}; fields: {', '.join(self._d)}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("rooflens records are read-only")

    def __getitem__(self, key: str) -> Any:
        return self._d[key]

    def keys(self):
        return self._d.keys()

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._d)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._d.items() if not isinstance(v, list))
        return f"{type(self).__name__}({inner})"


def _pandas():
    try:
        import pandas  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas (pip install pandas, or apt-get install python3-pandas)") from e
    return pandas


class Table:
    """A list of records (layers, rows) with to_dict()/to_pandas()."""

    def __init__(self, rows: List[Dict[str, Any]]):
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Record]:
        return (Record(r) for r in self._rows)

    def __getitem__(self, i: int) -> Record:
        return Record(self._rows[i])

    def to_dict(self) -> List[Dict[str, Any]]:
        return [dict(r) for r in self._rows]

    def to_pandas(self):
        return _pandas().DataFrame(self._rows)

    def _repr_html_(self) -> str:
        if not self._rows:
            return "<table></table>"
        cols = [k for k, v in self._rows[0].items() if not isinstance(v, (list, dict))]
        head = "".join(f"<th>{_html.escape(c)}</th>" for c in cols)
        body = "".join(
            "<tr>" + "".join(f"<td>{_html.escape(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>" for r in self._rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


class _Result:
    """A result with a summary (attributes), per-layer records, and the library's text."""

    _layers_key = "layers"

    def __init__(self, core: Any):
        self._core = core
        self._d = core.to_dict()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        d = self.__dict__.get("_d", {})
        if name in d and name != self._layers_key:
            return d[name]
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    @property
    def layers(self) -> Table:
        """Per-layer records (fused layers unless asked otherwise)."""
        return Table(self._d.get(self._layers_key) or [])

    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain Python data (layers included)."""
        return self._core.to_dict()

    def to_pandas(self):
        """The per-layer records as a pandas DataFrame (needs pandas)."""
        return self.layers.to_pandas()

    def text(self) -> str:
        """What the CLI prints for the same command."""
        return self._core.text()

    def __str__(self) -> str:
        return self.text()


class Analysis(_Result):
    """The cost analysis of a model: totals (macs, flops, bytes, params, ai_flop_per_byte) and
    per fused layer macs, flops, bytes, ai_flop_per_byte, shapes (`rooflens analyze`)."""

    def __repr__(self) -> str:
        d = self._d
        return (f"<Analysis {d['model']} batch {d['batch']} {d['dtype']}: {len(d['layers'])} layers, "
                f"{d['flops'] / 1e9:.3f} GFLOP, {d['bytes'] / 1e6:.2f} MB, AI {d['ai_flop_per_byte']:.1f} FLOP/B>")


class Prediction(_Result):
    """A prediction of the performance model on one device at one batch (`rooflens predict`):
    time_s per batch, throughput_img_per_s, utilization (of the datasheet peak), memory_bytes,
    engine (the execution a GPU prediction describes; None on a CPU),
    max_batch, and per layer time_s, bound, t_compute_s, t_memory_s. Draws its roofline."""

    def __repr__(self) -> str:
        d = self._d
        engine = f" ({d['engine']})" if d.get("engine") else ""
        return (f"<Prediction {d['model']} on {d['device']}{engine} {d['dtype']} batch {d['batch']}: "
                f"{d['throughput_img_per_s']:.0f} img/s, utilization {100 * d['utilization']:.1f}%>")

    def svg(self) -> str:
        """The roofline chart (SVG), as `rooflens predict --roofline` writes it."""
        return self._core.svg()

    def _repr_svg_(self) -> str:
        return self.svg()


class Measurement(Record):
    """A measured run (`rooflens measure`): latency_s, throughput_img_per_s (median, q1, q3),
    achieved_flop_per_s, per-layer time_s and implementation."""

    __slots__ = ()

    @property
    def layers(self) -> Table:
        return Table(self._d["layers"])

    def to_pandas(self):
        return self.layers.to_pandas()

    def __repr__(self) -> str:
        d = self._d
        return (f"<Measurement {d['model']} on {d['backend']} batch {d['batch']}: "
                f"{d['throughput_img_per_s']:.1f} img/s, latency {1e3 * d['latency_s']:.3f} ms>")


class Doctor(_Result):
    """The doctor's diagnosis (`rooflens doctor`): findings ranked by time saved, remedies."""

    _layers_key = "findings"

    @property
    def findings(self) -> Table:
        return Table(self._d.get("findings") or [])

    def text(self, verbose: bool = False) -> str:  # type: ignore[override]
        return self._core.text(verbose)

    def html(self) -> str:
        return self._core.html()

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return f"<Doctor {self._d.get('model')}: {len(self.findings)} findings>"


class Study(_Result):
    """A zoo study (`rooflens study`): per model throughput, utilization, AI, frontiers."""

    _layers_key = "models"

    @property
    def models(self) -> Table:
        return Table(self._d.get("models") or [])

    def to_pandas(self):
        return self.models.to_pandas()

    def html(self) -> str:
        """The study's HTML report page (figures inline)."""
        return self._core.html()

    def svgs(self) -> Dict[str, str]:
        """The study's figures by file name (SVG text)."""
        return dict(self._core.svgs())

    def csv(self) -> str:
        return self._core.csv()

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return f"<Study: {len(self.models)} models>"
