"""Element-wise ops: integer and float arithmetic, comparisons, select, casts, constants.

Every op here works register by register: operands and result share one layout (ensured by
``assign-layouts``), so register ``r`` of the result is computed from register ``r`` of each
operand; a scalar operand (``arith.select``'s condition) is used for every register.

Semantics and the instructions they become (PTX ISA 9.7.1 integer, 9.7.3 floating point,
9.7.9.21 cvt):

* integers wrap (two's complement); ``divsi``/``remsi`` are C's truncating ``sdiv``/``srem``,
  ``divui``/``remui`` unsigned; ``shrsi`` is arithmetic, ``shrui`` logical; ``max``/``min``
  through ``llvm.smax``/``umax``/``smin``/``umin``. Division by zero and shifts by the width
  or more are undefined, as in C.
* ``divf``: f64 (and f16/bf16, through f32) is IEEE ``fdiv`` (``div.rn``). f32 is *not*
  IEEE (the spec says nothing about the accuracy of ``/``; OpenAI Triton does the same):
  ``div.full.f32`` (at most 2 ulp over the whole range, PTX ISA 9.7.3.8), and when the
  divisor is one value for the whole tile (a splat: softmax's ``e / e[+]``, dropout's
  ``x / (1 - p)``) its reciprocal once (IEEE ``div.rn``) and multiplies per element (at most
  1.5 ulp), with no branch: ``(x * c) * (1 / (d * c))``, ``c`` a power of two that brings the
  divisor into the normal range (``0.25`` above ``2^126``, ``2^24`` below ``2^-126``, else 1:
  the scaling ``div.full`` does, PTX ISA 9.7.3.8). The branch this replaced (multiplies when
  the reciprocal was normal, ``div.full`` otherwise) kept LLVM from placing independent work
  (dropout's Philox) between a load and the division that uses it: the division waited for
  the load first. IEEE ``div.rn.f32`` costs about 20 instructions per element with a slow-path
  call: it made softmax 10% slower at 4096x4096 and 19% at 4096x16384 on an H200
  (``benchmarks/RESULTS.md``, 2026-11-21). ``-ff32-division=rn`` (``CodegenOptions.f32_division``) brings it back
  (for measurements). ``remf`` is LLVM's ``frem``,
  which NVPTX expands to ``x - trunc(x / y) * y`` (not exact for large quotients);
  ``maxnumf``/``minnumf`` are ``llvm.maxnum``/``minnum`` (``max.f32``: a NaN operand is
  ignored).
* ``cmpf`` predicates map one-to-one to ``fcmp`` (``o*`` false on NaN, ``u*`` true on NaN).
* casts: ``extsi``/``extui``/``trunci``/``sitofp``/``uitofp``/``fptosi``/``fptoui``/``extf``/
  ``truncf``/``bitcast`` are the LLVM instructions of those names; float narrowing rounds to
  nearest-even (``cvt.rn.f16.f32``, ``cvt.rn.bf16.f32``); ``fptosi`` of an out-of-range value
  is undefined. Below sm_90 there is no ``cvt.rn.bf16.f64``/``cvt.rn.bf16.s32`` and LLVM would
  round twice (via f32); there ``f64 -> bf16`` and 32/64-bit ``int -> bf16`` round to f32
  *to odd* first (toward zero, then the lowest bit set if inexact: ``cvt.rz`` / exact
  back-conversion test), which makes the final round-to-nearest-even to bf16 exact.
* ``math.*`` are in ``math_ops.py``.
"""
from __future__ import annotations

import llvmlite.ir as ir
import numpy as np

from tritonc.analysis.axis_info import AxisInfoAnalysis
from tritonc.ir.core import Operation
from tritonc.ir.types import TileType, element_type

from .lowering import BF16, F32, F64, HANDLERS, I1, I32, KernelLowering, const, llvm_type, lowers

