"""Op facts on the op definitions (ir/ops.py, ir/ttg_ops.py): traits, memory effects, shared
effects and scratch sizes, and their queries."""
from __future__ import annotations

import pytest

import tritonc.ir.ttg_ops  # noqa: F401  (registers the ttg ops)
from tritonc.ir.effects import READ_GLOBAL, RECURSIVE, WRITE_GLOBAL
from tritonc.ir.ops import (TRAITS, OpDef, VerifyError, all_opdefs, has_shared_effects, has_trait, is_read_only,
                            memory_effects, scratch_bytes, shared_effects)
from tritonc.ir.parser import parse_module


def with_trait(trait: str) -> set[str]:
    return {name for name in all_opdefs() if has_trait(name, trait)}


ARITH_MATH = {n for n in all_opdefs() if n.startswith(("arith.", "math."))}


def test_elementwise_ops_are_arith_and_math():
    assert with_trait("elementwise") == ARITH_MATH


def test_same_layout_ops():
    assert with_trait("same-layout") == ARITH_MATH | {
        "tt.addptr", "tt.ptr_to_int", "tt.int_to_ptr", "tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas",
        "tt.splat", "tt.make_range"}


def test_commutative_ops():
    assert with_trait("commutative") == {"arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
                                         "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.addf",
                                         "arith.mulf", "arith.maxnumf", "arith.minnumf"}


def test_cheap_ops_are_integer_arithmetic_and_register_moves():
    assert with_trait("cheap") == {
        "tt.make_range", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.trans", "tt.addptr", "arith.constant",
        "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
        "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui", "arith.maxsi",
        "arith.minsi", "arith.maxui", "arith.minui", "arith.cmpi", "arith.select", "arith.extsi", "arith.extui",
        "arith.trunci"}


def test_control_flow_and_terminators():
    assert with_trait("control-flow") == {"scf.for", "scf.while", "scf.if", "scf.yield", "scf.condition"}
    assert with_trait("terminator") == {"tt.return", "scf.yield", "scf.condition"}


def test_memory_effects():
    assert memory_effects("tt.load") == (READ_GLOBAL,)
    assert memory_effects("tt.atomic_rmw") == (READ_GLOBAL, WRITE_GLOBAL)
    assert memory_effects("scf.for") == RECURSIVE
    assert memory_effects("tt.call") is None
    assert memory_effects("arith.addi") == ()
    assert {n for n in all_opdefs() if is_read_only(n)} == {"tt.load", "ttg.local_load"}


def test_every_pure_op_has_no_memory_effects():
    for name, opdef in all_opdefs().items():
        if opdef.pure:
            assert opdef.effects == (), name


def test_ops_with_shared_effects():
    assert {n for n in all_opdefs() if has_shared_effects(n)} == {
        "ttg.local_alloc", "ttg.local_load", "ttg.local_store", "ttg.memdesc_subview", "ttg.memdesc_trans",
        "ttg.memdesc_subslice", "ttg.async_copy_global_to_local", "ttg.async_wait"}


@pytest.mark.parametrize("query", [lambda n: has_trait(n, "elementwise"), is_read_only, memory_effects,
                                   has_shared_effects])
def test_an_unknown_op_name_is_an_error(query):
    with pytest.raises(VerifyError, match="unknown operation 'arith.add'"):
        query("arith.add")


def test_an_unknown_trait_is_an_error():
    with pytest.raises(ValueError, match="unknown op trait 'pur'"):
        has_trait("arith.addi", "pur")
    with pytest.raises(ValueError, match="unknown trait"):
        OpDef("test.bad", traits={"elementwise", "fast"})
    with pytest.raises(ValueError, match="a pure op has no memory effects"):
        OpDef("test.bad", effects=(READ_GLOBAL,))


