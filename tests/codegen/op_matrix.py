"""The op x dtype x shape x num_warps matrix (issue 11, item 6), in the manner of OpenAI
Triton's ``python/test/unit/language/test_core.py``: one small kernel per case, run in the
SIMT simulator (``test_op_matrix_sim.py``) and on the GPU (``tests/gpu/test_op_matrix_gpu.py``)
and compared with the interpreter.

Each case loads ragged tiles (``m ? *p : 0``, valid extent below the tile size), applies one
operation and stores under the same mask into a poisoned output, so a masked-off element must
keep its poison. Inputs avoid undefined behaviour: small integers, non-zero divisors, shift
amounts masked to the width. Floats: ``+ - *``, casts, comparisons, ``min``/``max``,
``floor``/``ceil``/``fabs`` are correctly rounded or exact, so they compare bit for bit;
division within 2 ulp, ``exp log sin cos rsqrt`` within their documented error; sums within
``n * u * sum|x|``; ``@`` as in ``docs/testing.md``.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

INTS = ["int8", "uint8", "int16", "uint16", "int", "uint32", "long", "uint64"]
FLOATS = ["half", "bfloat16", "float", "double"]
NP = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int": np.int32,
      "uint32": np.uint32, "long": np.int64, "uint64": np.uint64, "half": np.float16,
      "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "double": np.float64}
UNIT = {"half": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float": 2.0 ** -24, "double": 2.0 ** -53}

BINARY = {"add": "x + y", "sub": "x - y", "mul": "x * y", "div": "x / y", "mod": "x % y", "and": "x & y",
          "or": "x | y", "xor": "x ^ y", "shl": "x << (y & 3)", "shr": "x >> (y & 3)", "lt": "x < y",
          "eq": "x == y", "max": "max(x, y)", "min": "min(x, y)", "neg": "-x", "not": "~x",
          "select": "x > y ? x : y"}
INT_ONLY = {"mod", "and", "or", "xor", "shl", "shr", "not"}
MATH = {"exp": "exp(x)", "log": "log(fabs(x) + 1.0f)", "sin": "sin(x)", "cos": "cos(x)",
        "rsqrt": "rsqrt(fabs(x) + 1.0f)", "sqrt": "sqrt(fabs(x))", "floor": "floor(x)", "ceil": "ceil(x)",
        "fabs": "fabs(x)"}
#: (shape, num_warps) pairs: 1-D and 2-D, one to eight warps.
GEOMETRY = [((128,), 4), ((8, 32), 1), ((16, 16), 8)]


@dataclass
class Case:
    id: str
    source: str
    dtype: str
    out_dtype: str
    shape: tuple
    num_warps: int
    rtol: float = 0.0
    atol: float = 0.0
    nonneg: bool = False


def _geometry(shape):
    rank = len(shape)
    rs = [f"r{k}" for k in range(rank)]
    decl = "".join(f"  int r{k}[{s}] = 0 ... {s};\n" for k, s in enumerate(shape))
    idx = [("" if rank == 1 else "[" + ", ".join(":" if j == k else "newaxis" for j in range(rank)) + "]")
           for k in range(rank)]
    strides = [int(np.prod(shape[k + 1:])) for k in range(rank)]
    off = " + ".join(f"{rs[k]}{idx[k]} * {strides[k]}" for k in range(rank))
    mask = " && ".join(f"{rs[k]}{idx[k]} < E{k}" for k in range(rank))
    return decl, off, mask


def elementwise_case(name: str, expr: str, t: str, shape, warps) -> Case:
    dims = ", ".join(map(str, shape))
    decl, off, mask = _geometry(shape)
    extents = ", ".join(f"int E{k}" for k in range(len(shape)))
    out_t = "float" if name in MATH and t != "double" else t
    src = (f"__global__ void k({t} *X, {t} *Y, {out_t} *Z, {extents}) {{\n{decl}"
           f"  bool m[{dims}] = {mask};\n"
           f"  {t} x[{dims}] = m ? *(X + {off}) : 0;\n"
           f"  {t} y[{dims}] = m ? *(Y + {off}) : 1;\n"
           f"  *?(m) (Z + {off}) = {expr};\n}}\n")
    rtol = 0.0
    if t in FLOATS:
        if name == "div":
            rtol = 4 * UNIT[t]
        elif name in MATH and name not in ("floor", "ceil", "fabs", "sqrt"):
            rtol = 2.0 ** -19 if t != "double" else 2.0 ** -50
    return Case(f"{name}-{t}-{'x'.join(map(str, shape))}-w{warps}", src, t, out_t, tuple(shape), warps, rtol,
                rtol, nonneg=name in ("shl",))


def reduce_case(op: str, axis: int, t: str, shape, warps) -> Case:
    dims = ", ".join(map(str, shape))
    decl, off, mask = _geometry(shape)
    rank = len(shape)
    extents = ", ".join(f"int E{k}" for k in range(rank))
    keep = [k for k in range(rank) if k != axis]
    rshape = [shape[k] for k in keep]
    sub = "[" + ", ".join(op if k == axis else ":" for k in range(rank)) + "]"
    if keep:
        rdecl, roff, _ = _geometry(tuple(rshape))
        rdecl = rdecl.replace("int r", "int q")
        roff = roff.replace("r", "q")
        store = f"{rdecl}  *(Z + {roff}) = x{sub};\n"
    else:
        store = f"  *Z = x{sub};\n"
    neutral = {"+": "0", "max": "-100", "min": "100"}[op]
    src = (f"__global__ void k({t} *X, {t} *Y, {t} *Z, {extents}) {{\n{decl}"
           f"  bool m[{dims}] = {mask};\n"
           f"  {t} x[{dims}] = m ? *(X + {off}) : {neutral};\n{store}}}\n")
    tol = 0.0
    if t in FLOATS and op == "+":
        n = shape[axis]
        tol = 2 * n * UNIT[t] * n * 2.0
    name = {"+": "sum", "max": "max", "min": "min"}[op]
    return Case(f"reduce_{name}{axis}-{t}-{'x'.join(map(str, shape))}-w{warps}", src, t, t, tuple(shape), warps,
                0.0, tol)


def dot_case(t: str, M: int, N: int, K: int, warps: int, tf32: bool = False) -> Case:
    acc = "int" if t == "int8" else "float"
    src = (f"__global__ void k({t} *X, {t} *Y, {acc} *Z, int E0) {{\n"
           f"  int rm[{M}] = 0 ... {M};\n  int rn[{N}] = 0 ... {N};\n  int rk[{K}] = 0 ... {K};\n"
           f"  {t} a[{M}, {K}] = rk[newaxis, :] < E0 ? *(X + rm[:, newaxis] * {K} + rk[newaxis, :]) : 0;\n"
           f"  {t} b[{K}, {N}] = rk[:, newaxis] < E0 ? *(Y + rk[:, newaxis] * {N} + rn[newaxis, :]) : 0;\n"
           f"  *(Z + rm[:, newaxis] * {N} + rn[newaxis, :]) = a @ b;\n}}\n")
    tol = 0.0 if t == "int8" else 4 * K * 2.0 ** -24 * K * 4 + (K * 4 * 2 * 2.0 ** -10 if tf32 else 0)
    return Case(f"dot-{t}{'-tf32' if tf32 else ''}-{M}x{N}x{K}-w{warps}", src, t, acc, (M, N, K), warps, 0.0, tol)


def cases() -> list[Case]:
    out = []
    for shape, warps in GEOMETRY:
        for name, expr in BINARY.items():
            for t in INTS + FLOATS:
                if name in INT_ONLY and t in FLOATS:
                    continue
                out.append(elementwise_case(name, expr, t, shape, warps))
        for name, expr in MATH.items():
            for t in FLOATS:
                out.append(elementwise_case(name, expr, t, shape, warps))
        for op in ("+", "max", "min"):
            for t in ["int8", "int", "uint32", "long", "half", "float", "double"]:
                for axis in range(len(shape)):
                    out.append(reduce_case(op, axis, t, shape, warps))
    for t in ("half", "bfloat16", "float", "int8"):
        for (M, N, K), warps in (((16, 16, 16), 1), ((32, 64, 32), 4), ((64, 32, 64), 8)):
            out.append(dot_case(t, M, N, K, warps))
    out.append(dot_case("float", 32, 32, 32, 4, tf32=True))
    return out


def arguments(case: Case, seed: int = 0) -> list:
    """Inputs (small values, non-zero ``Y``), a poisoned output and ragged extents."""
    rng = np.random.default_rng(seed)
    dt = NP[case.dtype]
    if case.id.startswith("dot"):
        M, N, K = case.shape
        if case.dtype == "int8":
            x, y = rng.integers(-100, 100, M * K), rng.integers(-100, 100, K * N)
        else:
            x, y = rng.integers(-16, 16, M * K) / 8, rng.integers(-16, 16, K * N) / 8
        z = np.full(M * N, -7 if case.dtype == "int8" else np.nan, NP[case.out_dtype])
        return [x.astype(dt), y.astype(dt), z, np.int32(K - 3)]
    n = int(np.prod(case.shape))
    if case.dtype in FLOATS:
        x = rng.integers(-24, 24, n) / 8
        y = rng.integers(1, 16, n) / 8 * rng.choice([-1, 1], n)
    else:
        lo = 0 if case.dtype.startswith("u") or case.nonneg else -8
        x = rng.integers(lo, 9, n)
        y = rng.integers(1, 9, n)
    out_dt = NP[case.out_dtype]
    z = np.full(n, np.nan, out_dt) if case.out_dtype in FLOATS else np.full(n, 0x5A, out_dt)
    extents = [np.int32(max(1, s - 3) if s > 1 else 1) for s in case.shape]
    return [x.astype(dt), y.astype(dt), z] + extents


def assert_matches(case: Case, got: np.ndarray, want: np.ndarray, who: str) -> None:
    """Exact (poison and NaN bit for bit) unless the case has a tolerance."""
    g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
    same = (g.view(np.uint8).reshape(g.size, -1) == w.view(np.uint8).reshape(w.size, -1)).all(axis=1)
    if case.rtol or case.atol:
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        close = np.abs(g64 - w64) <= case.atol + case.rtol * np.abs(w64)
        bad = ~same & (~close | np.isnan(g64) | np.isnan(w64))
    else:
        bad = ~same
    assert not bad.any(), (f"{case.id}: {who}: {int(bad.sum())} of {bad.size} differ; at {np.nonzero(bad)[0][:4]}: "
                           f"got {g[bad][:4]}, want {w[bad][:4]}")