_INT_BINARY = {
    "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.divsi": "sdiv",
    "arith.divui": "udiv", "arith.remsi": "srem", "arith.remui": "urem", "arith.andi": "and_",
    "arith.ori": "or_", "arith.xori": "xor", "arith.shli": "shl", "arith.shrsi": "ashr",
    "arith.shrui": "lshr",
}
_INT_MINMAX = {"arith.maxsi": "smax", "arith.minsi": "smin", "arith.maxui": "umax", "arith.minui": "umin"}
_FLOAT_BINARY = {"arith.addf": "fadd", "arith.subf": "fsub", "arith.mulf": "fmul", "arith.divf": "fdiv",
                 "arith.remf": "frem"}
_FLOAT_MINMAX = {"arith.maxnumf": "maxnum", "arith.minnumf": "minnum"}

_ICMP = {"eq": ("s", "=="), "ne": ("s", "!="), "slt": ("s", "<"), "sle": ("s", "<="), "sgt": ("s", ">"),
         "sge": ("s", ">="), "ult": ("u", "<"), "ule": ("u", "<="), "ugt": ("u", ">"), "uge": ("u", ">=")}
_FCMP = {"oeq": ("o", "=="), "one": ("o", "!="), "olt": ("o", "<"), "ole": ("o", "<="), "ogt": ("o", ">"),
         "oge": ("o", ">="), "ord": ("o", "ord"), "ueq": ("u", "=="), "une": ("u", "!="), "ult": ("u", "<"),
         "ule": ("u", "<="), "ugt": ("u", ">"), "uge": ("u", ">="), "uno": ("u", "uno")}


def num_regs(lw: KernelLowering, op: Operation) -> int:
    """Registers per operand/result of an element-wise op (1 for scalars)."""
    t = op.results[0].type if op.results else op.operands[0].type
    return lw.dist(t).num_regs if isinstance(t, TileType) else 1


def define(lw: KernelLowering, result, regs: list) -> None:
    """Set an element-wise result: a list for tiles, the single value for scalars."""
    lw.set(result, regs if isinstance(result.type, TileType) else regs[0])


def map_regs(lw: KernelLowering, op: Operation, fn, reuse: list[int] | None = None) -> None:
    """Define ``op``'s result as ``fn(*operand registers)`` register by register; with
    ``reuse`` (:func:`repeated_registers`), register ``r`` is register ``reuse[r]``'s value
    wherever ``reuse[r] != r`` (computed once)."""
    n = num_regs(lw, op)
    cols = [lw.regs(v, n) for v in op.operands]
    out: list = []
    for r, args in enumerate(zip(*cols)):
        out.append(out[reuse[r]] if reuse is not None and reuse[r] != r else fn(*args))
    define(lw, op.result, out)


def axis_info(lw: KernelLowering):
    """Axis info of the module being lowered (computed once per kernel)."""
    if lw.entry_values.axis_info is None:
        lw.entry_values.axis_info = AxisInfoAnalysis(lw.f.parent)
    return lw.entry_values.axis_info


def repeated_registers(lw: KernelLowering, v) -> list[int] | None:
    """For a tile ``v`` that axis info says is constant over runs of elements (``constancy``,
    ``analysis/axis_info.py``): per register, the first register holding the same element run
    in every thread (so the same value), or ``None`` when no two registers are known equal.
    A mask ``off + cols < N`` with ``N`` a multiple of 8 and 8 contiguous elements per thread
    is then one comparison per thread instead of 8 (what the loads and stores already use for
    their predicates)."""
    if not isinstance(v.type, TileType):
        return None
    runs = axis_info(lw).info(v).constancy
    if all(k <= 1 for k in runs):
        return None
    coords = lw.dist(v).coords()  # [threads, regs, rank]
    blocks = coords // np.asarray(runs, dtype=np.int64)
    first: dict[bytes, int] = {}
    rep = [first.setdefault(np.ascontiguousarray(blocks[:, r, :]).tobytes(), r) for r in range(coords.shape[1])]
    return rep if any(i != r for r, i in enumerate(rep)) else None


def intrinsic_call(lw: KernelLowering, base: str, args: list[ir.Value]) -> ir.Value:
    """``llvm.<base>.<type suffix>`` on the first argument's type (e.g. ``llvm.smax.i32``)."""
    ty = args[0].type
    return lw.call(f"llvm.{base}.{ty.intrinsic_name}", ty, args)


#: Integer ops whose result is frozen (:func:`_int_binary`).
_FROZEN = ("arith.divsi", "arith.remsi")


