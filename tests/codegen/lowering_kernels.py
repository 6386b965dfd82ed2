"""The hand-written tt-level kernels covering every op family of the LLVM lowering, with
what it takes to run them: their IR is in ``tests/lowering/<family>/<name>.ttgir`` (FileCheck
tests of the PTX and LLVM IR there), read here by name.

Shared by ``tests/codegen/test_lowering.py`` (CPU: :data:`LOWERING_PASSES` -> lowering -> PTX ->
cubin) and ``tests/gpu/test_lowering_gpu.py`` (the same kernels run on a GPU against numpy).
Imports nothing from the frontend. Each :class:`Kernel` has the IR, and for the GPU test a
grid, an argument factory and a check.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

#: The lowering test files, one folder per op family.
LOWERING_TESTS = Path(__file__).resolve().parents[1] / "lowering"


@dataclass
class Kernel:
    name: str
    ir: str
    #: (grid, args) from a numpy Generator; args: np arrays (pointer params) or np scalars.
    make: Callable[[np.random.Generator], tuple[tuple[int, ...], list[Any]]] | None = None
    #: check(inputs_before, arrays_after): raises AssertionError on a mismatch.
    check: Callable[[list[Any], list[Any]], None] | None = None


KERNELS: dict[str, Kernel] = {}

#: The passes from these tt kernels to lowerable ttg IR: layouts, then the shared-memory plan.
LOWERING_PASSES = ("assign-layouts", "remove-layout-conversions", "allocate-shared", "insert-barriers")


def kernel(name: str, ir: str, make=None, check=None):
    KERNELS[name] = Kernel(name, ir, make, check)


def _ir(name: str) -> str:
    """The IR of kernel ``name``: ``tests/lowering/*/<name>.ttgir``."""
    paths = sorted(LOWERING_TESTS.glob(f"*/{name}.ttgir"))
    if len(paths) != 1:
        raise FileNotFoundError(f"expected one tests/lowering/*/{name}.ttgir, found {len(paths)}")
    return paths[0].read_text(encoding="utf-8")


def poison(shape, dtype):
    """An output buffer full of garbage (NaN for floats), so unwritten elements show."""
    a = np.empty(shape, dtype=dtype)
    if np.issubdtype(a.dtype, np.floating):
        a.fill(np.nan)
    else:
        a.view(np.uint8).fill(0xA5)
    return a


def close(a, b, rtol=1e-5, atol=1e-6, what=""):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                               rtol=rtol, atol=atol, err_msg=what)


