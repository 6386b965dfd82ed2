"""Coalescing: the layout that coalesces and vectorises each global memory access.

The layout choice is Triton's (``lib/Dialect/TritonGPU/Transforms/Coalesce.cpp``; legacy
``scanline_layout``). For a load, store or atomic whose pointer is a tile, with the pointer's
axis info (``analysis/axis_info.py``):

* ``order``: dimensions by contiguity, most contiguous first (ties: the later dimension);
* ``size_per_thread[order[0]] = min(alignment, 16 bytes / element bytes, numel / threads)``
  where ``alignment = min(contiguity, divisibility / element bytes)`` along ``order[0]``, so
  one thread's elements along that dimension are one aligned access of at most 16 bytes
  (``ld.global.v4.b32``); 1 elsewhere; atomics get 1 (one element per instruction), except
  an fp32 ``atomic_add`` whose old values are unused (:func:`vector_red`), which gets up to 4,
  as a store would: on sm_90 each run is one ``red.global.add.v4.f32`` (PTX ISA 8.1), else
  one ``red`` per element;
* threads of a warp, then warps, go along ``order`` (fastest first), each clamped to what the
  shape needs, the rest to the slowest dimension (Triton's ``BlockedEncodingAttr::get``), so
  the 32 lanes of a warp read consecutive memory.

A pointer without contiguity in any dimension (a gather: :class:`Access` ``strong`` is
False; its strides are run-time values) gets no vector width, but a 2-D or 3-D one still gets
consecutive lanes along its *innermost* axis, so that a stride that is 1 at run time without
being provable still coalesces (issue 16). The innermost axis is found structurally
(:func:`innermost_axis`): the one axis along which the *innermost term* of the address varies,
the offset of the last ``tt.addptr`` that built the pointer (through ``broadcast``, layout
conversions and loop-carried pointers to their initial value): ``k`` in
``X + i * s0 + j * s1 + k * s2``, where the source puts the fastest index last. The group
then takes a blocked layout with that axis first in ``order``, one element per thread along it
(a gather is accessed one element per instruction, so lane ``l`` reads element ``l``) and the
other axes from last to first. Where the innermost term varies along several axes (conv2d's
``rw = rw0[:, newaxis] + rs[newaxis, :]``), along none, or cannot be traced, the structure does
not say which axis is fastest, and the gather takes whatever layout the rest of the
computation has (``assign-layouts``).

Where this layout is decided: ``assign-layouts`` asks :func:`access_layouts` first and builds
the whole computation around the memory accesses (a value group holding an access gets its
layout), so conversions appear only where two accesses really disagree (a transpose). This
module is that choice only, not a pass: a ``coalesce`` pass that enforced it afterwards was
never in the pipeline (after ``assign-layouts`` it found nothing to do) and was removed.
"""
from __future__ import annotations

from dataclasses import dataclass

from tritonc.analysis.axis_info import MAX_ACCESS_BYTES, AxisInfoAnalysis
from tritonc.analysis.layout_groups import LayoutGroups
from tritonc.analysis.address_terms import innermost_term
from tritonc.ir.core import Function, Operation, Value
from tritonc.ir.layout_algebra import blocked_layout
from tritonc.ir.layouts import BlockedLayout
from tritonc.ir.types import TileType, element_type
from tritonc.target import WARP_SIZE

#: Global memory accesses (ops with a ``ptr`` operand).
MEMORY_OPS = ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")


def pointer_of(op: Operation):
    """The pointer operand of a memory op."""
    return op.get("ptr")


def is_tile_access(op: Operation) -> bool:
    return op.name in MEMORY_OPS and isinstance(pointer_of(op).type, TileType)


@dataclass(frozen=True)
class Access:
    """What one memory op's pointer allows: ``order`` (most contiguous dimension first), ``vec``
    (elements one thread may access with one instruction along ``order[0]``), ``strong``
    (False for a gather: no contiguity anywhere), ``gather_order`` (for a 2-D or 3-D gather
    whose innermost axis is known, :func:`innermost_axis`: that axis first, the others from
    last to first; else ``None``)."""

    op: Operation
    shape: tuple[int, ...]
    order: tuple[int, ...]
    vec: int
    strong: bool
    gather_order: tuple[int, ...] | None = None

    def layout(self, vec: int, num_warps: int) -> BlockedLayout:
        spt = [1] * len(self.shape)
        spt[self.order[0]] = vec
        return blocked_layout(self.shape, self.order, tuple(spt), num_warps)

    def gather_layout(self, num_warps: int) -> BlockedLayout:
        """Lanes along the innermost axis, one element per thread (``gather_order`` is set)."""
        return blocked_layout(self.shape, self.gather_order, (1,) * len(self.shape), num_warps)


def innermost_axis(ptr: Value, axis: AxisInfoAnalysis) -> int | None:
    """The axis along which the innermost term of pointer tile ``ptr``'s address varies (see
    the module docstring), or ``None`` when that is not exactly one axis or cannot be traced.

    Only rank-preserving steps are followed (``broadcast``, ``convert_layout``, a loop-carried
    pointer's initial value), so the term's axes are the pointer's. A term varies along axis
    ``d`` when its axis info does not make it constant over the whole extent of ``d``."""
    term = innermost_term(ptr, same_rank=True)
    if term is None or not isinstance(term.type, TileType) or len(term.type.shape) != len(ptr.type.shape):
        return None
    info = axis.info(term)
    varying = [d for d, n in enumerate(term.type.shape) if n > 1 and info.constancy[d] < n]
    return varying[0] if len(varying) == 1 else None


