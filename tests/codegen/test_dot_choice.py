"""codegen/llvm/dot.py: the dot instruction is chosen in one decision table, one test per row."""
from __future__ import annotations

import pytest

from tritonc.codegen.llvm.dot import LOWER_DOT, dot_instruction
from tritonc.codegen.llvm.dot_fma import lower_fma_dot
from tritonc.codegen.llvm.dot_mma import lower_mma_dot
from tritonc.codegen.llvm.dot_wgmma import lower_wgmma_dot
from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Operation, Value
from tritonc.ir.layouts import BlockedLayout, MmaLayout, SliceLayout
from tritonc.ir.types import F32, TileType
from tritonc.target import Target

BLOCKED = BlockedLayout((1, 1), (4, 8), (4, 1), (1, 0))


def dot_with_result(layout) -> Operation:
    t = TileType(F32, (64, 64), layout)
    a = Value(t)
    return Operation("tt.dot", [a, a, a], [t], {"input_precision": "ieee"})


def mma(version: int) -> MmaLayout:
    return MmaLayout(version, (4, 1), (16, 64) if version == 3 else (16, 8))


def test_row_wgmma():
    assert dot_instruction(dot_with_result(mma(3)), Target("sm_90a")) == "wgmma"


def test_row_mma_sync():
    for arch in ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"):
        assert dot_instruction(dot_with_result(mma(2)), Target(arch)) == "mma.sync"


@pytest.mark.parametrize("layout", [BLOCKED, SliceLayout(2, BlockedLayout((1, 1, 1), (4, 8, 1), (4, 1, 1), (2, 1, 0)))])
def test_row_fma(layout):
    for arch in ("sm_80", "sm_90", "sm_90a"):
        assert dot_instruction(dot_with_result(layout), Target(arch)) == "fma"


def test_wgmma_layout_on_a_target_without_wgmma_is_an_internal_error():
    with pytest.raises(InternalCompilerError, match="needs wgmma, which the target sm_90 .* does not have"):
        dot_instruction(dot_with_result(mma(3)), Target("sm_90"))


def test_unknown_mma_version_is_an_internal_error():
    with pytest.raises(InternalCompilerError, match="mma layout of version 1"):
        dot_instruction(dot_with_result(mma(1)), Target("sm_90a"))


def test_each_instruction_has_its_lowering():
    assert LOWER_DOT == {"fma": lower_fma_dot, "mma.sync": lower_mma_dot, "wgmma": lower_wgmma_dot}