MODULE = """#b0 = #ttg.blocked<size_per_thread=[1, 1], threads_per_warp=[1, 32], warps_per_cta=[4, 1], order=[1, 0]>
#b1 = #ttg.blocked<size_per_thread=[1, 1], threads_per_warp=[32, 1], warps_per_cta=[1, 4], order=[0, 1]>
#s0 = #ttg.slice<dim=0, parent=#b0>
#s1 = #ttg.slice<dim=1, parent=#b0>
module attributes {num_warps = 4} {
  tt.func @k(%x: f32[64, 32] #b0) attributes {device} {
    %rows = tt.reduce %x {axis = 0, combine = "addf"} : f32[32] #s0
    %cols = tt.reduce %x {axis = 1, combine = "addf"} : f32[64] #s1
    %t = ttg.convert_layout %x : f32[64, 32] #b1
    %same = ttg.convert_layout %x : f32[64, 32] #b0
    tt.return
  }
}
"""


def test_scratch_sizes_from_layouts():
    module = parse_module(MODULE)
    ops = {op.result.name: op for op in module.functions[0].walk() if op.results}
    # along axis 0 the 4 warps hold partials: 32 results x 4 warps x 4 bytes
    assert scratch_bytes(ops["rows"]) == 32 * 4 * 4
    # along axis 1 one warp holds each row: no cross-warp stage
    assert scratch_bytes(ops["cols"]) == 0
    # a real conversion goes through one copy of the tile, its 128-byte rows padded by 16 bytes
    # against bank conflicts; an identity conversion needs none
    assert scratch_bytes(ops["t"]) == 64 * (32 + 4) * 4
    assert scratch_bytes(ops["same"]) == 0
    assert shared_effects(ops["t"]) == []


def test_traits_are_documented():
    assert all(TRAITS.values())


def test_redistribution_rows_padded_only_where_they_would_conflict():
    """Rows of a multiple of 128 bytes (every row on the same bank) get 16 bytes more; other
    rows, 1-D tiles and reshapes (both sides share the unpadded linear index) none."""
    from tritonc.ir.scratch import redistribution_strides
    from tritonc.ir.types import F16, F32, I64, TileType

    def strides(element, shape, select):
        t = TileType(element, shape, None)
        return redistribution_strides(t, t, select)

    assert strides(F16, (128, 256), [0, 1]) == ((264, 1), 128 * 264)
    assert strides(F32, (32, 32), [0, 1]) == ((36, 1), 32 * 36)
    assert strides(I64, (4, 16), [0, 1]) == ((18, 1), 4 * 18)
    assert strides(F16, (64, 32), [0, 1]) == ((32, 1), 64 * 32)  # 64-byte rows
    assert strides(F32, (1024,), [0]) == ((1,), 1024)
    assert strides(F32, (32, 32), None) == ((32, 1), 32 * 32)  # tt.reshape


def test_redistribution_column_major_for_stores_along_the_rows():
    """An mma accumulator (pairs along the columns) converted to a layout that reads 8 rows a
    thread (a store contiguous along the rows: NCHW output) gets a column-major scratch, its
    columns padded; the other way round, and a blocked transpose (4-element runs both ways),
    keep row major."""
    from tritonc.ir.layouts import BlockedLayout, MmaLayout
    from tritonc.ir.scratch import redistribution_order, redistribution_strides
    from tritonc.ir.types import F16, F32, TileType

    mma = TileType(F16, (128, 128), MmaLayout(3, (4, 1), (16, 128)))
    down = TileType(F16, (128, 128), BlockedLayout((8, 1), (16, 2), (1, 4), (0, 1)))
    assert redistribution_order(mma, down, [0, 1]) == (0, 1)
    assert redistribution_strides(mma, down, [0, 1]) == ((1, 136), 136 * 128)
    across = TileType(F16, (128, 128), BlockedLayout((1, 8), (2, 16), (4, 1), (1, 0)))
    assert redistribution_order(mma, across, [0, 1]) == (1, 0)
    assert redistribution_order(down, mma, [0, 1]) == (1, 0)
    rows = TileType(F32, (64, 64), BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0)))
    cols = TileType(F32, (64, 64), BlockedLayout((4, 1), (8, 4), (1, 4), (0, 1)))
    assert redistribution_order(rows, cols, [0, 1]) == (1, 0)