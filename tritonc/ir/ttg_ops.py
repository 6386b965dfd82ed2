"""Operations of the GPU tile IR (the ttg level, after ``assign-layouts``).

* ``ttg.convert_layout(src)``: the same tile (same shape and element type) in another
  layout. It is the only op that moves elements between threads on its own; the lowering
  (``codegen/llvm/convert.py``) renumbers registers when every thread already holds what it
  needs, and otherwise goes through shared memory. ``remove-layout-conversions`` drops
  conversions that are no-ops.

Shared-memory buffers (values of type ``!ttg.memdesc<...>``, ``ir/types.py``), made by
``accelerate-matmul`` and ``software-pipeline``; ``allocate-shared`` gives each allocation its
``smem_offset`` and ``insert-barriers`` orders the accesses of different threads (the effects
each op declares are on its op definition: ``memory_effects`` and ``shared_effects``):

* ``ttg.local_alloc(src?) -> memdesc``: a new buffer; with ``src`` (a tile of the buffer's
  shape and element type) the buffer is written with it. Not pure: two allocations are two
  buffers.
* ``ttg.local_load(src) -> tile``: the buffer's elements as a tile of any layout (a
  dot-operand layout is read with ``ldmatrix``).
* ``ttg.local_store(value, dst)``: write a tile into a buffer.
* ``ttg.memdesc_subview(src, index) -> memdesc``: slot ``index`` (an i32, counted along the
  first dimension) of a multi-buffer ``[S, ...]``: a view of shape ``src.shape[1:]``.
* ``ttg.memdesc_trans(src) {order} -> memdesc``: the same memory seen with its dimensions
  permuted (``result.shape[i] = src.shape[order[i]]``).
* ``ttg.memdesc_subslice(src) {offsets} -> memdesc``: the part of ``src`` of the result's
  shape starting at ``offsets`` (a K slice of an operand tile); the result's ``alloc_shape``
  is the whole buffer's, whose layout addresses it.
* ``ttg.async_copy_global_to_local(ptr, dst, mask?, other?) {mask_kind?}``: start copying
  the elements ``ptr`` (a pointer tile of ``dst``'s shape) points to into ``dst``
  (``cp.async``); a masked-off element is written as zero (``other``, when present, must be
  a zero constant). The copy is asynchronous: it is complete in the issuing thread after a
  ``ttg.async_wait`` that covers its group, and visible to other threads after a barrier
  following that wait. ``mask_kind`` tells the lowering how the mask varies within one
  thread's vector of contiguous elements: ``"uniform"`` (constant, the default) or
  ``"prefix"`` (true for a prefix of the vector, e.g. ``k < K`` along a contiguous ``k``);
  with ``"limit"`` the mask is an i32 tile, an element is copied where it is positive, and it
  decreases by one from element to element along the contiguous dimension (``K - k``), so
  the first element of a vector says how many of its elements to copy. ``no_war``: no thread
  reads the destination between the last barrier and the copy (the software pipeliner's
  promise for a slot other than the ones being read), so ``insert-barriers`` does not order
  it after the reads of the buffer since that barrier.
* ``ttg.async_commit_group``: close the group of the copies this thread issued since the
  last commit (``cp.async.commit_group``).
* ``ttg.wgmma_wait(acc) {num} -> tile``: ``acc``, the result of a ``tt.dot`` on ``wgmma``
  (mma v3) that was left running (``pending`` attribute of the dot), once at most ``num`` of
  the warp group's wgmma groups are still running (``wgmma.wait_group num``, PTX ISA
  9.7.15.7); the same values, safe to read once ``num`` is 0 (with ``num = 1`` the result
  may only feed the next dot, and the groups before are done: their buffers are free).
* ``ttg.async_wait(buffers*) {num}``: wait until at most ``num`` of this thread's groups
  are still in flight (``cp.async.wait_group num``). The operands are the buffers those
  copies write; they only keep the buffers alive up to the wait.
"""
from __future__ import annotations

import dataclasses

from .effects import (ALLOCATE_SHARED, BUFFER_ALIGNMENT, READ_GLOBAL, READ_SHARED, WGMMA_ALIGNMENT, WRITE_SHARED,
                      SharedEffect)
from .layout_algebra import inverse_permutation
from .layouts import DotOperandLayout, SharedLayout
from .ops import OpDef, VerifyError, register_op
from .scratch import redistribution_scratch
from .types import I1, I32, MemDescType, PointerType, TileType, element_type


def _verify_convert_layout(op) -> None:
    src, res = op.operands[0].type, op.result.type
    if not (isinstance(src, TileType) and isinstance(res, TileType)):
        raise VerifyError(f"'{op.name}': converts tiles only, got {src} -> {res}")
    if src.shape != res.shape or src.element != res.element:
        raise VerifyError(f"'{op.name}': shape and element type must not change: {src} -> {res}")
    if res.layout is None or src.layout is None:
        raise VerifyError(f"'{op.name}': operand and result need layouts: {src} -> {res}")


register_op(OpDef("ttg.convert_layout", operands=("src",), verify=_verify_convert_layout,
                  doc="The same tile in another layout.", scratch=redistribution_scratch))


