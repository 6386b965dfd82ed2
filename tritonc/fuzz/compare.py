"""The comparator of the differential runs: what counts as a mismatch (``docs/testing.md``,
"Differential testing").

Each output buffer of a :class:`~tritonc.fuzz.program.Program` carries its check:

* ``"exact"``: every element bit for bit (integers, booleans, and floats that every executor
  must compute exactly: data movement, comparisons, ``floor``, exact sums of exactly
  representable values);
* ``("tol", atol)``: floats within ``atol``, the generator's bound on the distance between two
  executors (twice the bound on each one's error against exact arithmetic, see
  :mod:`tritonc.fuzz.builder`); NaN where the reference has NaN, and the reference's poison
  (an element no store reached, masked-off elements included) bit for bit.

Inputs are compared too (exactly): a kernel must not write its inputs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .program import Buffer, Program


@dataclass
class Mismatch:
    """One output that differs: buffer name, how many elements, the first few (index, got,
    want) and the check that failed."""

    buffer: str
    count: int
    size: int
    examples: list
    check: object

    def __str__(self) -> str:
        ex = ", ".join(f"[{i}] got {g!r} want {w!r}" for i, g, w in self.examples)
        return f"{self.buffer}: {self.count} of {self.size} elements differ ({self.check}): {ex}"


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8).reshape(a.size, -1)


def compare(program: Program, got: list, want: list) -> list[Mismatch]:
    """The mismatches between the arguments ``got`` (an executor's) and ``want`` (the
    reference's) after a run of ``program``; empty when they agree."""
    out = []
    for p, g, w in zip(program.params, got, want):
        if not isinstance(p, Buffer):
            continue
        check = p.check or "exact"
        same_bits = (_bits(g) == _bits(w)).all(axis=1)
        if check == "exact" or g.dtype.kind not in "f" and str(g.dtype) != "bfloat16":
            bad = ~same_bits
        else:
            atol = float(check[1])
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            wnan, gnan = np.isnan(w64), np.isnan(g64)
            close = np.abs(g64 - w64) <= atol
            bad = ~same_bits & (wnan | gnan | ~close)
        if bad.any():
            idx = np.nonzero(bad)[0][:4]
            out.append(Mismatch(p.name, int(bad.sum()), int(bad.size),
                                [(int(i), g.reshape(-1)[i].item(), w.reshape(-1)[i].item()) for i in idx], check))
    return out
