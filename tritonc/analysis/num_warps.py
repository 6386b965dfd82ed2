"""The number of warps per CTA when the user gives none (``--num-warps`` left at ``auto``).

Rule of thumb (OpenAI Triton's: its fused-softmax tutorial and its matmul configurations),
applied to the optimised tile IR of a whole module (the driver's automatic choice: one count
for every kernel of a file) or of one kernel, the largest demand winning:

* a module with ``tt.dot``: 8 warps when an accumulator has at least 128 x 256 elements
  (Triton's 128x256x64 configurations run on 8 warps; 4 would leave 256 accumulator registers
  per thread), else 4;
* otherwise, by the bytes of the largest tile loaded or stored (the data a program instance
  moves at once): 4 warps up to 8 KiB, 8 up to 16 KiB, 16 beyond (fp32
  tiles: 4 up to 2048 elements, 8 at 4096, 16 from 8192; fp16: 4 up to 4096, 8 at 8192).
  Triton's fused-softmax rule counts elements (16 warps from 4096); measured on an H100
  (benchmarks/RESULTS.md, 2026-11-27 session 7, `bench --num-warps`): the fp16 rows of 4096
  ran faster at 4 warps than at 8 (layernorm 8192x4096 0.0525 ms against 0.0574, its backward
  0.0925 against 0.1148; rmsnorm within 1-4% either way), the fp32 rows of 2048 alike at 4 and
  8 (softmax 16384x2048, row_sum, col_sum), and a one-row tile of 4096 floats slower at 16 than
  at 8 (softmax 4096x4096 0.0550 ms against 0.0508, session 6): fewer warps mean cheaper
  cross-warp reductions and more bytes in flight per thread. Tiles that are only computed,
  reduced or added atomically do not count: the loads they come from do. But float tiles a
  loop carries from trip to trip (the one-pass backwards' fp32 partial sums of dweight, a
  long row's running sums) count as moved tiles: they hold registers for the whole loop.
  Measured on an H100 once the bounded variants (``specialize``) had dropped the long-row
  branch's registers (session 9, 8192 x 4096, BLOCK = 4096): layernorm's backward 81.6 us at
  8 warps against 83.6 at 4 (128 registers against 254: two CTAs an SM), rmsnorm's 78.3
  against 81.7, layernorm's forward 0.0473 ms against 0.0477;
* 4 warps otherwise (scalar-only kernels included).

The result only sets the default; ``--num-warps N`` always wins.
"""
from __future__ import annotations

from ..ir.core import Function, Module
from ..ir.types import ScalarType, TileType

DEFAULT_NUM_WARPS = 4


def _warps_for_tile(nbytes: int) -> int:
    if nbytes > 16 * 1024:
        return 16
    if nbytes > 8 * 1024:
        return 8
    return DEFAULT_NUM_WARPS


def default_num_warps(module: Module | Function) -> int:
    """Warps per CTA for ``module``, a module or one kernel (tt level, after the
    machine-independent passes).

    A module with a ``tt.dot`` is sized by its accumulators only (its loads feed the dot);
    otherwise by the bytes of the tiles it loads or stores.

    Returns:
        4, 8 or 16.
    """
    ops = list(module.walk())
    dots = [op.result.type for op in ops if op.name == "tt.dot"]
    if dots:
        return max(8 if acc.shape[0] * acc.shape[1] >= 128 * 256 else DEFAULT_NUM_WARPS for acc in dots)
    warps = DEFAULT_NUM_WARPS
    for op in ops:
        if op.name in ("tt.load", "tt.store"):
            values = (*op.operands, *op.results)
        elif op.name == "scf.for":
            # tiles carried from trip to trip in fp32 or wider (one-pass partial sums, running
            # statistics) are held for the whole loop: registers as a loaded tile's are
            values = tuple(r for r in op.results if isinstance(r.type, TileType)
                           and isinstance(r.type.element, ScalarType) and r.type.element.is_float
                           and r.type.element.bits >= 32)
        else:
            continue
        for v in values:
            t = v.type  # data tiles (not their pointers or masks), at their element size
            if isinstance(t, TileType) and isinstance(t.element, ScalarType) and t.element.bits > 1:
                warps = max(warps, _warps_for_tile(t.numel * t.element.bytes))
    return warps
