"""rand / randn / randint in the interpreter (spec section 5, random numbers).

* the Philox4x32-10 core against Random123's known-answer vectors (``kat_vectors``: counter
  and key all zeros, all ones, and the digits of pi);
* the built-ins against a plain-Python transcription of OpenAI Triton's ``tl.randint`` /
  ``tl.rand`` / ``tl.randn`` (``triton/language/random.py``: key = the seed's low and high
  32-bit words after ``seed.to(tl.uint64)``, counter = ``(offset, 0, 0, 0)``, word 0;
  ``uint_to_uniform_float``; Box-Muller with ``max(u1, 1e-7)`` in f32 steps), bit for bit
  (``randn`` too: the interpreter rounds ``log``/``sqrt``/``cos`` correctly, as the reference);
* seeds of every integer width and signedness, unsigned and scalar offsets, 2-D tiles, and
  the statistics of a large draw.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import tritonc
from tritonc.interpreter.numerics import philox4x32, philox_word
from tritonc.ir.types import I32

M32 = 0xFFFFFFFF

# Random123 kat_vectors, philox4x32 10: counter words, key words, expected output words.
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((M32,) * 4, (M32,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr,key,want", KAT, ids=["zeros", "ones", "pi"])
def test_philox4x32_10_known_answers(ctr, key, want):
    got = philox4x32(*ctr, *key)
    assert tuple(int(w) for w in got) == want


def test_philox4x32_known_answers_vectorised():
    """The same vectors as one batch (each lane its own counter and key)."""
    cols = [np.array(c, np.uint32) for c in zip(*[c + k for c, k, _ in KAT])]
    got = np.stack(philox4x32(*cols), axis=1)
    assert got.tolist() == [list(w) for _, _, w in KAT]


def test_philox_word_reads_i32_operands_as_unsigned():
    """``math.philox`` takes signless i32 (stored signed): -1 is the all-ones word."""
    ones = np.int32(-1)
    for word in range(4):
        got = philox_word(np.array([ones, 5], np.int32), ones, ones, word, I32)
        ref = philox4x32(np.array([M32, 5], np.uint32), 0, 0, 0, M32, M32)[word]
        assert got.dtype == np.int32 and got.view(np.uint32).tolist() == ref.tolist()


# ------------------------------------------------------------------------------------------------
# A plain-Python transcription of OpenAI Triton's random.py (Python ints, no numpy).

def _ref_philox(seed64: int, offset: int) -> tuple[int, int, int, int]:
    c0, c1, c2, c3 = offset & M32, 0, 0, 0
    k0, k1 = seed64 & M32, (seed64 >> 32) & M32
    for _ in range(10):
        p0, p2 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
        c0, c1, c2, c3 = ((p2 >> 32) ^ c1 ^ k0) & M32, p2 & M32, ((p0 >> 32) ^ c3 ^ k1) & M32, p0 & M32
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return c0, c1, c2, c3


def _ref_uniform(word: int) -> np.float32:
    x = word - (1 << 32) if word >> 31 else word  # bitcast to int32
    x = -x - 1 if x < 0 else x
    return np.float32(x) * np.float32(4.6566127342e-10)


def ref_randint(seed64: int, offsets) -> np.ndarray:
    offs = np.asarray(offsets)
    return np.array([_ref_philox(seed64, int(o))[0] for o in offs.ravel()], np.uint32).reshape(offs.shape)


def ref_rand(seed64: int, offsets) -> np.ndarray:
    offs = np.asarray(offsets)
    return np.array([_ref_uniform(_ref_philox(seed64, int(o))[0]) for o in offs.ravel()],
                    np.float32).reshape(offs.shape)


def ref_randn(seed64: int, offsets) -> np.ndarray:
    """Box-Muller in f32 steps as Triton's ``pair_uniform_to_normal`` (``log`` and ``cos``
    evaluated in float64 and rounded to f32, i.e. correctly rounded)."""
    f = np.float32
    out = []
    offs = np.asarray(offsets)
    for o in offs.ravel():
        w = _ref_philox(seed64, int(o))
        u1 = max(_ref_uniform(w[0]), f(1e-7))
        u2 = _ref_uniform(w[1])
        th = f(6.283185307179586) * u2
        r = f(math.sqrt(f(-2.0) * f(math.log(u1))))
        out.append(r * f(math.cos(th)))
    return np.array(out, np.float32).reshape(offs.shape).astype(np.float64)


def assert_normal_close(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit (f32)."""
    assert np.array_equal(got.astype(np.float32).view(np.uint32), want.astype(np.float32).view(np.uint32))


SRC = """
__global__ void k(unsigned int *I, float *U, float *N, SEED_T seed, OFF_T base) {
  OFF_T r[ROWS, COLS] = base + (0 ... ROWS)[:, newaxis] * COLS + (0 ... COLS)[newaxis, :];
  int o[ROWS, COLS] = (0 ... ROWS)[:, newaxis] * COLS + (0 ... COLS)[newaxis, :];
  *(I + o) = randint(seed, r);
  *(U + o) = rand(seed, r);
  *(N + o) = randn(seed, r);
}
"""

