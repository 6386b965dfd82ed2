"""Tile ops: make_range, splat, broadcast, expand_dims, reshape, trans, reduce, dot."""
import ml_dtypes
import numpy as np
import pytest

from interp_helpers import IR_TYPE, kernel, load_tile, run, store_tile, tile_type

BF16 = ml_dtypes.bfloat16


def unary_tile_kernel(el_in: str, shape_in, el_out: str, shape_out, ops: str, result: str = "%y") -> str:
    body = "\n".join([load_tile("%px", el_in, shape_in, "x"), ops, store_tile("%po", el_out, shape_out, result)])
    return kernel(f"%px: ptr<{el_in}>, %po: ptr<{el_out}>", body)


def test_trans_3d_order_is_numpy_transpose():
    x = np.arange(64, dtype=np.float32).reshape(2, 4, 8)
    y = np.zeros((8, 2, 4), np.float32)
    run(unary_tile_kernel("f32", x.shape, "f32", y.shape,
                          "    %y = tt.trans %x {order = [2, 0, 1]} : f32[8,2,4]"), 1, x, y)
    assert (y == x.transpose(2, 0, 1)).all()


def test_trans_2d_and_reshape():
    x = np.arange(32, dtype=np.int16).reshape(4, 8)
    y = np.zeros((8, 4), np.int16)
    run(unary_tile_kernel("i16", x.shape, "i16", y.shape, "    %y = tt.trans %x {order = [1, 0]} : i16[8,4]"), 1, x, y)
    assert (y == x.T).all()
    z = np.zeros((2, 16), np.int16)
    run(unary_tile_kernel("i16", x.shape, "i16", z.shape, "    %y = tt.reshape %x : i16[2,16]"), 1, x, z)
    assert (z == x.reshape(2, 16)).all()


def test_splat_expand_dims_broadcast():
    x = np.array([1, 2, 3, 4], np.int32)
    y = np.zeros((4, 8), np.int32)
    ops = """    %e = tt.expand_dims %x {axis = 1} : i32[4,1]
    %b = tt.broadcast %e : i32[4,8]
    %c = tt.make_range {end = 108, start = 100} : i32[8]
    %ce = tt.expand_dims %c {axis = 0} : i32[1,8]
    %cb = tt.broadcast %ce : i32[4,8]
    %s0 = arith.constant {value = 3} : i32
    %s = tt.splat %s0 : i32[4,8]
    %t = arith.muli %b, %s : i32[4,8]
    %y = arith.addi %t, %cb : i32[4,8]"""
    run(unary_tile_kernel("i32", (4,), "i32", (4, 8), ops), 1, x, y)
    assert (y == 3 * x[:, None] + np.arange(100, 108)[None, :]).all()


REDUCE_CASES = [
    ("addi", np.int32, lambda x, a: x.sum(axis=a, dtype=np.int32)),
    ("muli", np.int32, lambda x, a: x.prod(axis=a, dtype=np.int32)),
    ("maxsi", np.int32, lambda x, a: x.max(axis=a)),
    ("minsi", np.int32, lambda x, a: x.min(axis=a)),
    ("maxui", np.int32, lambda x, a: x.view(np.uint32).max(axis=a).view(np.int32)),
    ("minui", np.int32, lambda x, a: x.view(np.uint32).min(axis=a).view(np.int32)),
    ("andi", np.int32, lambda x, a: np.bitwise_and.reduce(x, axis=a)),
    ("ori", np.int32, lambda x, a: np.bitwise_or.reduce(x, axis=a)),
    ("xori", np.int32, lambda x, a: np.bitwise_xor.reduce(x, axis=a)),
    ("addf", np.float32, lambda x, a: x.astype(np.float64).sum(axis=a).astype(np.float32)),
    ("mulf", np.float32, lambda x, a: x.astype(np.float64).prod(axis=a).astype(np.float32)),
    ("maxnumf", np.float32, lambda x, a: np.fmax.reduce(x, axis=a)),
    ("minnumf", np.float32, lambda x, a: np.fmin.reduce(x, axis=a)),
]


