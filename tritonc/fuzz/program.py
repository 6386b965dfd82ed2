"""A generated test program: Triton-C source, its parameters, how to make its arguments, the
compile options, and how each output is compared (``docs/testing.md``, "Differential testing").
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .ctypes import BY_NAME, CType

#: The float poison of an output buffer: a quiet NaN with a recognisable payload.
POISON_F32_BITS = 0x7FC0DEAD
#: Integer outputs are filled with this byte.
POISON_BYTE = 0x5A


@dataclass
class Buffer:
    """A pointer parameter.

    Attributes:
        name: the parameter name.
        ctype: element type name (a key of :data:`tritonc.fuzz.ctypes.BY_NAME`).
        size: number of elements.
        init: how the executors fill it: ``("poison",)`` for outputs, ``("grid", lo, hi, step)``
            for random multiples of ``step`` in ``[lo, hi]``, ``("const", v)``.
        check: ``None`` for an input that is not compared; ``"exact"`` (bit for bit, NaN
            payloads included); ``("tol", atol)`` for floats within ``atol`` (poison and NaN
            positions exact); ``("count", ...)`` not used yet.
        qualifiers: parameter qualifiers written after the name (``"__noalias __readonly"``:
            a promise the executors keep, each buffer being its own allocation).
    """

    name: str
    ctype: str
    size: int
    init: tuple
    check: object = None
    qualifiers: str = ""

    @property
    def type(self) -> CType:
        return BY_NAME[self.ctype]


@dataclass
class Scalar:
    """A scalar parameter and the value every run passes."""

    name: str
    ctype: str
    value: float | int


@dataclass
class Program:
    """One generated kernel ``kernel`` with everything needed to run and compare it.

    ``options`` has the keys ``num_warps`` (1-16), ``num_stages`` (1-5), ``arch``
    (``sm_80``, ``sm_90``, ``sm_90a``), ``specialize`` (bool) and ``allow_tf32`` (bool).
    ``features`` names the constructs the program uses (for statistics and minimisation
    reports)."""

    source: str
    kernel: str
    params: list
    grid: tuple
    options: dict
    features: list = field(default_factory=list)
    seed: int = 0

    def compile_options(self, arch: str | None = None):
        from ..options import CompileOptions

        o = self.options
        return CompileOptions(num_warps=o["num_warps"], num_stages=o["num_stages"], arch=arch or o["arch"],
                              allow_tf32=o["allow_tf32"], specialize=o["specialize"])

    def arguments(self, seed: int | None = None) -> list:
        """Fresh arguments: numpy arrays for buffers (inputs random from ``seed``, outputs
        poisoned) and the scalars' values."""
        rng = np.random.default_rng(self.seed if seed is None else seed)
        args = []
        for p in self.params:
            if isinstance(p, Scalar):
                args.append(BY_NAME[p.ctype].dtype(p.value))
            else:
                args.append(make_buffer(p, rng))
        return args

    def regression_case(self) -> str:
        """The program as a ready-to-paste entry of ``tests/fuzz/regressions.py``."""
        params = ",\n        ".join(repr(p) for p in self.params)
        return (f"Program(\n    source='''\\\n{self.source}''',\n    kernel={self.kernel!r},\n"
                f"    params=[\n        {params}],\n    grid={self.grid!r},\n    options={self.options!r},\n"
                f"    features={self.features!r},\n    seed={self.seed!r})")


def make_buffer(b: Buffer, rng: np.random.Generator) -> np.ndarray:
    t = b.type
    kind = b.init[0]
    if kind == "poison":
        if t.is_float:
            if t.bits == 32:
                return np.full(b.size, POISON_F32_BITS, np.uint32).view(np.float32)
            return np.full(b.size, np.nan, t.dtype)
        return np.full(b.size * np.dtype(t.dtype).itemsize, POISON_BYTE, np.uint8).view(t.dtype)
    if kind == "const":
        return np.full(b.size, b.init[1], t.dtype)
    if kind == "grid":
        _, lo, hi, step = b.init
        k = rng.integers(int(round(lo / step)), int(round(hi / step)) + 1, size=b.size, dtype=np.int64)
        if t.kind == "b":
            return (k % 2).astype(np.bool_)
        if t.is_int:
            return (k * int(step)).astype(t.dtype)
        return (k.astype(np.float64) * step).astype(t.dtype)
    raise ValueError(f"unknown buffer init {b.init!r}")
