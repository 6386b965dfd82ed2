"""Layouts: how the elements of a tile are distributed over the threads of a CTA.

A layout is part of a tile's type at the ttg level (after ``assign-layouts``). The terms and
field names are modern Triton's (TritonGPU dialect):

* ``BlockedLayout``: each thread owns ``size_per_thread`` contiguous elements per dimension; a
  warp is a ``threads_per_warp`` grid of threads, a CTA a ``warps_per_cta`` grid of warps;
  ``order`` lists dimensions from fastest- to slowest-varying. The CTA tile this describes is
  repeated over a larger tile, and wrapped (elements replicated) over a smaller one.
* ``SliceLayout``: the layout of a tile whose dimension ``dim`` was reduced away from (or will be
  broadcast into) a tile of layout ``parent``.
* ``SharedLayout``: an allocation in shared memory, swizzled with ``vec`` / ``per_phase`` /
  ``max_phase`` (the XOR swizzle of Triton's shared encoding), dimensions in ``order``, the
  contiguous dimension optionally split into ``block``-element blocks (wgmma's layouts).
* ``MmaLayout`` / ``DotOperandLayout``: tensor-core accumulator and operand fragments
  (``version`` 2 = ``mma.sync.m16n8k16``, 3 = ``wgmma``), used by ``accelerate-matmul``.

Text form: ``#ttg.blocked<size_per_thread=[1,4], threads_per_warp=[4,8], warps_per_cta=[4,1],
order=[1,0]>``; the printer declares each distinct layout once as an alias
(``#blocked0 = #ttg.blocked<...>``) and refers to it by name.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields


class Layout:
    """Base class of layouts. Subclasses are frozen dataclasses whose fields print in order."""

    kind: str = ""
    alias_prefix: str = ""

    def __str__(self) -> str:
        parts = []
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.default is not MISSING and value == f.default:
                continue  # optional fields print only when set
            if isinstance(value, tuple):
                value = "[" + ",".join(str(v) for v in value) + "]"
            parts.append(f"{f.name}={value}")
        return f"#ttg.{self.kind}<{', '.join(parts)}>"


@dataclass(frozen=True)
class BlockedLayout(Layout):
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    kind = "blocked"
    alias_prefix = "blocked"

    @property
    def rank(self) -> int:
        return len(self.order)

    def cta_tile(self) -> tuple[int, ...]:
        """Elements covered by one repetition of the layout, per dimension."""
        return tuple(s * t * w for s, t, w in zip(self.size_per_thread, self.threads_per_warp, self.warps_per_cta))


@dataclass(frozen=True)
class SliceLayout(Layout):
    dim: int
    parent: Layout
    kind = "slice"
    alias_prefix = "slice"


@dataclass(frozen=True)
class SharedLayout(Layout):
    """Swizzled shared memory. ``block`` (optional, 0 = none): the contiguous dimension is
    stored in blocks of ``block`` elements, each block a ``[rows, block]`` array of its own
    (blocks outside rows, inside the other dimensions), so every row of the swizzle pattern is
    ``block`` elements long: the canonical layouts of ``wgmma`` (PTX ISA 9.7.15.5.1), whose
    swizzle atoms are 8 rows of 32, 64 or 128 bytes."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    block: int = 0
    kind = "shared"
    alias_prefix = "shared"


@dataclass(frozen=True)
class MmaLayout(Layout):
    version: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    kind = "mma"
    alias_prefix = "mma"


@dataclass(frozen=True)
class DotOperandLayout(Layout):
    op_idx: int
    parent: Layout
    k_width: int
    kind = "dot_op"
    alias_prefix = "dot_op"


LAYOUT_KINDS: dict[str, type[Layout]] = {
    cls.kind: cls for cls in (BlockedLayout, SliceLayout, SharedLayout, MmaLayout, DotOperandLayout)
}
