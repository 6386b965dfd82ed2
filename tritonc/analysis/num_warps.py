"""The number of warps per CTA when the user gives none (``--num-warps`` left at ``auto``).

Rule of thumb (OpenAI Triton's: its fused-softmax tutorial and its matmul configurations),
applied to the optimised tile IR of a whole module (the driver's automatic choice: one count
for every kernel of a file) or of one kernel, the largest demand winning:

* a module with ``tt.dot``: 8 warps when an accumulator has at least 128 x 256 elements
  (Triton's 128x256x64 configurations run on 8 warps; 4 would leave 256 accumulator registers
  per thread), else 4;
* otherwise, by the largest tile loaded, stored, reduced or updated atomically: 4 warps up to
  1024 elements, 8 from 2048, 16 from 8192. Triton's fused-softmax rule takes 16 from 4096;
  here a one-row tile of 4096 ran slower at 16 warps than at 8 (H100, default builds:
  softmax 4096x4096 fp32 0.0550 ms at 16, 0.0508 at 8; layernorm 8192x4096 fp16 0.0721 at 16,
  0.0584 at 8), the cross-warp reductions and fewer resident CTAs costing more than the
  shorter per-thread work saves;
* 4 warps otherwise (scalar-only kernels included).

The result only sets the default; ``--num-warps N`` always wins.
"""
from __future__ import annotations

from ..ir.core import Function, Module
from ..ir.types import TileType

DEFAULT_NUM_WARPS = 4


def _warps_for_tile(numel: int) -> int:
    if numel >= 8192:
        return 16
    if numel >= 2048:
        return 8
    return DEFAULT_NUM_WARPS


def default_num_warps(module: Module | Function) -> int:
    """Warps per CTA for ``module``, a module or one kernel (tt level, after the
    machine-independent passes).

    A module with a ``tt.dot`` is sized by its accumulators only (its loads feed the dot);
    otherwise by the tiles it loads, stores, reduces or updates atomically.

    Returns:
        4, 8 or 16.
    """
    ops = list(module.walk())
    dots = [op.result.type for op in ops if op.name == "tt.dot"]
    if dots:
        return max(8 if acc.shape[0] * acc.shape[1] >= 128 * 256 else DEFAULT_NUM_WARPS for acc in dots)
    warps = DEFAULT_NUM_WARPS
    for op in ops:
        if op.name in ("tt.load", "tt.store", "tt.reduce", "tt.atomic_rmw", "tt.atomic_cas"):
            for v in (*op.operands, *op.results):
                if isinstance(v.type, TileType):
                    warps = max(warps, _warps_for_tile(v.type.numel))
    return warps