def vector_red(op: Operation) -> bool:
    """Whether ``op`` is a tile ``atomic_rmw`` add of fp32 whose result (the old values) is
    unused: a reduction (``red``) that may update a run of contiguous elements at once (the
    vector ``red.global.add.v2/v4.f32`` of sm_90, PTX ISA 8.1), so it is laid out as a store."""
    if op.name != "tt.atomic_rmw" or op.attrs.get("kind") not in ("add", "fadd") or op.result.uses:
        return False
    t = op.get("value").type
    return isinstance(t, TileType) and t.element.name == "f32"


def access_of(op: Operation, axis: AxisInfoAnalysis, num_warps: int) -> Access:
    """The :class:`Access` of memory op ``op`` (a tile access; see the module docstring)."""
    ptr = pointer_of(op)
    shape = tuple(ptr.type.shape)
    info = axis.info(ptr)
    order = tuple(axis.order(ptr))
    pointee = element_type(ptr.type).pointee
    elem_bytes = max(1, pointee.bytes)
    numel = 1
    for s in shape:
        numel *= s
    vec = 1
    if (op.name in ("tt.load", "tt.store") or vector_red(op)) and pointee.bits > 1:  # i1 is a byte: scalar
        vec = min(axis.max_vector_elems(ptr, elem_bytes), max(1, MAX_ACCESS_BYTES // elem_bytes),
                  shape[order[0]], max(1, numel // (WARP_SIZE * num_warps)))
    strong = max(info.contiguity) > 1
    gather_order = None
    if not strong and len(shape) in (2, 3):
        d = innermost_axis(ptr, axis)
        if d is not None:
            gather_order = (d, *(k for k in reversed(range(len(shape))) if k != d))
    return Access(op, shape, order, vec, strong, gather_order)


def choose_layouts(accesses: list[Access], group_of, num_warps: int, reduced=frozenset()):
    """The layout of each access and of each value group holding one.

    ``group_of(value)`` names the group of a value (values that must share a layout).
    ``reduced`` holds the groups of reduction results: a store there follows the layout the
    reduction gives (a slice, usually already contiguous per thread: a conversion of a small
    result through shared memory would cost more than it saves), so only loads decide. Per
    group, the reference access is its first strong load (else its first strong access; a
    group of gathers only gets nothing: ``assign-layouts`` gives it the shape default); the group's layout has the reference's order and, along ``order[0]``,
    the largest ``vec`` of the group's strong loads with that order (as Triton, which takes
    the maximum over the accesses that share an order: a load with less alignment then issues
    narrower accesses, but needs no conversion), capped by the smallest ``vec`` of its stores
    with that order (a store wider than it can access would leave gaps in each warp's
    writes; Triton converts such a store's operands to a narrower layout, here the whole
    group narrows and needs no conversion). Every access with the reference's order, and
    every gather, is done in the group's layout; an access with another order (a transpose)
    in a layout of its own (its operands and result converted).

    Returns:
        ``(layout per op, layout per group)``.
    """
    groups: dict = {}
    for acc in accesses:
        groups.setdefault(group_of(pointer_of(acc.op)), []).append(acc)
    op_layout, group_layout = {}, {}
    for root, members in groups.items():
        strong = [a for a in members if a.strong and not (root in reduced and a.op.name == "tt.store")]
        if not strong:
            # gathers only: lanes along the innermost axis where the structure tells it
            known = [a for a in members if a.gather_order is not None
                     and not (root in reduced and a.op.name == "tt.store")]
            if not known:
                continue  # the rest of the computation decides (assign-layouts)
            ref = ([a for a in known if a.op.name == "tt.load"] or known)[0]
            group_layout[root] = ref.gather_layout(num_warps)
            for a in members:
                if a.gather_order is not None and a.gather_order != ref.gather_order:
                    op_layout[a.op] = a.gather_layout(num_warps)
                else:
                    op_layout[a.op] = group_layout[root]
            continue
        loads = [a for a in strong if a.op.name == "tt.load"]
        ref = (loads or strong)[0]
        same = [a for a in strong if a.order == ref.order]
        writes = [a for a in same if a.op.name == "tt.store" or vector_red(a.op)]
        vec = max([a.vec for a in same if a not in writes] or [ref.vec])
        vec = min([vec] + [a.vec for a in writes])
        group_layout[root] = ref.layout(vec, num_warps)
        for a in members:
            if a in strong and a.order != ref.order:
                op_layout[a.op] = a.layout(a.vec, num_warps)
            else:
                op_layout[a.op] = group_layout[root]
    return op_layout, group_layout


def access_layouts(f: Function, axis: AxisInfoAnalysis, num_warps: int, group_of=None):
    """:func:`choose_layouts` over every tile memory op of ``f`` (nested regions included);
    ``group_of`` defaults to the value groups of ``f`` (:class:`LayoutGroups`)."""
    if group_of is None:
        group_of = LayoutGroups(f).find
    accesses = [access_of(op, axis, num_warps) for op in f.walk() if is_tile_access(op)]
    reduced = {group_of(op.result) for op in f.walk()
               if op.name == "tt.reduce" and isinstance(op.result.type, TileType)}
    return choose_layouts(accesses, group_of, num_warps, reduced)