@pytest.mark.parametrize("combine,dtype,ref", REDUCE_CASES, ids=[c[0] for c in REDUCE_CASES])
@pytest.mark.parametrize("axis", [0, 1])
def test_reduce_each_combine_and_axis(combine, dtype, ref, axis):
    rng = np.random.default_rng(1)
    if dtype == np.int32:
        x = rng.integers(-(2**31), 2**31, size=(4, 8), dtype=np.int64).astype(np.int32)
    else:
        x = rng.uniform(-2, 2, size=(4, 8)).astype(np.float32)
        x[1, 3] = np.nan  # maxnumf/minnumf ignore NaN; sums and products propagate it
    el = IR_TYPE[np.dtype(dtype)]
    out_shape = (8,) if axis == 0 else (4,)
    y = np.zeros(out_shape, dtype)
    ops = f'    %y = tt.reduce %x {{axis = {axis}, combine = "{combine}"}} : {tile_type(el, out_shape)}'
    run(unary_tile_kernel(el, x.shape, el, out_shape, ops), 1, x, y)
    expect = ref(x, axis)
    if dtype == np.float32:
        np.testing.assert_allclose(y, expect, rtol=1e-6, equal_nan=True)
    else:
        assert (y == expect).all()


def test_reduce_rank1_gives_scalar():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(2, np.float32)
    body = load_tile("%px", "f32", (16,), "x") + """
    %s = tt.reduce %x {axis = 0, combine = "addf"} : f32
    %m = tt.reduce %x {axis = 0, combine = "maxnumf"} : f32
    %one = arith.constant {value = 1} : i32
    %o1 = tt.addptr %o, %one : ptr<f32>
    tt.store %o, %s
    tt.store %o1, %m"""
    run(kernel("%px: ptr<f32>, %o: ptr<f32>", body), 1, x, y)
    assert y.tolist() == [120.0, 15.0]


def test_reduce_f16_rounds_in_f16_tree():
    x = np.full(1024, 1.0, np.float16)
    x[0] = 2048
    y = np.zeros(1, np.float16)
    body = load_tile("%px", "f16", (1024,), "x") + """
    %s = tt.reduce %x {axis = 0, combine = "addf"} : f16
    tt.store %o, %s"""
    run(kernel("%px: ptr<f16>, %o: ptr<f16>", body), 1, x, y)
    # tree sum, pairing i with i + n/2: 2048 + 1 rounds back to 2048 (f16 spacing 2 there), then
    # 2048 + 2 + 4 + ... + 512 are exact: 3070. A left fold would stay at 2048, an exact sum give 3072.
    assert y[0] == 3070


def dot_kernel(ea: str, eacc: str, sa, sb, sc, precision: str = "ieee") -> str:
    body = "\n".join([
        load_tile("%pa", ea, sa, "a"), load_tile("%pb", ea, sb, "b"), load_tile("%pc", eacc, sc, "c"),
        f'    %d = tt.dot %a, %b, %c {{input_precision = "{precision}"}} : {tile_type(eacc, sc)}',
        store_tile("%po", eacc, sc, "%d"),
    ])
    return kernel(f"%pa: ptr<{ea}>, %pb: ptr<{ea}>, %pc: ptr<{eacc}>, %po: ptr<{eacc}>", body)


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32])
def test_dot_2d_accumulates_in_f32(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 32)).astype(dtype)
    b = rng.standard_normal((32, 8)).astype(dtype)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    o = np.zeros((16, 8), np.float32)
    run(dot_kernel(IR_TYPE[np.dtype(dtype)], "f32", a.shape, b.shape, c.shape), 1, a, b, c, o)
    expect = (c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    assert (o == expect).all()


def test_dot_batched_trailing_axis():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 16, 4)).astype(np.float16)
    b = rng.standard_normal((16, 8, 4)).astype(np.float16)
    c = np.zeros((8, 8, 4), np.float32)
    o = np.zeros_like(c)
    run(dot_kernel("f16", "f32", a.shape, b.shape, c.shape), 1, a, b, c, o)
    expect = np.einsum("mkb,knb->mnb", a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(o, expect)


def test_dot_int8_wraps_in_i32_and_tf32_rounds_inputs():
    a = np.full((16, 16), -128, np.int8)
    b = np.full((16, 16), -128, np.int8)
    c = np.full((16, 16), 2**31 - 2**18, np.int32)
    o = np.zeros_like(c)
    run(dot_kernel("i8", "i32", a.shape, b.shape, c.shape), 1, a, b, c, o)
    assert (o == np.int32(-(2**31))).all()  # 2^31 - 2^18 + 16 * 2^14 wraps
    x = np.full((16, 16), 1 + 2**-12, np.float32)  # not on the TF32 grid: rounds to 1
    y = np.eye(16, dtype=np.float32)
    z = np.zeros((16, 16), np.float32)
    o = np.zeros_like(z)
    run(dot_kernel("f32", "f32", x.shape, y.shape, z.shape, "tf32"), 1, x, y, z, o)
    assert (o == 1.0).all()
    run(dot_kernel("f32", "f32", x.shape, y.shape, z.shape, "ieee"), 1, x, y, z, o)
    assert (o == np.float32(1 + 2**-12)).all()