def _int_binary(lw: KernelLowering, op: Operation) -> None:
    """An integer binary op, register by register. A signed division or remainder is followed
    by ``freeze``: the language's integer ops never make poison (a division by zero is
    undefined, not poison), so this changes no value, but it tells LLVM so. ScalarEvolution
    cannot model a signed division (it can an unsigned one) and leaves it an opaque value; the
    NVPTX back end's straight-line strength reduction then asks, for every pair of addresses
    built on such a value, whether reusing one for the other could add poison, scanning the
    instructions around it each time. A frozen value is never poison, so the answer is
    immediate: matmul's generic kernel spends 30 ms there instead of 53, the generic bmm's
    0.57 s instead of 1.26 (``benchmarks/RESULTS.md``, session 18)."""
    method = _INT_BINARY[op.name]
    if op.name in _FROZEN:
        map_regs(lw, op, lambda a, b: lw.b.freeze(getattr(lw.b, method)(a, b)))
    else:
        map_regs(lw, op, lambda a, b: getattr(lw.b, method)(a, b))


def _int_minmax(lw: KernelLowering, op: Operation) -> None:
    base = _INT_MINMAX[op.name]
    map_regs(lw, op, lambda a, b: intrinsic_call(lw, base, [a, b]))


def _float_binary(lw: KernelLowering, op: Operation) -> None:
    method = _FLOAT_BINARY[op.name]
    if method == "fdiv" and lw.options.f32_division == "full" and llvm_type(element_type(op.result.type)) == F32:
        n = num_regs(lw, op)
        xs, ds = lw.regs(op.operands[0], n), lw.regs(op.operands[1], n)
        if n > 1 and all(d is ds[0] for d in ds):
            define(lw, op.result, _divide_by_uniform(lw, xs, ds[0]))
        else:
            define(lw, op.result, [lw.call("llvm.nvvm.div.full", F32, [x, d]) for x, d in zip(xs, ds)])
        return
    map_regs(lw, op, lambda a, b: getattr(lw.b, method)(a, b))


def _divide_by_uniform(lw: KernelLowering, xs: list, d: ir.Value) -> list:
    """``x / d`` for every ``x`` of ``xs`` (f32, ``d`` one value for all): ``(x * c) * r`` with
    ``r = 1 / (d * c)`` rounded once (IEEE) and ``c`` a power of two that makes ``d * c`` a
    normal number (0.25 for ``|d| > 2^126``, ``2^24`` for ``|d| < 2^-126``, else 1), as
    ``div.full.f32`` scales (PTX ISA 9.7.3.8). At most 1.5 ulp from the quotient (``x * c`` is
    exact unless the quotient under- or overflows anyway); zero, infinite and NaN divisors give
    IEEE's results. Straight-line code: no branch around the per-element multiplies."""
    b = lw.b
    mag = intrinsic_call(lw, "fabs", [d])
    big = b.fcmp_ordered(">", mag, ir.Constant(F32, 2.0 ** 126))
    small = b.fcmp_ordered("<", mag, ir.Constant(F32, 2.0 ** -126))
    c = b.select(big, ir.Constant(F32, 0.25), b.select(small, ir.Constant(F32, 2.0 ** 24), ir.Constant(F32, 1.0)))
    r = b.fdiv(ir.Constant(F32, 1.0), b.fmul(d, c))
    return [b.fmul(b.fmul(x, c), r) for x in xs]


def _float_minmax(lw: KernelLowering, op: Operation) -> None:
    base = _FLOAT_MINMAX[op.name]
    map_regs(lw, op, lambda a, b: intrinsic_call(lw, base, [a, b]))


for _name in _INT_BINARY:
    HANDLERS[_name] = _int_binary
for _name in _INT_MINMAX:
    HANDLERS[_name] = _int_minmax
for _name in _FLOAT_BINARY:
    HANDLERS[_name] = _float_binary
for _name in _FLOAT_MINMAX:
    HANDLERS[_name] = _float_minmax


@lowers("arith.negf")
def _negf(lw: KernelLowering, op: Operation) -> None:
    map_regs(lw, op, lambda a: lw.b.fneg(a))


