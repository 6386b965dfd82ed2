"""The example kernels under ``examples/`` and the fixed settings their golden files use.

One table read by ``make golden`` (``tritonc.tools.golden``), the golden test, and
``make gpu-check``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "examples"
GOLDEN_DIR = ROOT / "golden"


@dataclass(frozen=True)
class Example:
    """An example file compiled at fixed ``defines`` (``tune`` fixes tunables), warps and stages
    for golden files."""

    name: str
    defines: dict[str, str] = field(default_factory=dict)
    tune: dict[str, list[int]] = field(default_factory=dict)
    num_warps: int = 4
    #: fixed too: ``None`` would let the cost model choose, and the golden files show one setting
    num_stages: int = 3

    @property
    def path(self) -> Path:
        return EXAMPLES_DIR / f"{self.name}.tri"


EXAMPLES = (
    Example("vector_add", {"BLOCK": "1024"}),
    Example("softmax", {"BLOCK": "1024"}),
    Example("layernorm", {"BLOCK": "1024"}),
    Example("transpose", {"TM": "32", "TN": "32"}),
    Example("reduce", {"BM": "8", "BN": "256"}),
    Example("matmul", {}, {"TM": [64], "TN": [64], "TK": [32]}),
    Example("conv2d", {"TYPE": "half", "TM": "64", "TN": "64", "TK": "16"}),
    Example("conv2d_krsc", {"TYPE": "half", "TM": "64", "TN": "64", "TK": "16"}),
    Example("conv2d_nhwc", {"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "SPLITK": "4"}),
    Example("conv2d_nchw", {"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "TC": "32", "TP": "32"}),
    Example("cross_entropy", {"TYPE": "float", "TILE": "1024"}),
    Example("bmm", {"TYPE": "half", "TM": "32", "TN": "32", "TK": "16", "TB": "2"}),
    Example("splitk_matmul", {"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "SPLITK": "4", "GROUP_M": "8"}),
    Example("blocksparse_matmul", {"TYPE": "half", "BLOCK": "32", "TN": "64"}),
    Example("batchnorm", {"TYPE": "float", "BN": "4", "BHW": "256"}),
    Example("permute", {"TYPE": "float", "T0": "2", "T1": "16", "T2": "16"}),
    Example("paper_matmul", {}, {"TM": [64], "TN": [64], "TK": [32]}),
    Example("shift_conv", {"TYPE": "half", "TM": "64", "TN": "64", "TK": "16"}),
    Example("dropout", {"BLOCK": "1024"}),
    # memory-bound examples whose tunables all take the file's first candidate
    Example("layernorm_bwd"),
    Example("rmsnorm"),
    Example("softmax_bwd"),
    Example("attention", {"TYPE": "half", "D": "64", "BM": "64", "BN": "64"}, num_warps=4, num_stages=2),
)


def by_name(name: str) -> Example:
    for e in EXAMPLES:
        if e.name == name:
            return e
    raise KeyError(name)
