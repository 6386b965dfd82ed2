"""Operations of the GPU tile IR (the ttg level, after ``assign-layouts``).

* ``ttg.convert_layout(src)``: the same tile (same shape and element type) in another
  layout. It is the only op that moves elements between threads on its own; the lowering
  (``codegen/llvm/convert.py``) renumbers registers when every thread already holds what it
  needs, and otherwise goes through shared memory. ``remove-layout-conversions`` drops
  conversions that are no-ops.

Shared-memory buffers are not explicit ops yet: the lowering of ``convert_layout``,
``tt.reduce``, ``tt.dot`` and scalar atomics uses one dynamic shared-memory area per kernel
(see ``codegen/llvm/lowering.py``); explicit ``local_alloc``/``local_load`` ops will come
with software pipelining.
"""
from __future__ import annotations

from .ops import OpDef, VerifyError, register_op
from .types import TileType


def _verify_convert_layout(op) -> None:
    src, res = op.operands[0].type, op.result.type
    if not (isinstance(src, TileType) and isinstance(res, TileType)):
        raise VerifyError(f"'{op.name}': converts tiles only, got {src} -> {res}")
    if src.shape != res.shape or src.element != res.element:
        raise VerifyError(f"'{op.name}': shape and element type must not change: {src} -> {res}")
    if res.layout is None or src.layout is None:
        raise VerifyError(f"'{op.name}': operand and result need layouts: {src} -> {res}")


register_op(OpDef("ttg.convert_layout", operands=("src",), verify=_verify_convert_layout,
                  doc="The same tile in another layout."))