SEEDS = [  # (C type, value passed, the 64-bit word Triton keys from: seed.to(tl.uint64))
    ("long", 0, 0),
    ("long", 1234, 1234),
    ("long", 0x123456789ABCDEF, 0x123456789ABCDEF),
    ("long", -5, (-5) & (2 ** 64 - 1)),
    ("int", -1, 2 ** 64 - 1),
    ("int", 0x7FFFFFFF, 0x7FFFFFFF),
    ("unsigned int", 0xFFFFFFFF, 0xFFFFFFFF),
    ("unsigned long", 2 ** 64 - 3, 2 ** 64 - 3),
    ("short", -2, 2 ** 64 - 2),
    ("unsigned char", 200, 200),
]
NP_OF = {"long": np.int64, "int": np.int32, "unsigned int": np.uint32, "unsigned long": np.uint64,
         "short": np.int16, "unsigned char": np.uint8}


def run_all(seed_t: str, seed, off_t: str, base: int, rows: int, cols: int):
    n = rows * cols
    I, U, N = np.zeros(n, np.uint32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    tritonc.interpret(SRC, None, (1,), I, U, N, NP_OF[seed_t](seed), NP_OF[off_t](base),
                      defines={"SEED_T": seed_t, "OFF_T": off_t, "ROWS": str(rows), "COLS": str(cols)})
    offs = (np.arange(n, dtype=np.int64) + base) & M32
    return I, U, N, offs


@pytest.mark.parametrize("seed_t,seed,seed64", SEEDS, ids=[f"{t.replace(' ', '_')}_{v}" for t, v, _ in SEEDS])
def test_builtins_match_tritons_algorithm(seed_t, seed, seed64):
    I, U, N, offs = run_all(seed_t, seed, "int", 0, 4, 16)
    assert np.array_equal(I, ref_randint(seed64, offs))
    assert np.array_equal(U.view(np.uint32), ref_rand(seed64, offs).view(np.uint32))
    assert_normal_close(N, ref_randn(seed64, offs))


@pytest.mark.parametrize("off_t,base", [("int", -100), ("int", 2 ** 31 - 40), ("unsigned int", 0xFFFFFFF0)])
def test_offsets_are_their_32_bits(off_t, base):
    """Negative int offsets and unsigned offsets near 2^32 key the counter with their bits
    (Triton: ``offset.to(tl.uint32, bitcast=True)``); the ranges wrap modulo 2^32."""
    I, U, N, offs = run_all("long", 42, off_t, base, 8, 8)
    assert np.array_equal(I, ref_randint(42, offs))
    assert np.array_equal(U.view(np.uint32), ref_rand(42, offs).view(np.uint32))
    assert_normal_close(N, ref_randn(42, offs))


def test_scalar_offsets_and_constant_seed():
    src = """
__global__ void k(unsigned int *I, float *U, float *N, int off) {
  *I = randint(7, off);
  *U = rand(7, off + 1);
  *N = randn(7, 3);
}"""
    I, U, N = np.zeros(1, np.uint32), np.zeros(1, np.float32), np.zeros(1, np.float32)
    tritonc.interpret(src, None, (1,), I, U, N, np.int32(11))
    assert I[0] == ref_randint(7, [11])[0]
    assert U.view(np.uint32)[0] == ref_rand(7, [12]).view(np.uint32)[0]
    assert_normal_close(N, ref_randn(7, [3]))


def test_result_types():
    from tritonc.driver import compile_to_ttir
    from tritonc.ir.printer import print_module
    text = print_module(compile_to_ttir(SRC, defines={"SEED_T": "long", "OFF_T": "int", "ROWS": "2", "COLS": "4"}))
    assert text.count("math.philox") == 2, text  # words 0 and 1 of one block (randint/rand share word 0)
    assert "{word = 0}" in text and "{word = 1}" in text


def test_statistics_of_a_large_draw():
    """65536 draws: uniforms in [0, 1) with mean 1/2 and variance 1/12; normals with mean 0,
    variance 1; randint words with every bit set about half the time."""
    I, U, N, _ = run_all("long", 2024, "int", 0, 256, 256)
    n = U.size
    assert U.min() >= 0.0 and U.max() < 1.0
    assert abs(U.mean() - 0.5) < 4 * math.sqrt(1 / 12 / n)
    assert abs(U.var() - 1 / 12) < 0.002
    assert abs(N.mean()) < 4 / math.sqrt(n) and abs(N.var() - 1) < 0.02
    assert np.isfinite(N).all() and np.abs(N).max() < 6.0
    bits = (I[:, None] >> np.arange(32, dtype=np.uint32)) & 1
    assert np.all(np.abs(bits.mean(0) - 0.5) < 0.01)
    assert len(np.unique(I)) > n - 5  # distinct counters give (almost surely) distinct words


def test_in_a_tile_conditional_and_an_elementwise_device_function():
    """``rand`` is pure: a branch of a tile ``?:`` and an element-wise instance of a scalar
    ``__device__`` function (called with tiles) draw the same numbers as a plain call."""
    src = """
__device__ float noise(long s, int o, float x) { return x + rand(s, o); }
__global__ void k(float *Y, float *X, long seed) {
  int r[64] = 0 ... 64;
  float x[64] = *(X + r);
  *(Y + r) = x > 0.0f ? rand(seed, r) : x;
  *(Y + 64 + r) = noise(seed, r, x);
}"""
    X = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    Y = np.zeros(128, np.float32)
    tritonc.interpret(src, "k", (1,), Y, X, np.int64(5))
    u = ref_rand(5, np.arange(64))
    assert np.array_equal(Y[:64], np.where(X > 0, u, X))
    assert np.array_equal(Y[64:], X + u)