def _fail(op, message: str) -> None:
    raise VerifyError(f"'{op.name}': {message}")


def _memdesc(op, v, what: str) -> MemDescType:
    if not isinstance(v.type, MemDescType):
        _fail(op, f"{what} must be a shared-memory buffer, got {v.type}")
    layout = v.type.layout
    if layout is not None:
        if not isinstance(layout, SharedLayout):
            _fail(op, f"{what} has a non-shared layout {layout}")
        if sorted(layout.order) != list(range(v.type.rank)):
            _fail(op, f"{what}: order {list(layout.order)} is not a permutation of its {v.type.rank} dimensions")
    return v.type


def _same_tile(op, tile_type, buf: MemDescType, what: str) -> None:
    if not isinstance(tile_type, TileType) or tile_type.shape != buf.shape or tile_type.element != buf.element:
        _fail(op, f"{what} {tile_type} does not match the buffer {buf}")


def _verify_local_alloc(op) -> None:
    buf = _memdesc(op, op.result, "result")
    if op.operands:
        _same_tile(op, op.operands[0].type, buf, "initial value")


def _verify_local_load(op) -> None:
    _same_tile(op, op.result.type, _memdesc(op, op.operands[0], "source"), "result")


def _verify_local_store(op) -> None:
    _same_tile(op, op.operands[0].type, _memdesc(op, op.operands[1], "destination"), "stored value")


def subview_layout(layout: SharedLayout | None) -> SharedLayout | None:
    """The layout of one slot (the first dimension dropped) of a buffer in ``layout``."""
    if layout is None:
        return None
    order = tuple(d - 1 for d in layout.order if d != 0)
    return dataclasses.replace(layout, order=order)


def trans_shared_layout(layout: SharedLayout | None, order) -> SharedLayout | None:
    """The layout of ``memdesc_trans {order}`` of a buffer in ``layout``."""
    if layout is None:
        return None
    inv = inverse_permutation(order)
    return dataclasses.replace(layout, order=tuple(inv[d] for d in layout.order))


def _verify_subview(op) -> None:
    src = _memdesc(op, op.operands[0], "source")
    res = _memdesc(op, op.result, "result")
    if op.operands[1].type != I32:
        _fail(op, f"the slot index must be an i32, got {op.operands[1].type}")
    if src.rank < 2 or res.shape != src.shape[1:] or res.element != src.element or src.alloc_shape is not None:
        _fail(op, f"a slot of {src} cannot be {res}")
    if res.layout != subview_layout(src.layout):
        _fail(op, f"a slot of {src} has layout {subview_layout(src.layout)}, not {res.layout}")


def _verify_memdesc_trans(op) -> None:
    src = _memdesc(op, op.operands[0], "source")
    res = _memdesc(op, op.result, "result")
    order = list(op.attrs["order"])
    if sorted(order) != list(range(src.rank)):
        _fail(op, f"order {order} is not a permutation of the dimensions of {src}")
    if res.shape != tuple(src.shape[o] for o in order) or res.element != src.element:
        _fail(op, f"trans {order} of {src} cannot be {res}")
    if res.layout != trans_shared_layout(src.layout, order):
        _fail(op, f"trans {order} of {src} has layout {trans_shared_layout(src.layout, order)}")
    want_alloc = None if src.alloc_shape is None else tuple(src.alloc_shape[o] for o in order)
    if res.alloc_shape != want_alloc:
        _fail(op, f"trans {order} of {src} has alloc shape {want_alloc}")


def _verify_subslice(op) -> None:
    src = _memdesc(op, op.operands[0], "source")
    res = _memdesc(op, op.result, "result")
    offsets = list(op.attrs["offsets"])
    if len(offsets) != src.rank or res.rank != src.rank or res.element != src.element:
        _fail(op, f"a slice of {src} cannot be {res} at {offsets}")
    if any(o < 0 or o + r > s for o, r, s in zip(offsets, res.shape, src.shape)):
        _fail(op, f"slice {res.shape} at {offsets} is outside {src.shape}")
    if res.layout != src.layout or res.full_shape != src.full_shape:
        _fail(op, f"a slice keeps the layout and whole shape of {src}, got {res}")


def _verify_async_copy(op) -> None:
    ptr, dst = op.operands[0], op.operands[1]
    buf = _memdesc(op, dst, "destination")
    el = element_type(ptr.type)
    if not isinstance(ptr.type, TileType) or not isinstance(el, PointerType) or el.pointee != buf.element \
            or ptr.type.shape != buf.shape:
        _fail(op, f"copy through {ptr.type} into {buf}")
    if len(op.operands) > 2:
        mask = op.operands[2]
        want = I32 if op.attrs.get("mask_kind") == "limit" else I1
        if not isinstance(mask.type, TileType) or mask.type.element != want or mask.type.shape != buf.shape:
            _fail(op, f"mask must be {want} of the buffer's shape, got {mask.type}")
    if len(op.operands) > 3:
        other = op.operands[3]
        if not isinstance(other.type, TileType) or other.type.element != buf.element or other.type.shape != buf.shape:
            _fail(op, f"'other' must be a tile of the buffer's shape and element type, got {other.type}")
    if op.attrs.get("mask_kind", "uniform") not in ("uniform", "prefix", "limit"):
        _fail(op, f"unknown mask_kind {op.attrs['mask_kind']!r}")


