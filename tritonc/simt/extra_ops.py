"""Math intrinsics, atomics and fences for the SIMT simulator (:mod:`tritonc.simt.simulator`).

The code generator's math lowering (``codegen/llvm/math_ops.py``, ``elementwise.py``) calls
LLVM and NVVM intrinsics, and its atomics (``codegen/llvm/atomics.py``) are ``atomicrmw`` and
``cmpxchg`` instructions between ``fence``s. Their semantics here, value per thread:

* IEEE intrinsics (``llvm.sqrt/fabs/floor/ceil/rint/fma/copysign``, ``llvm.abs.iN``) are exact
  (computed in float64 and rounded once to the result type, which is exact for ``f32``
  ``sqrt`` as float64 has more than twice the bits);
* the NVVM approximations (``ex2.approx``, ``rsqrt.approx``, ``sin/cos.approx``,
  ``div.full``) are computed correctly rounded: the simulator checks index math, and the
  differential fuzzer's tolerance covers the documented error of the hardware instruction
  (PTX ISA 9.7.3: ``ex2.approx.f32`` 2 ulp, ``sin/cos.approx.f32`` about 2^-20.9 absolute
  on [-pi, pi], ``rsqrt.approx.f32`` about 2^-22.9 relative, ``div.full.f32`` 2 ulp);
* ``mul.rm.f`` and the ``*.rz`` integer-to-float conversions round toward -inf and zero;
* atomics apply lane by lane in thread order (one thread's read-modify-write at a time), as
  the hardware serialises atomics on one address; ``fence`` is a no-op in lock step.
"""
from __future__ import annotations

import llvmlite.ir as ir
import numpy as np


def _round_toward(exact: np.ndarray, dtype, direction: str) -> np.ndarray:
    """``exact`` (float64) rounded to ``dtype`` toward ``-inf`` (``"rm"``) or zero (``"rz"``)."""
    r = exact.astype(dtype)
    back = r.astype(np.float64)
    if direction == "rm":
        fix = back > exact
        r = np.where(fix, np.nextafter(r, dtype(-np.inf)), r)
    else:
        fix = np.abs(back) > np.abs(exact)
        r = np.where(fix, np.nextafter(r, dtype(0)), r)
    return r.astype(dtype)


def _f64(x) -> np.ndarray:
    return np.asarray(x).astype(np.float64)


def _int_exact(x: np.ndarray, width: int, signed: bool) -> list[int]:
    """Python ints of an unsigned-bit-pattern array (the simulator's integer representation)."""
    vals = [int(v) for v in np.asarray(x).astype(np.uint64)]
    if signed:
        vals = [v - (1 << width) if v >= (1 << (width - 1)) else v for v in vals]
    return vals


def call_intrinsic(name: str, args: list, ret_dtype):
    """The per-thread result of intrinsic ``name`` on ``args`` (arrays over threads), or
    ``None`` when the intrinsic is not one of this module's."""
    if name.startswith("llvm.nvvm.ex2.approx."):
        return np.exp2(_f64(args[0])).astype(ret_dtype)
    if name == "llvm.nvvm.mul.rm.f":
        return _round_toward(_f64(args[0]) * _f64(args[1]), np.float32, "rm")
    if name == "llvm.nvvm.div.full":
        return (_f64(args[0]) / _f64(args[1])).astype(np.float32)
    if name.startswith("llvm.nvvm.rsqrt.approx."):
        return (1.0 / np.sqrt(_f64(args[0]))).astype(ret_dtype)
    if name.startswith("llvm.nvvm.sin.approx."):
        return np.sin(_f64(args[0])).astype(ret_dtype)
    if name.startswith("llvm.nvvm.cos.approx."):
        return np.cos(_f64(args[0])).astype(ret_dtype)
    for conv, signed in (("i2f", True), ("ui2f", False), ("ll2f", True), ("ull2f", False)):
        if name == f"llvm.nvvm.{conv}.rz":
            width = 64 if conv.startswith(("ll", "ull")) else 32
            ints = _int_exact(args[0], width, signed)
            out = np.empty(len(ints), np.float32)
            for i, v in enumerate(ints):  # exact: Python int -> float rounds once, then toward zero
                f = np.float32(float(v))
                if np.isfinite(f) and abs(int(f)) > abs(v):
                    f = np.nextafter(f, np.float32(0))
                out[i] = f
            return out
    base = name.split(".")
    if len(base) >= 3 and base[0] == "llvm":
        fn = base[1]
        if fn == "abs" and base[2].startswith("i"):
            width = int(base[2][1:])
            x = np.asarray(args[0]).astype(np.uint64)
            sign = (x >> np.uint64(width - 1)) & np.uint64(1)
            mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
            neg = ((~x) + np.uint64(1)) & mask
            return np.where(sign == 1, neg, x).astype(np.asarray(args[0]).dtype)
        unary = {"sqrt": np.sqrt, "fabs": np.abs, "floor": np.floor, "ceil": np.ceil, "rint": np.rint,
                 "trunc": np.trunc}
        if fn in unary:
            return unary[fn](_f64(args[0])).astype(ret_dtype)
        if fn == "copysign":
            return np.copysign(_f64(args[0]), _f64(args[1])).astype(ret_dtype)
    return None


