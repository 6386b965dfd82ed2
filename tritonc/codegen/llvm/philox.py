"""``math.philox``: one output word of Philox4x32-10, register by register.

Philox 4x32 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
SC 2011, section 5), as OpenAI Triton's ``philox_impl``: the counter is ``(c, 0, 0, 0)``
with ``c`` the op's ``counter`` operand, the key ``(key0, key1)``; each of the 10 rounds is

    (hi0, lo0) = M0 * c0,  (hi1, lo1) = M1 * c2          (32 x 32 -> 64-bit products)
    c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0),  then k += (W0, W1)

with ``M0 = 0xD2511F53``, ``M1 = 0xCD9E8D57``, ``W0 = 0x9E3779B9``, ``W1 = 0xBB67AE85``. The
high half of a product is ``llvm.nvvm.mulhi.ui`` (``mul.hi.u32``, PTX ISA 9.7.1.5), the low half
an i32 ``mul`` (``mul.lo.u32``). (A ``mul i64`` of zero-extended operands, ``lshr 32``, ``trunc``
is the same value, but LLVM's instcombine then moves the XORs into i64 and the block becomes
16 ``mul.lo.s64``, each several 32-bit multiplies on the GPU.)
The zero counter words and key additions fold to constants in LLVM. ``randn`` asks for words 0
and 1 of the same block (two ops); both expand to the same instructions, which LLVM's CSE
merges. The word's bits are the interpreter's (``tritonc.interpreter.numerics.philox4x32``,
checked against Random123's known-answer vectors).
"""
from __future__ import annotations

from .elementwise import map_regs
from .lowering import I32, const, lowers

PHILOX_M0, PHILOX_M1 = 0xD2511F53, 0xCD9E8D57
PHILOX_W0, PHILOX_W1 = 0x9E3779B9, 0xBB67AE85
ROUNDS = 10


def _mulhilo(lw, a, m: int):
    """``(hi, lo)`` halves of the 64-bit product of i32 ``a`` (unsigned) and the constant ``m``:
    ``mul.hi.u32`` (``llvm.nvvm.mulhi.ui``) and ``mul.lo.u32``."""
    c = const(I32, m)
    return lw.call("llvm.nvvm.mulhi.ui", I32, [a, c]), lw.b.mul(a, c)


def philox_word(lw, counter, key0, key1, word: int):
    """Word ``word`` (0..3) of Philox4x32-10 for counter ``(counter, 0, 0, 0)`` and key
    ``(key0, key1)`` (i32 LLVM values)."""
    b = lw.b
    zero = const(I32, 0)
    c0, c1, c2, c3 = counter, zero, zero, zero
    k0, k1 = key0, key1
    for r in range(ROUNDS):
        if r:
            k0 = b.add(k0, const(I32, PHILOX_W0))
            k1 = b.add(k1, const(I32, PHILOX_W1))
        hi0, lo0 = _mulhilo(lw, c0, PHILOX_M0)
        hi1, lo1 = _mulhilo(lw, c2, PHILOX_M1)
        c0, c1, c2, c3 = b.xor(b.xor(hi1, c1), k0), lo1, b.xor(b.xor(hi0, c3), k1), lo0
    return (c0, c1, c2, c3)[word]


@lowers("math.philox")
def _philox(lw, op) -> None:
    word = op.attrs["word"]
    map_regs(lw, op, lambda c, k0, k1: philox_word(lw, c, k0, k1, word))
