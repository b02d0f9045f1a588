"""The NATS-Bench size search space (SSS): 8^5 = 32768 networks, each five channel widths from
{8, 16, ..., 64} written "c0:c1:c2:c3:c4" (`rooflens sss`).

    rooflens.sss.network("8:16:24:32:64", device="v100", dtype="fp16", batch="max")
    space = rooflens.sss.space(device="v100")       # every network predicted
    a = space.arrays()                              # numpy: throughput_img_per_s, utilization, ...
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Union

from . import _core
from ._records import Record

SIZE: int = _core.sss_space_size
WIDTHS = tuple(_core.sss_width_choices)


def _batch(batch: Union[int, str, None]) -> Optional[int]:
    from . import _batch as b

    return b(batch)


def index(arch: str) -> int:
    """The index (0..32767) of an arch string; ValueError when it is not in the space."""
    return _core.sss_index(arch)


def arch(index: int) -> str:
    """The arch string of an index; ValueError outside 0..32767."""
    return _core.sss_arch(int(index))


def network(arch: Union[str, int], device: str = "v100", dtype: str = "fp16", batch: Union[int, str] = "max",
            dataset: str = "cifar10") -> Record:
    """One network's costs and prediction (`rooflens sss ARCH`): macs_per_image,
    flops_per_image, params, ai_flop_per_byte, throughput_img_per_s, utilization (0..1), batch.

    ValueError for an arch outside the space, an unknown device or dtype.
    """
    if not isinstance(arch, str):
        arch = _core.sss_arch(int(arch))
    return Record(_core.sss_network(arch, device, dtype, _batch(batch), dataset))


class Space:
    """Every network of the space predicted on one device: what a search's space table holds."""

    def __init__(self, core: Any):
        self._core = core

    @property
    def source(self) -> str:
        return self._core.source

    def __len__(self) -> int:
        return len(self._core)

    def arrays(self) -> Dict[str, Any]:
        """numpy arrays indexed by network index: index, widths (N x 5), macs_per_image,
        flops_per_image, params, ai_flop_per_byte, throughput_img_per_s, utilization, batch."""
        return self._core.arrays()

    def __getitem__(self, arch: Union[str, int]) -> Record:
        return Record(self._core.point(arch))

    def __repr__(self) -> str:
        return f"<sss.Space {len(self)} networks: {self.source}>"


def space(device: str = "v100", dtype: str = "fp16", batch: Union[int, str] = "max", dataset: str = "cifar10",
          jobs: int = 0) -> Space:
    """Predicts all 32768 networks on `device` (`rooflens sss --all`); jobs: threads (0: all cores)."""
    return Space(_core.sss_space(device, dtype, _batch(batch), dataset, int(jobs)))