# --------------------------------------------------------------------------- vector add
kernel("vadd", _ir("vadd"),
    make=lambda g: (lambda n: ((-(-n // 1024),), [g.standard_normal(n).astype(np.float32),
                                                  g.standard_normal(n).astype(np.float32),
                                                  poison(n + 5, np.float32), np.int32(n)]))(3 * 1024 + 77),
    check=lambda i, o: (close(o[2][:i[3]], i[0] + i[1]), np.testing.assert_(np.isnan(o[2][i[3]:]).all())))

# --------------------------------------------------------------------------- softmax rows


def _softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


kernel("softmax_w2", _ir("softmax_w2"),
       make=lambda g: ((3,), [(g.standard_normal((48, 50)) * 3).astype(np.float32), poison((48, 50), np.float32),
                              np.int32(50)]),
       check=lambda i, o: close(o[1], _softmax_ref(i[0].astype(np.float64)), rtol=1e-5, atol=1e-6))
kernel("softmax", _ir("softmax"),
       make=lambda g: ((3,), [(g.standard_normal((48, 50)) * 3).astype(np.float32), poison((48, 50), np.float32),
                              np.int32(50)]),
       check=lambda i, o: close(o[1], _softmax_ref(i[0].astype(np.float64)), rtol=1e-5, atol=1e-6))

# --------------------------------------------------------------------------- 2-D helpers


# --------------------------------------------------------------------------- transpose
kernel("transpose", _ir("transpose"),
    make=lambda g: ((3, 2), [g.standard_normal((70, 45)).astype(np.float32), poison((45, 70), np.float32),
                             np.int32(70), np.int32(45)]),
    check=lambda i, o: close(o[1], i[0].T, rtol=0, atol=0))

# Z = X + X^T: one tile needed in two layouts, so one operand goes through shared memory.
kernel("add_transposed", _ir("add_transposed"),
    make=lambda g: ((1,), [g.standard_normal((30, 30)).astype(np.float32), poison((30, 30), np.float32), np.int32(30)]),
    check=lambda i, o: close(o[1], i[0] + i[0].T, rtol=0, atol=0))

# --------------------------------------------------------------------------- row / column sums
kernel("row_col_sums", _ir("row_col_sums"),
    make=lambda g: ((1,), [g.standard_normal((50, 30)).astype(np.float32), poison(50, np.float32), poison(30, np.float32),
                           poison(1, np.float32), np.int32(50), np.int32(30)]),
    check=lambda i, o: (close(o[1], i[0].sum(1), 1e-5, 1e-5), close(o[2], i[0].sum(0), 1e-5, 1e-5),
                        close(o[3][0], i[0].sum(), 1e-5, 1e-4)))

# --------------------------------------------------------------------------- matmul (f16 in, f32 acc)


def _matmul_make(g):
    M, N, K = 70, 45, 40
    a = g.standard_normal((M, K)).astype(np.float16)
    b = g.standard_normal((K, N)).astype(np.float16)
    return (3, 2), [a, b, poison((M, N), np.float32), np.int32(M), np.int32(N), np.int32(K)]


kernel("matmul_64x64x32_w8", _ir("matmul_64x64x32_w8"), make=_matmul_make,
       check=lambda i, o: close(o[2], i[0].astype(np.float32) @ i[1].astype(np.float32), 1e-4, 1e-4))
kernel("matmul_16x64x16_w1", _ir("matmul_16x64x16_w1"),
       make=lambda g: ((lambda grid, args: ((5, 1), args))(*_matmul_make(g))),
       check=lambda i, o: close(o[2], i[0].astype(np.float32) @ i[1].astype(np.float32), 1e-4, 1e-4))
kernel("matmul", _ir("matmul"), make=_matmul_make,
       check=lambda i, o: close(o[2], i[0].astype(np.float32) @ i[1].astype(np.float32), 1e-4, 1e-4))

# --------------------------------------------------------------------------- batched integer dot
kernel("dot_i8_batched", _ir("dot_i8_batched"),
    make=lambda g: ((1,), [g.integers(-128, 128, (16, 8, 2)).astype(np.int8), g.integers(-128, 128, (8, 16, 2)).astype(np.int8),
                           poison((16, 16, 2), np.int32)]),
    check=lambda i, o: np.testing.assert_array_equal(
        o[2], np.einsum("mkb,knb->mnb", i[0].astype(np.int32), i[1].astype(np.int32)) + 7))

# --------------------------------------------------------------------------- scf.while, scf.if
kernel("while_if", _ir("while_if"),
    make=lambda g: ((4,), [g.standard_normal(512).astype(np.float32), poison(512, np.float32), np.int32(5)]),
    check=lambda i, o: close(o[1], np.where((np.arange(512) // 128) % 2 == 1, 2, -1) * (i[0] + 15), 1e-6, 1e-5))

# --------------------------------------------------------------------------- atomics
def _atomics_check(i, o):
    n = int(i[4])
    buckets = np.arange(n) % 8
    # i32 counters: each element incremented its bucket exactly once; the old values of a
    # bucket are a permutation of 0..count-1 (every register, replicas included, got one).
    counts = np.bincount(buckets, minlength=8)
    np.testing.assert_array_equal(o[1], i[1] + counts)
    for j in range(8):
        olds = np.sort(o[2][:n][buckets == j] - i[1][j])
        np.testing.assert_array_equal(olds, np.arange(counts[j]))
    close(o[3], i[3] + np.bincount(buckets, weights=i[0][:n], minlength=8), 1e-5, 1e-4)
    np.testing.assert_(np.isnan(o[2][n:]).all() if o[2].dtype.kind == "f" else True)


kernel("atomics", _ir("atomics"),
    make=lambda g: ((5,), [g.standard_normal(300).astype(np.float32), np.arange(8, dtype=np.int32) * 1000,
                           poison(310, np.int32), g.standard_normal(8).astype(np.float32), np.int32(300)]),
    check=_atomics_check)


def _minmax_check(i, o):
    x, ix = i[0], i[1]
    np.testing.assert_array_equal(o[2][0], max(i[2][0], ix.max()))
    np.testing.assert_array_equal(o[2][1], min(i[2][1], ix.min()))
    np.testing.assert_array_equal(o[3][0], max(i[3][0], x.max()))
    np.testing.assert_array_equal(o[3][1], min(i[3][1], x.min()))
    slot_max = [ix.view(np.uint32)[np.arange(256) % 4 == j].max() for j in range(4)]
    np.testing.assert_array_equal(o[4].view(np.uint32), np.maximum(i[4].view(np.uint32), slot_max))
    # cas: slots equal to 0 get i+1, others keep their value; OLDC receives the old slot values
    expect = np.where(i[5] == 0, np.arange(256, dtype=np.int32) + 1, i[5])
    np.testing.assert_array_equal(o[5], expect)
    np.testing.assert_array_equal(o[6], i[5])


kernel("atomic_minmax_cas", _ir("atomic_minmax_cas"),
    make=lambda g: ((1,), [g.standard_normal(256).astype(np.float32), g.integers(-10 ** 6, 10 ** 6, 256).astype(np.int32),
                           np.array([-5, 5], dtype=np.int32), np.array([-0.5, 0.5], dtype=np.float32),
                           np.zeros(4, dtype=np.int32), np.where(np.arange(256) % 3 == 0, 0, 99).astype(np.int32),
                           poison(256, np.int32)]),
    check=_minmax_check)

kernel("spin_lock", _ir("spin_lock"),
    make=lambda g: ((64,), [np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)]),
    check=lambda i, o: (np.testing.assert_array_equal(o[1], [64]), np.testing.assert_array_equal(o[0], [0]),
                        np.testing.assert_array_equal(o[3], [0])))

# --------------------------------------------------------------------------- casts
_CASTS = [  # (output name, IR element, numpy dtype, op, source value, source numpy)
    ("h", "f16", np.float16, "arith.truncf", "x"),
    ("bf", "bf16", "bfloat16", "arith.truncf", "x"),
    ("d", "f64", np.float64, "arith.extf", "x"),
    ("i8", "i8", np.int8, "arith.fptosi", "x"),
    ("u8", "i8", np.uint8, "arith.fptoui", "ax"),
    ("i16", "i16", np.int16, "arith.fptosi", "x"),
    ("i64", "i64", np.int64, "arith.fptosi", "x"),
    ("u32", "i32", np.uint32, "arith.fptoui", "ax"),
    ("hf", "f32", np.float32, "arith.extf", "h"),
    ("bff", "f32", np.float32, "arith.extf", "bf"),
    ("i8f", "f32", np.float32, "arith.sitofp", "i8"),
    ("u8f", "f32", np.float32, "arith.uitofp", "u8"),
    ("u8i", "i32", np.int32, "arith.extui", "u8"),
    ("i8i", "i32", np.int32, "arith.extsi", "i8"),
    ("u32d", "f64", np.float64, "arith.uitofp", "u32"),
    ("i64t", "i16", np.int16, "arith.trunci", "big"),
    ("bigh", "f16", np.float16, "arith.sitofp", "big32"),
    ("bigbf", "bf16", "bfloat16", "arith.sitofp", "big32"),
    ("dh", "f16", np.float16, "arith.truncf", "dd"),
    ("dbf", "bf16", "bfloat16", "arith.truncf", "dd"),
    ("dxf", "f32", np.float32, "arith.truncf", "dd"),
    ("hd", "f64", np.float64, "arith.extf", "h"),
    ("bfd", "f64", np.float64, "arith.extf", "bf"),
    ("xbits", "i32", np.int32, "arith.bitcast", "x"),
]


def _np_dtype(d):
    if d == "bfloat16":
        import ml_dtypes
        return ml_dtypes.bfloat16
    return d


def _casts_make(g):
    # fptosi/fptoui of values out of the target's range are undefined: stay inside i8.
    x = np.clip(g.standard_normal(256) * 50, -127.9, 127.9).astype(np.float32)
    x[:4] = [0.5, -0.5, 100.75, -127.9]
    big = g.integers(-2 ** 62, 2 ** 62, 256, dtype=np.int64)
    big32 = g.integers(-2 ** 31, 2 ** 31 - 1, 256, dtype=np.int64).astype(np.int32)
    big32[:8] = [65504, 65519, 65520, 2049, 2051, 16777217, 33554435, -33554435]
    dd = g.standard_normal(256) * 1e3
    dd[:4] = [1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -8 + 2.0 ** -40, 1e-30, 70000.0]
    outs = [poison(256, _np_dtype(d)) for _, _, d, _, _ in _CASTS]
    return (1,), [x, big, big32, dd] + outs


def _f64_to_bf16(d):
    """Correctly rounded f64 -> bf16 (ml_dtypes goes through f32 and rounds twice): round to
    f32 *to odd* (toward zero, lowest bit set when inexact), then to nearest-even bf16."""
    import ml_dtypes
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    back = f.astype(np.float64)
    bits = f.view(np.uint32).copy()
    bits[np.abs(back) > np.abs(d)] -= 1
    bits |= (back != d).astype(np.uint32)
    return bits.view(np.float32).astype(ml_dtypes.bfloat16)


def _casts_check(i, o):
    import ml_dtypes
    x, big, big32, dd = i[0], i[1], i[2], i[3]
    ax = np.abs(x)
    vals = {"x": x, "ax": ax, "big": big, "big32": big32, "dd": dd}
    bf16 = ml_dtypes.bfloat16
    for k, (name, el, dt, op, src) in enumerate(_CASTS):
        got = o[4 + k]
        s = vals[src]
        dt = _np_dtype(dt)
        if op == "arith.bitcast":
            want = s.view(dt)
        elif op in ("arith.fptosi", "arith.fptoui"):
            want = np.trunc(s).astype(np.int64).astype(dt)
        elif op == "arith.uitofp":
            want = s.astype(np.uint64).astype(np.float64).astype(dt) if s.dtype.kind != "u" else s.astype(dt)
        elif op == "arith.extui":
            want = s.view(np.uint8 if s.dtype.itemsize == 1 else s.dtype).astype(dt)
        elif op == "arith.trunci":
            want = s.astype(dt)
        elif dt is bf16 and s.dtype in (np.int32, np.float64):
            want = _f64_to_bf16(s.astype(np.float64))   # int32 -> f64 is exact
        else:
            with np.errstate(over="ignore"):
                want = s.astype(dt)
        vals[name] = got
        if dt is bf16:
            np.testing.assert_array_equal(got.view(np.uint16), np.asarray(want, dtype=bf16).view(np.uint16), err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


kernel("casts", _ir("casts"), make=_casts_make, check=_casts_check)

# --------------------------------------------------------------------------- integer ops, signed/unsigned
_INT_OPS = ["arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.shrsi", "arith.shrui", "arith.maxui",
            "arith.minsi", "arith.maxsi", "arith.minui", "arith.muli", "arith.addi", "arith.subi", "arith.xori",
            "arith.shli"]


def _intops_make(dt):
    def make(g):
        info = np.iinfo(dt)
        a = g.integers(info.min, info.max, 128, endpoint=True).astype(dt)
        b = g.integers(info.min, info.max, 128, endpoint=True).astype(dt)
        b[b == 0] = 3
        b[:4] = [-1, 1, -3, 7]
        a[:4] = [info.min, -7, 7, -1]
        s = g.integers(0, info.bits, 128).astype(dt)
        return (1,), [a, b, s] + [poison(128, dt) for _ in range(len(_INT_OPS) + 5)]
    return make


def _intops_check(dt):
    def check(i, o):
        udt = np.dtype(dt).str.replace("i", "u")
        a, b, s = i[0], i[1], i[2]
        ua, ub = a.view(udt), b.view(udt)
        bits = np.iinfo(dt).bits
        with np.errstate(all="ignore"):
            q = np.trunc(a.astype(np.float64) / b.astype(np.float64))
            q = np.where((a == np.iinfo(dt).min) & (b == -1), a.astype(np.float64), q)  # wraps (undefined in C; skip)
            sdiv = q.astype(np.int64).astype(dt)
            srem = (a.astype(np.int64) - sdiv.astype(np.int64) * b.astype(np.int64)).astype(dt)
            wants = [sdiv, (ua // ub).view(dt), srem, (ua % ub).view(dt), a >> s, (ua >> s.view(udt)).view(dt),
                     np.maximum(ua, ub).view(dt), np.minimum(a, b), np.maximum(a, b), np.minimum(ua, ub).view(dt),
                     (a.astype(np.int64) * b.astype(np.int64)).astype(dt), (a.astype(np.int64) + b).astype(dt),
                     (a.astype(np.int64) - b).astype(dt), a ^ b, (a.astype(np.int64) << s.astype(np.int64)).astype(dt),
                     np.where(ua < ub, a, b), np.where(a < b, a, b), np.where(ua >= ub, a, b), np.where(a <= b, a, b),
                     np.abs(a.astype(np.int64)).astype(dt)]
        skip = (a == np.iinfo(dt).min) & (b == -1)
        for k, w in enumerate(wants):
            got = o[3 + k]
            if k in (0, 2):
                got, w = got[~skip], w[~skip]
            np.testing.assert_array_equal(got, w, err_msg=f"{_INT_OPS[k] if k < len(_INT_OPS) else k} {dt}")
    return check


for _dt, _el in ((np.int32, "i32"), (np.int8, "i8"), (np.int64, "i64"), (np.int16, "i16")):
    kernel(f"intops_{_el}", _ir(f"intops_{_el}"), make=_intops_make(_dt), check=_intops_check(_dt))

# --------------------------------------------------------------------------- math
_MATH = ["math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "math.sin", "math.cos",
         "math.floor", "math.ceil", "math.absf"]


def _math_make(dt):
    def make(g):
        x = (g.standard_normal(256) * 20).astype(dt)
        x[:8] = [0.0, -0.0, 88.0, -100.0, 1e-3, 3.0, np.inf, -np.inf] if dt != np.float16 else [0, -0.0, 8, -8, 1e-3, 3, 11, -11]
        pos = np.abs(g.standard_normal(256) * 100).astype(dt)
        pos[:6] = [1.0, 0.0, 1e-30 if dt != np.float16 else 1e-7, 2.0 ** 20 if dt != np.float16 else 1024, np.inf, 1 + 1e-6]
        return (1,), [x, pos] + [poison(256, dt) for _ in range(len(_MATH) + 1)]
    return make


def _math_check(dt):
    def check(i, o):
        x, pos = i[0].astype(np.float64), i[1].astype(np.float64)
        with np.errstate(all="ignore"):
            refs = [np.exp(x), np.exp2(x), np.log(pos), np.log2(pos), np.sqrt(pos), 1 / np.sqrt(pos), np.sin(x), np.cos(x),
                    np.floor(x), np.ceil(x), np.abs(x), x * pos + x]
        tol = {np.float64: 1e-13, np.float32: 4e-6, np.float16: 2e-3}[dt]
        for k, ref in enumerate(refs):
            got = o[2 + k].astype(np.float64)
            name = _MATH[k] if k < len(_MATH) else "math.fma"
            fin = np.isfinite(ref)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=name)
            np.testing.assert_array_equal(got[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)].astype(dt), err_msg=name)
            with np.errstate(over="ignore"):
                r = ref[fin].astype(dt).astype(np.float64)
            # exp/exp2 flush f32 results below 2^-126 to zero (-fexp-ftz, the default)
            atol = {"math.sin": 2e-6, "math.cos": 2e-6, "math.exp": 2.0 ** -126,
                    "math.exp2": 2.0 ** -126}.get(name, 0) if dt == np.float32 else 0
            if dt == np.float64 and name in ("math.sin", "math.cos"):
                atol = 1e-15
            np.testing.assert_allclose(got[fin], r, rtol=tol, atol=atol + 1e-300, err_msg=name)
    return check


for _dt, _el in ((np.float32, "f32"), (np.float64, "f64"), (np.float16, "f16")):
    kernel(f"math_{_el}", _ir(f"math_{_el}"), make=_math_make(_dt), check=_math_check(_dt))

# --------------------------------------------------------------------------- replicated layouts
kernel("replicated", _ir("replicated"),
    make=lambda g: ((1,), [g.standard_normal(16).astype(np.float32), poison(16, np.float32), poison(1, np.float32),
                           np.zeros(1, np.int32), poison(16, np.int32), np.int32(13)]),
    check=lambda i, o: (close(o[1][:13], i[0][:13] * 2, 0, 0), np.testing.assert_(np.isnan(o[1][13:]).all()),
                        close(o[2][0], np.concatenate([i[0][:13], np.ones(3, np.float32)]).sum()
                              + max(i[0][:13].max(), 1.0), 1e-5, 1e-5),
                        np.testing.assert_array_equal(o[3], [13]),
                        np.testing.assert_array_equal(np.sort(o[4][:13]), np.arange(13))))

# --------------------------------------------------------------------------- scalar params, 3-D grid, reshape
kernel("scalars_grid", _ir("scalars_grid"),
    make=lambda g: ((2, 3, 4), [poison(24, np.float32), poison(24 * 4 + 24 * 4, np.int32), np.uint8(1), np.float16(1.5),
                                np.uint16(0x4040), np.int64(-(2 ** 40)), np.float64(0.25)]),
    check=lambda i, o: (close(o[0], np.full(24, 1.5 + 3.0 - 2.0 ** 40 + 0.25, np.float32), 0, 0),
                        np.testing.assert_array_equal(o[1][:96], np.repeat(np.arange(24), 4)),
                        np.testing.assert_array_equal(o[1][96::4], 4 * np.arange(24) * 4 + 6)))

# --------------------------------------------------------------------------- reductions of every type
_RED = {"i32": ["addi", "muli", "maxsi", "minui", "andi", "ori", "xori"], "i64": ["addi", "maxsi", "minui", "xori"],
        "i8": ["addi", "maxsi", "minui"], "f16": ["maxnumf", "minnumf"], "f32": ["addf", "maxnumf"],
        "f64": ["addf", "minnumf"]}
_NP = {"i32": np.int32, "i64": np.int64, "i8": np.int8, "f16": np.float16, "f32": np.float32, "f64": np.float64}


def _reduce_make(el):
    def make(g):
        dt = _NP[el]
        if dt in (np.float16, np.float32, np.float64):
            x = g.standard_normal((8, 64)).astype(dt)
        else:
            info = np.iinfo(dt)
            x = g.integers(info.min, info.max, (8, 64), endpoint=True).astype(dt)
        outs = [poison(64 if k % 2 == 0 else 8, dt) for k in range(2 * len(_RED[el]))]
        return (1,), [x] + outs
    return make


def _reduce_check(el):
    def check(i, o):
        x = i[0]
        u = x.view(x.dtype.str.replace("i", "u")) if x.dtype.kind == "i" else x
        k = 0
        for comb in _RED[el]:
            for axis in (0, 1):
                with np.errstate(all="ignore"):
                    want = {"addi": lambda: x.sum(axis, dtype=x.dtype), "muli": lambda: x.prod(axis, dtype=x.dtype),
                            "maxsi": lambda: x.max(axis), "minui": lambda: u.min(axis).view(x.dtype),
                            "andi": lambda: np.bitwise_and.reduce(x, axis), "ori": lambda: np.bitwise_or.reduce(x, axis),
                            "xori": lambda: np.bitwise_xor.reduce(x, axis), "maxnumf": lambda: x.max(axis),
                            "minnumf": lambda: x.min(axis),
                            "addf": lambda: x.astype(np.float64).sum(axis)}[comb]()
                if comb == "addf":
                    close(o[1 + k], want, 1e-5, 1e-5, f"{el} {comb} {axis}")
                else:
                    np.testing.assert_array_equal(o[1 + k], want, err_msg=f"{el} {comb} {axis}")
                k += 1
    return check


for _el in _RED:
    kernel(f"reduce_{_el}", _ir(f"reduce_{_el}"), make=_reduce_make(_el), check=_reduce_check(_el))

# --------------------------------------------------------------------------- masked loads/stores of every type
_LS = ["i8", "i16", "i64", "f16", "bf16", "f64", "i1"]


def _ls_make(g):
    import ml_dtypes
    args = []
    for el in _LS:
        if el == "i1":
            v = (g.integers(0, 2, 64)).astype(np.uint8)
        elif el == "bf16":
            v = g.standard_normal(64).astype(ml_dtypes.bfloat16)
        elif el.startswith("f"):
            v = g.standard_normal(64).astype(_NP.get(el, np.float16))
        else:
            dt = {"i8": np.int8, "i16": np.int16, "i64": np.int64}[el]
            v = g.integers(np.iinfo(dt).min, np.iinfo(dt).max, 64).astype(dt)
        args += [v, poison(64, v.dtype)]
    return (1,), args


def _ls_check(i, o):
    import ml_dtypes
    for k, el in enumerate(_LS):
        src, out = i[2 * k], o[2 * k + 1]
        other = {"i1": 1, "bf16": -2.5, "f16": -2.5, "f64": -2.5}.get(el, 7)
        want = src.copy()
        want[37:] = np.asarray(other).astype(src.dtype)
        if el == "bf16":
            np.testing.assert_array_equal(out.view(np.uint16), want.view(np.uint16), err_msg=el)
        else:
            np.testing.assert_array_equal(out, want, err_msg=el)


kernel("loads_stores", _ir("loads_stores"), make=_ls_make, check=_ls_check)


def _wl_make(g):
    return (1,), [g.standard_normal(128).astype(np.float16), np.full(128, -1, np.int32)]


def _wl_check(i, o):
    """The halves' bits zero-extended (0 past element 100, the masked-off ``other``)."""
    want = i[0].view(np.uint16).astype(np.int32)
    want[100:] = 0
    np.testing.assert_array_equal(o[1], want)


kernel("widened_load", _ir("widened_load"), make=_wl_make, check=_wl_check)

# an f16 mma accumulator stored transposed (Y[n, m]): the conversion's column-major scratch
kernel("mma_to_rows", _ir("mma_to_rows"),
    make=lambda g: ((1,), [g.integers(-3, 4, (64, 16)).astype(np.float16), g.integers(-3, 4, (16, 64)).astype(np.float16),
                           poison((64, 64), np.float16)]),
    check=lambda i, o: np.testing.assert_array_equal(
        o[2], (i[0].astype(np.float32) @ i[1].astype(np.float32)).T.astype(np.float16)))

# --------------------------------------------------------------------------- small f32/f64 dots, nested loops


def _dot_make(dt, M, N, K):
    return lambda g: ((1,), [g.integers(-4, 5, (M, K)).astype(dt), g.integers(-4, 5, (K, N)).astype(dt),
                             g.integers(-4, 5, (M, N)).astype(dt), np.int32(4)])


def _dot_check(i, o):
    a, b, c = (x.astype(np.float64) for x in i[:3])
    np.testing.assert_array_equal(o[2], (c + 6 * (a @ b)).astype(i[2].dtype))  # 0+1+2+3 inner trips


kernel("dot_f32", _ir("dot_f32"), make=_dot_make(np.float32, 16, 16, 16), check=_dot_check)
kernel("dot_f64", _ir("dot_f64"), make=_dot_make(np.float64, 64, 8, 8), check=_dot_check)

# --------------------------------------------------------------------------- more atomics: xchg, f16/f64 adds, replicated cas
kernel("atomics_more", _ir("atomics_more"),
    make=lambda g: ((1,), [g.integers(0, 99, 32).astype(np.int32), poison(32, np.int32), np.zeros(4, np.float16),
                           np.zeros(4, np.float64), np.zeros(4, np.int32), poison(32, np.int32)]),
    check=lambda i, o: (np.testing.assert_array_equal(o[1], i[0]), np.testing.assert_array_equal(o[0], np.arange(32) + 100),
                        np.testing.assert_array_equal(o[2], np.full(4, 4.0, np.float16)),
                        np.testing.assert_array_equal(o[3], [sum(range(j, 32, 4)) for j in range(4)]),
                        [np.testing.assert_(o[4][j] in (o[5][j::4] * 0 + np.arange(j, 32, 4) + 1))
                         for j in range(4)],
                        [np.testing.assert_array_equal(np.sort(o[5][j::4])[1:], np.sort(o[5][j::4])[1:] * 0 + o[4][j])
                         for j in range(4)],
                        [np.testing.assert_(np.sort(o[5][j::4])[0] == 0) for j in range(4)]))

# --------------------------------------------------------------------------- > 48 KiB of shared memory
kernel("big_add_transposed", _ir("big_add_transposed"),
    make=lambda g: ((1,), [g.standard_normal((120, 120)).astype(np.float32), poison((120, 120), np.float32), np.int32(120)]),
    check=lambda i, o: close(o[1], i[0] + i[0].T, rtol=0, atol=0))