def _verify_async_wait(op) -> None:
    for v in op.operands:
        _memdesc(op, v, "operand")
    if not isinstance(op.attrs["num"], int) or op.attrs["num"] < 0:
        _fail(op, f"num must be a non-negative integer, got {op.attrs['num']!r}")


# -- effects on explicit buffers (liveness, allocate-shared, insert-barriers) --------------------

def read_by_wgmma(buf) -> bool:
    """Whether a buffer value (or a view of it) is read by a ``wgmma`` dot (an mma v3 operand)."""
    for user, _ in buf.uses:
        if user.name in ("ttg.memdesc_subview", "ttg.memdesc_trans", "ttg.memdesc_subslice"):
            if read_by_wgmma(user.result):
                return True
        elif user.name == "ttg.local_load":
            layout = user.result.type.layout
            if isinstance(layout, DotOperandLayout) and layout.parent.version == 3:
                return True
    return False


def _alloc_effects(op) -> list[SharedEffect]:
    """A new buffer of ``numel * element bytes``, aligned for wgmma where one reads it."""
    t = op.result.type
    align = WGMMA_ALIGNMENT if read_by_wgmma(op.result) else BUFFER_ALIGNMENT
    effects = [SharedEffect("alloc", op.result, size=t.numel * max(1, t.element.bits // 8), alignment=align)]
    if op.operands:
        effects.append(SharedEffect("write", op.result))
    return effects


def _load_effects(op) -> list[SharedEffect]:
    return [SharedEffect("read", op.operands[0])]


def _store_effects(op) -> list[SharedEffect]:
    return [SharedEffect("write", op.operands[1])]


def _view_effects(op) -> list[SharedEffect]:
    return [SharedEffect("view", op.result, source=op.operands[0])]


def _copy_effects(op) -> list[SharedEffect]:
    return [SharedEffect("async_write", op.operands[1], no_war=bool(op.attrs.get("no_war")))]


def _wait_effects(op) -> list[SharedEffect]:
    return [SharedEffect("async_wait", num=int(op.attrs["num"]))]


register_op(OpDef("ttg.local_alloc", operands=("src?",), pure=False, verify=_verify_local_alloc,
                  doc="A new shared-memory buffer, optionally written with a tile.",
                  effects=(ALLOCATE_SHARED, WRITE_SHARED), shared_effects=_alloc_effects))
register_op(OpDef("ttg.local_load", operands=("src",), pure=False, verify=_verify_local_load,
                  doc="A shared-memory buffer read into a tile.", effects=(READ_SHARED,), shared_effects=_load_effects))
register_op(OpDef("ttg.local_store", operands=("value", "dst"), num_results=0, pure=False,
                  verify=_verify_local_store, doc="A tile written into a shared-memory buffer.",
                  effects=(WRITE_SHARED,), shared_effects=_store_effects))
register_op(OpDef("ttg.memdesc_subview", operands=("src", "index"), verify=_verify_subview,
                  doc="One slot of a multi-buffer.", shared_effects=_view_effects))
register_op(OpDef("ttg.memdesc_trans", operands=("src",), attrs=("order",), verify=_verify_memdesc_trans,
                  doc="A buffer seen with permuted dimensions.", shared_effects=_view_effects))
register_op(OpDef("ttg.memdesc_subslice", operands=("src",), attrs=("offsets",), verify=_verify_subslice,
                  doc="A static sub-slice of a buffer.", shared_effects=_view_effects))
register_op(OpDef("ttg.async_copy_global_to_local", operands=("ptr", "dst", "mask?", "other?"), num_results=0,
                  pure=False, verify=_verify_async_copy, doc="cp.async from global memory into a buffer.",
                  effects=(READ_GLOBAL, WRITE_SHARED), shared_effects=_copy_effects))
register_op(OpDef("ttg.async_commit_group", num_results=0, pure=False, doc="cp.async.commit_group", effects=None))
register_op(OpDef("ttg.async_wait", operands=("buffers*",), attrs=("num",), num_results=0, pure=False,
                  verify=_verify_async_wait, doc="cp.async.wait_group num", effects=None,
                  shared_effects=_wait_effects))


def _verify_wgmma_wait(op) -> None:
    if op.operands[0].type != op.result.type:
        _fail(op, f"result {op.result.type} differs from the operand {op.operands[0].type}")
    if not isinstance(op.attrs.get("num"), int) or op.attrs["num"] < 0:
        _fail(op, f"num must be a non-negative integer, got {op.attrs.get('num')!r}")


register_op(OpDef("ttg.wgmma_wait", operands=("acc",), attrs=("num",), pure=False, verify=_verify_wgmma_wait,
                  doc="wgmma.wait_group num: the accumulator of a running wgmma dot, once it is done",
                  effects=None))