RMW_INT = {
    "add": lambda o, v, w, s: o + v, "sub": lambda o, v, w, s: o - v, "xchg": lambda o, v, w, s: v,
    "and": lambda o, v, w, s: o & v, "or": lambda o, v, w, s: o | v, "xor": lambda o, v, w, s: o ^ v,
    "max": lambda o, v, w, s: max(o, v), "min": lambda o, v, w, s: min(o, v),
    "umax": lambda o, v, w, s: max(o, v), "umin": lambda o, v, w, s: min(o, v),
}


def as_signed(v: int, width: int) -> int:
    return v - (1 << width) if v >= (1 << (width - 1)) else v


def atomic(sim, inst, mask: np.ndarray, to_bytes, from_bytes, size_of):
    """Execute an ``atomicrmw`` or ``cmpxchg`` instruction for the threads in ``mask``, one
    thread at a time in thread order; returns the old values (and, for ``cmpxchg``, the
    ``{old, success}`` pair)."""
    ptr_v = inst.operands[0]
    addr = sim.val(ptr_v)
    space = ptr_v.type.addrspace
    if isinstance(inst, ir.CmpXchg):
        ty = inst.operands[1].type
        cmp, new = sim.val(inst.operands[1]), sim.val(inst.operands[2])
    else:
        ty = inst.operands[1].type
        new = sim.val(inst.operands[1])
        cmp = None
    nbytes = size_of(ty)
    old = from_bytes(np.zeros((sim.T, nbytes), np.uint8), ty).copy()
    success = np.zeros(sim.T, bool)
    for t in np.nonzero(mask)[0]:
        one = np.zeros(sim.T, bool)
        one[t] = True
        cur = from_bytes(sim.mem.read(space, addr, nbytes, one), ty)
        old[t] = cur[t]
        if cmp is not None:
            if to_bytes(cur, ty)[t].tobytes() == to_bytes(cmp, ty)[t].tobytes():
                sim.mem.write(space, addr, to_bytes(new, ty), one)
                success[t] = True
            continue
        op = inst.operation
        if isinstance(ty, ir.IntType):
            w = ty.width
            o, v = int(cur[t]), int(new[t])
            if op in ("max", "min"):
                o, v = as_signed(o, w), as_signed(v, w)
            r = RMW_INT[op](o, v, w, op in ("max", "min")) & ((1 << w) - 1)
            res = np.array(cur)
            res[t] = r
        else:
            o, v = float(cur[t]), float(new[t])
            r = {"fadd": o + v, "fsub": o - v, "xchg": v, "fmax": max(o, v) if not np.isnan(o) else v,
                 "fmin": min(o, v) if not np.isnan(o) else v}[op]
            res = np.array(cur)
            res[t] = r
        sim.mem.write(space, addr, to_bytes(res, ty), one)
    if cmp is not None:
        return (old, success)
    return old
