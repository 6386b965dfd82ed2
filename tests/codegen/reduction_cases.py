"""Reductions along every axis of 2-D and 3-D tiles, shared by the simulator test
(``test_reduce_sim.py``) and the GPU test (``tests/gpu/test_reduce_gpu.py``).

Each case is one kernel that loads a ragged tile (the valid extent is smaller than the tile
along every axis; masked-off elements are ``-inf``, ``+inf`` or 0 for the operator) and stores
``+``, ``max`` and ``min`` along each axis, an integer count along each axis, and the sum of
the whole tile (reduced axis by axis down to a scalar). With several warps the layout spreads
warps along the reduced axis, which is the cross-warp path of ``codegen/llvm/reduce.py``
(issue 10: column reductions were wrong at 8 and 16 warps).
"""
from __future__ import annotations

import numpy as np

#: (tile shape, valid extent) per case: each reduced axis gets warps along it at 8-16 warps.
SHAPES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "64x32": ((64, 32), (50, 27)),
    "32x64": ((32, 64), (27, 50)),
    "128x16": ((128, 16), (100, 13)),
    "16x128": ((16, 128), (13, 100)),
    "8x16x32": ((8, 16, 32), (7, 13, 27)),
    "32x8x16": ((32, 8, 16), (27, 7, 13)),
}

NUM_WARPS = (4, 8, 16)
_LETTERS = "abc"


def _index(rank: int, axis: int) -> str:
    """``[:, newaxis]``-style index that puts a rank-1 range on ``axis`` of a rank-``rank`` tile."""
    return "[" + ", ".join(":" if k == axis else "newaxis" for k in range(rank)) + "]"


def _reduce_index(rank: int, axis: int, op: str) -> str:
    return "[" + ", ".join(op if k == axis else ":" for k in range(rank)) + "]"


def source(shape: tuple[int, ...]) -> str:
    """The kernel ``red`` for a tile of ``shape``: parameters are ``X``, then for each axis the
    outputs ``S<axis>, MX<axis>, MN<axis>, C<axis>`` (float, float, float, int), then ``T``
    (the scalar total) and the valid extents ``E0, E1[, E2]``. ``X`` is dense row-major with
    the tile's shape; each output is dense row-major with the shape left after the reduction."""
    rank = len(shape)
    dims = ", ".join(str(s) for s in shape)
    outs = []
    for a in range(rank):
        outs += [f"float *S{a}", f"float *MX{a}", f"float *MN{a}", f"int *C{a}"]
    extents = ", ".join(f"int E{a}" for a in range(rank))
    lines = [f"__global__ void red(float *X, {', '.join(outs)}, float *T, {extents}) {{"]
    for a, s in enumerate(shape):
        lines.append(f"  int r{_LETTERS[a]}[{s}] = 0 ... {s};")
    strides = [int(np.prod(shape[a + 1:])) for a in range(rank)]
    mask = " && ".join(f"(r{_LETTERS[a]}{_index(rank, a)} < E{a})" for a in range(rank))
    offset = " + ".join(f"r{_LETTERS[a]}{_index(rank, a)} * {strides[a]}" for a in range(rank))
    lines.append(f"  bool m[{dims}] = {mask};")
    lines.append(f"  float x[{dims}] = m ? *(X + {offset}) : 0.0;")
    lines.append(f"  float xhi[{dims}] = m ? x : -F32_INFINITY;")
    lines.append(f"  float xlo[{dims}] = m ? x : F32_INFINITY;")
    lines.append(f"  int pos[{dims}] = (int[{dims}]) (x > 0);")
    for a in range(rank):
        keep = [k for k in range(rank) if k != a]
        rshape = [shape[k] for k in keep]
        rstrides = [int(np.prod(rshape[i + 1:])) for i in range(len(keep))]
        roff = " + ".join(f"r{_LETTERS[k]}{_index(len(keep), i)} * {rstrides[i]}" for i, k in enumerate(keep))
        lines.append(f"  *(S{a} + {roff}) = x{_reduce_index(rank, a, '+')};")
        lines.append(f"  *(MX{a} + {roff}) = xhi{_reduce_index(rank, a, 'max')};")
        lines.append(f"  *(MN{a} + {roff}) = xlo{_reduce_index(rank, a, 'min')};")
        lines.append(f"  *(C{a} + {roff}) = pos{_reduce_index(rank, a, '+')};")
    total = "x"
    for r in range(rank, 0, -1):
        total += "[" + ", ".join([":"] * (r - 1) + ["+"]) + "]"
    lines.append(f"  *T = {total};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def arguments(shape: tuple[int, ...], extent: tuple[int, ...], seed: int) -> list:
    """Fresh inputs (standard normal ``X``), NaN- or garbage-poisoned outputs, then the extents."""
    rng = np.random.default_rng(seed)
    args: list = [rng.standard_normal(shape).astype(np.float32)]
    for a in range(len(shape)):
        rshape = tuple(s for k, s in enumerate(shape) if k != a)
        args += [np.full(rshape, np.nan, np.float32) for _ in range(3)]
        args.append(np.full(rshape, -12345, np.int32))
    args.append(np.full(1, np.nan, np.float32))
    args += [np.int32(e) for e in extent]
    return args


def reference(shape: tuple[int, ...], extent: tuple[int, ...], args: list) -> list[np.ndarray]:
    """The expected outputs, from numpy (float64 sums), in parameter order after ``X``."""
    x = args[0].astype(np.float64)
    valid = np.ones(shape, bool)
    for a, e in enumerate(extent):
        idx = [np.newaxis] * len(shape)
        idx[a] = slice(None)
        valid &= (np.arange(shape[a]) < e)[tuple(idx)]
    xz = np.where(valid, x, 0.0)
    out = []
    for a in range(len(shape)):
        out.append(xz.sum(axis=a).astype(np.float32))
        out.append(np.where(valid, x, -np.inf).max(axis=a).astype(np.float32))
        out.append(np.where(valid, x, np.inf).min(axis=a).astype(np.float32))
        out.append((xz > 0).sum(axis=a).astype(np.int32))
    out.append(np.array([xz.sum()], np.float32))
    return out


def check(shape, extent, args) -> None:
    """Raise AssertionError naming the first output that differs from :func:`reference`."""
    names = [f"{n}{a}" for a in range(len(shape)) for n in ("S", "MX", "MN", "C")] + ["T"]
    for name, got, want in zip(names, args[1:], reference(shape, extent, args)):
        if want.dtype.kind == "i":
            bad = got != want
        else:
            bad = ~np.isclose(got, want, rtol=1e-5, atol=1e-4)
        assert not bad.any(), f"{name}: {int(bad.sum())} of {bad.size} wrong; got {got[bad][:4]}, want {want[bad][:4]}"