@lowers("arith.cmpi")
def _cmpi(lw: KernelLowering, op: Operation) -> None:
    kind, pred = _ICMP[op.attrs["predicate"]]
    reuse = repeated_registers(lw, op.result)  # a mask constant over runs: one compare per run
    if kind == "s":
        map_regs(lw, op, lambda a, b: lw.b.icmp_signed(pred, a, b), reuse)
    else:
        map_regs(lw, op, lambda a, b: lw.b.icmp_unsigned(pred, a, b), reuse)


@lowers("arith.cmpf")
def _cmpf(lw: KernelLowering, op: Operation) -> None:
    kind, pred = _FCMP[op.attrs["predicate"]]
    if kind == "o":
        map_regs(lw, op, lambda a, b: lw.b.fcmp_ordered(pred, a, b))
    else:
        map_regs(lw, op, lambda a, b: lw.b.fcmp_unordered(pred, a, b))


@lowers("arith.select")
def _select(lw: KernelLowering, op: Operation) -> None:
    map_regs(lw, op, lambda c, a, b: lw.b.select(c, a, b))


_CASTS = {"arith.extsi": "sext", "arith.extui": "zext", "arith.trunci": "trunc", "arith.sitofp": "sitofp",
          "arith.uitofp": "uitofp", "arith.fptosi": "fptosi", "arith.fptoui": "fptoui", "arith.extf": "fpext",
          "arith.truncf": "fptrunc", "arith.bitcast": "bitcast"}


def _cast(lw: KernelLowering, op: Operation) -> None:
    method = _CASTS[op.name]
    dst = llvm_type(element_type(op.result.type))
    src = llvm_type(element_type(op.operands[0].type))
    if src == dst:
        map_regs(lw, op, lambda a: a)
        return
    if dst == BF16 and lw.capability < 90:
        if method == "fptrunc" and src == F64:
            map_regs(lw, op, lambda a: _f64_to_bf16(lw, a))
            return
        if method in ("sitofp", "uitofp") and src.width >= 32:
            map_regs(lw, op, lambda a: _int_to_bf16(lw, a, method == "sitofp"))
            return
    map_regs(lw, op, lambda a: getattr(lw.b, method)(a, dst))


def _odd_to_bf16(lw: KernelLowering, f: ir.Value, inexact: ir.Value) -> ir.Value:
    """``f`` (f32, rounded toward zero) with its lowest bit set if inexact, rounded to bf16."""
    b = lw.b
    bits = b.or_(b.bitcast(f, I32), b.zext(inexact, I32))
    return b.fptrunc(b.bitcast(bits, F32), BF16)


def _f64_to_bf16(lw: KernelLowering, d: ir.Value) -> ir.Value:
    b = lw.b
    f = b.fptrunc(d, F32)
    back = b.fpext(f, F64)
    away = b.fcmp_ordered(">", intrinsic_call(lw, "fabs", [back]), intrinsic_call(lw, "fabs", [d]))
    bits = b.bitcast(f, I32)
    bits = b.select(away, b.sub(bits, const(I32, 1)), bits)
    return _odd_to_bf16(lw, b.bitcast(bits, F32), b.fcmp_unordered("!=", back, d))


def _int_to_bf16(lw: KernelLowering, x: ir.Value, signed: bool) -> ir.Value:
    b = lw.b
    wide = x.type.width == 64
    name = {(True, False): "i2f", (False, False): "ui2f", (True, True): "ll2f", (False, True): "ull2f"}[(signed, wide)]
    f = lw.call(f"llvm.nvvm.{name}.rz", F32, [x])
    back = b.fptosi(f, x.type) if signed else b.fptoui(f, x.type)
    return _odd_to_bf16(lw, f, b.icmp_unsigned("!=", back, x))


for _name in _CASTS:
    HANDLERS[_name] = _cast


@lowers("arith.constant")
def _constant(lw: KernelLowering, op: Operation) -> None:
    ty = llvm_type(element_type(op.result.type))
    value = op.attrs["value"]
    if ty == I1:
        value = 1 if value else 0
    c = const(ty, value)
    define(lw, op.result, [c] * num_regs(lw, op))
