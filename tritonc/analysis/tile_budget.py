"""The size guard: a tile too large for the registers of one CTA is an error, before codegen.

A tile's elements are spread over the CTA's ``32 * num_warps`` threads, so each thread holds
about ``numel * bits / 32 / (32 * num_warps)`` 32-bit values of it (pointers count 64 bits,
``i1`` and 8-bit elements one byte). A thread has at most 255 registers (PTX ISA, "Maximum
number of registers per thread"; cuda-c-programming-guide, "Compute capabilities"), so a tile
of more than :data:`MAX_VALUES_PER_THREAD` = 1024 32-bit values per thread, 4x that register
file, cannot live in registers: ptxas would spill nearly all of it to local memory, and such
kernels take minutes and gigabytes to assemble (a 512x512 ``half`` ``@`` ran for more than
300 s at 1.3 GB). Smaller tiles that still do not fit are left to ptxas, which spills
(``-Wspill`` reports it).

The bound is checked on the frontend's tile IR (before any pass), at the number of warps the
kernel is compiled with (the user's, the cost model's or the tile rule's), and reported at the
first op, in program order, that makes such a tile.
"""
from __future__ import annotations

from ..diagnostics import CompileError
from ..ir.core import Module
from ..ir.types import PointerType, TileType

#: The largest share of one tile a thread may hold, in 32-bit values (4x the 255-register file,
#: rounded to a power of two).
MAX_VALUES_PER_THREAD = 1024


def values_per_thread(tile: TileType, num_warps: int) -> int:
    """32-bit values per thread of ``tile`` spread over ``32 * num_warps`` threads (rounded up;
    64-bit elements and pointers count 2, narrower elements a fraction)."""
    element = tile.element
    bits = 64 if isinstance(element, PointerType) else max(getattr(element, "bits", 32), 8)
    threads = 32 * num_warps
    return -(-tile.numel * bits // (32 * threads))


def check_tile_budget(module: Module | Function, num_warps: int) -> None:
    """Reject the first tile of ``module`` (a module or one kernel) whose per-thread share exceeds
    :data:`MAX_VALUES_PER_THREAD` at ``num_warps`` warps per CTA.

    Raises:
        CompileError: at the op that makes the tile; the message gives its shape, element type,
            share per thread and the bound.
    """
    for op in module.walk():
        for v in op.results:
            t = v.type
            if not isinstance(t, TileType):
                continue
            share = values_per_thread(t, num_warps)
            if share > MAX_VALUES_PER_THREAD:
                shape = "x".join(map(str, t.shape))
                raise CompileError(
                    f"a {shape} tile of {t.element} needs {share} 32-bit values per thread at {num_warps} "
                    f"warp(s) ({32 * num_warps} threads), over the limit of {MAX_VALUES_PER_THREAD} (4x the "
                    f"255-register file of a thread); use smaller tiles or more warps (--num-warps)", op.loc)
