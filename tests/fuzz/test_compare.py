"""The mismatch definition (tritonc/fuzz/compare.py, docs/testing.md): exact integers, float
tolerances, NaN and poison bit for bit, and a masked-off element that lost its poison."""
from __future__ import annotations

import numpy as np

from tritonc.fuzz.compare import compare
from tritonc.fuzz.program import Buffer, Program, make_buffer


def _program(*buffers):
    return Program("", "k", list(buffers), (1,), {})


def test_integers_must_be_exact():
    p = _program(Buffer("O", "int", 4, ("poison",), "exact"))
    want = [np.array([1, 2, 3, 4], np.int32)]
    assert compare(p, [want[0].copy()], want) == []
    got = want[0].copy()
    got[2] += 1
    (m,) = compare(p, [got], want)
    assert m.buffer == "O" and m.count == 1 and m.examples[0][0] == 2


def test_float_tolerance_and_nan():
    p = _program(Buffer("O", "float", 3, ("poison",), ("tol", 1e-3)))
    want = np.array([1.0, 2.0, np.nan], np.float32)
    assert compare(p, [np.array([1.0005, 1.9995, np.nan], np.float32)], [want]) == []
    assert compare(p, [np.array([1.002, 2.0, np.nan], np.float32)], [want])[0].count == 1
    assert compare(p, [np.array([1.0, 2.0, 3.0], np.float32)], [want])[0].count == 1  # NaN expected
    assert compare(p, [np.array([np.nan, 2.0, np.nan], np.float32)], [want])[0].count == 1  # NaN produced


def test_masked_off_element_must_keep_its_poison():
    out = Buffer("O", "float", 4, ("poison",), ("tol", 0.5))
    p = _program(out)
    want = make_buffer(out, np.random.default_rng(0))
    want[:2] = [1.0, 2.0]  # elements 2, 3 masked off: still poisoned
    got = want.copy()
    assert compare(p, [got], [want]) == []
    got[3] = np.nan  # a NaN, but not the poison's bit pattern: a store reached it
    (m,) = compare(p, [got], [want])
    assert m.examples[0][0] == 3
    ints = Buffer("I", "uint16", 4, ("poison",), "exact")
    w = make_buffer(ints, np.random.default_rng(0))
    g = w.copy()
    g[1] = 0
    assert compare(_program(ints), [g], [w])[0].count == 1


def test_inputs_must_not_change():
    p = Program("", "k", [Buffer("X", "float", 2, ("grid", -1, 1, 0.5)), ], (1,), {})
    assert compare(p, [np.array([5.0, 5.0], np.float32)], [np.array([0.0, 0.0], np.float32)])[0].buffer == "X"
