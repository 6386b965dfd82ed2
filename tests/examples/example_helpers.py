"""Helpers for the example-kernel tests: run an example in the interpreter, poisoned outputs,
ragged random sizes, comparisons with a float64 numpy reference."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import tritonc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def run(name: str, kernel: str | None, grid, *args, **kw):
    """Run kernel ``kernel`` of ``examples/<name>.tri`` in the numpy interpreter."""
    return tritonc.interpret(EXAMPLES / f"{name}.tri", kernel, grid, *args, **kw)


def poisoned(shape, dtype) -> np.ndarray:
    """An output array filled with NaN (floats) or -7 (integers): every element the kernel
    must write is checked to be finite / overwritten afterwards."""
    a = np.empty(shape, dtype)
    a.fill(np.nan if np.dtype(dtype).kind == "f" else -7)
    return a


def ragged_sizes(seed: int, count: int, bounds: list[tuple[int, int]], tiles: list[int | None]) -> list[tuple]:
    """``count`` random size tuples, entry ``i`` in ``[lo_i, hi_i]``, none a multiple of
    ``tiles[i]`` (``None``: any value). Deterministic for a given seed."""
    rng = np.random.default_rng(seed)
    out: list[tuple] = []
    while len(out) < count:
        size = tuple(int(rng.integers(lo, hi + 1)) for lo, hi in bounds)
        if all(t is None or s % t for s, t in zip(size, tiles)) and size not in out:
            out.append(size)
    return out


def assert_close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float, what: str = "output") -> None:
    """Every element written (finite, so not the NaN poison) and close to the reference."""
    got64 = got.astype(np.float64)
    bad = ~np.isfinite(got64)
    assert not bad.any(), f"{what}: {int(bad.sum())} of {got.size} elements not written (first at {np.argwhere(bad)[0]})"
    np.testing.assert_allclose(got64, want, rtol=rtol, atol=atol, err_msg=what)


def round_up(x: int, m: int) -> int:
    return cdiv(x, m) * m
