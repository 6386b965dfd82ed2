"""The scalar instructions of the SIMT simulator (:mod:`tritonc.simt.simulator`): integer and
float arithmetic, comparisons and casts over all threads at once (numpy arrays over threads,
LLVM's wrap-around and rounding), the f32 math intrinsics (computed in float64, rounded once),
and the inline-asm forms of ``codegen/llvm/memory.py`` and ``atomics.py`` interpreted from their
text (the wgmma ones are handed to :class:`~tritonc.simt.tensor_core.TensorCoreOps`).
"""
from __future__ import annotations

import re

import llvmlite.ir as ir
import numpy as np

from . import extra_ops
from .memory import from_bytes, np_dtype, signed, size_of, to_bytes, wrap


class ScalarOps:
    """Mixed into :class:`~tritonc.simt.simulator.Simulator`, whose state it reads (``T``
    threads, ``mem``)."""

    def int_binary(self, op, a, b, ty):
        if isinstance(ty, ir.VectorType):
            raise NotImplementedError("vector integer arithmetic")
        w = ty.width
        if w == 1:
            a, b = a.astype(bool), b.astype(bool)
            return {"and": a & b, "or": a | b, "xor": a ^ b, "add": a ^ b, "sub": a ^ b, "mul": a & b}[op]
        ua, ub = a.astype(np.uint64), b.astype(np.uint64)
        if op == "add":
            r = ua + ub
        elif op == "sub":
            r = ua - ub
        elif op == "mul":
            r = ua * ub
        elif op == "shl":
            r = np.where(ub < w, ua << (ub % 64), 0)
        elif op == "lshr":
            r = np.where(ub < w, ua >> (ub % 64), 0)
        elif op == "ashr":
            r = (signed(a, w) >> np.minimum(ub, w - 1).astype(np.int64)).astype(np.int64)
        elif op == "and":
            r = ua & ub
        elif op == "or":
            r = ua | ub
        elif op == "xor":
            r = ua ^ ub
        elif op == "udiv":
            r = np.where(ub == 0, 0, ua // np.where(ub == 0, 1, ub))
        elif op == "urem":
            r = np.where(ub == 0, 0, ua % np.where(ub == 0, 1, ub))
        else:
            sa, sb = signed(a, w), signed(b, w)
            sb1 = np.where(sb == 0, 1, sb)
            q = sa // sb1  # exact integer division (a float quotient loses bits above 2^53),
            q = q + ((sa % sb1 != 0) & ((sa < 0) != (sb1 < 0)))  # rounded toward zero as in LLVM
            r = q if op == "sdiv" else sa - q * sb1
        return wrap(np.asarray(r).astype(np.uint64).view(np.int64) if np.asarray(r).dtype == np.uint64 else r, w)

    def icmp(self, pred, a, b, ty):
        w = ty.width if isinstance(ty, ir.IntType) else 64
        if pred[0] == "s" and pred not in ("eq", "ne"):
            a, b = signed(a, w), signed(b, w)
        else:
            a, b = a.astype(np.uint64), b.astype(np.uint64)
        p = pred.lstrip("su") if pred not in ("eq", "ne") else pred
        return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[p]

    def fcmp(self, pred, a, b):
        a, b = a.astype(np.float64), b.astype(np.float64)
        nan = np.isnan(a) | np.isnan(b)
        base = {"oeq": a == b, "one": a != b, "olt": a < b, "ole": a <= b, "ogt": a > b, "oge": a >= b,
                "ueq": a == b, "une": a != b, "ult": a < b, "ule": a <= b, "ugt": a > b, "uge": a >= b,
                "ord": ~nan, "uno": nan}
        key = pred if pred in base else {"==": "oeq", "!=": "une", "<": "olt", "<=": "ole", ">": "ogt",
                                         ">=": "oge"}.get(pred, pred)
        r = base[key]
        if key.startswith("o"):
            return r & ~nan
        if key.startswith("u") and key != "uno":
            return r | nan
        return r

    def cast(self, op, x, src, dst):
        if op == "bitcast":
            data = to_bytes(x, src)
            return from_bytes(data, dst)
        if op in ("zext", "trunc"):
            if isinstance(src, ir.IntType) and src.width == 1:
                return wrap(x.astype(np.int64), dst.width)
            return wrap(x.astype(np.uint64).view(np.int64) if x.dtype == np.uint64 else x.astype(np.int64), dst.width)
        if op == "sext":
            return wrap(signed(x, src.width), dst.width)
        if op in ("fpext", "fptrunc"):
            return x.astype(np.float64).astype(np_dtype(dst)) if op == "fptrunc" else x.astype(np_dtype(dst))
        if op == "sitofp":
            return signed(x, src.width).astype(np.float64).astype(np_dtype(dst))
        if op == "uitofp":
            return x.astype(np.float64).astype(np_dtype(dst))
        if op == "fptosi":
            return wrap(np.trunc(x.astype(np.float64)).astype(np.int64), dst.width)
        if op == "fptoui":
            return wrap(np.trunc(x.astype(np.float64)).astype(np.int64), dst.width)
        if op in ("ptrtoint", "inttoptr"):
            return x.astype(np.uint64) if op == "inttoptr" else wrap(x.astype(np.uint64).view(np.int64), dst.width)
        raise NotImplementedError(f"cast {op}")

    @staticmethod
    def f32_math(name: str, a: list) -> np.ndarray:
        """The f32 math intrinsics of ``codegen/llvm/math_ops.py``, computed in float64 and
        rounded once (the hardware's approximate ones are within their error bounds of these,
        PTX ISA 9.7.3): ``ex2.approx`` (``.ftz``: subnormal results flushed to 0), ``mul.rm`` (rounded
        toward -inf), ``div.full``, ``rsqrt.approx``, ``sin.approx``/``cos.approx`` (absolute
        error about 2^-21 on the hardware, PTX ISA 9.7.3.18-19)."""
        if name.startswith("llvm.nvvm.ex2."):
            r = np.exp2(a[0]).astype(np.float32)
            if ".ftz." in name:
                r = np.where(np.abs(r) < np.finfo(np.float32).tiny, np.float32(0), r)
            return r
        if name == "llvm.nvvm.mul.rm.f":
            p = a[0] * a[1]  # exact in float64 (24-bit significands)
            r = p.astype(np.float32)
            return np.where(r.astype(np.float64) > p, np.nextafter(r, np.float32(-np.inf)), r)
        if name == "llvm.nvvm.div.full":
            return (a[0] / a[1]).astype(np.float32)
        if name in ("llvm.nvvm.sin.approx.f", "llvm.nvvm.cos.approx.f"):
            return (np.sin if ".sin." in name else np.cos)(a[0]).astype(np.float32)
        return (1.0 / np.sqrt(a[0])).astype(np.float32)

    def _atom(self, op: str, kind: str, bits: int, addr, srcs, mask) -> np.ndarray:
        """``atom.<op>.<kind><bits>`` (kind ``s``/``u``/``b`` integers, ``f`` floats; ``cas`` or
        one of ``extra_ops.atomic``'s read-modify-writes) at the addresses ``addr`` for the
        threads in ``mask``, one at a time in thread order; returns each thread's old value as
        raw bits (PTX ISA 9.7.13.5)."""
        nb, ones = bits // 8, (1 << bits) - 1
        udt = {32: np.uint32, 64: np.uint64}[bits]
        rmw = {"exch": "xchg"}.get(op, op)
        if kind == "u" and op in ("max", "min"):
            rmw = "u" + op
        where = np.asarray(addr).astype(np.int64).astype(np.uint64)
        old = np.zeros(self.T, dtype=np.int64)
        for t in np.nonzero(mask)[0]:
            one = np.zeros(self.T, bool)
            one[t] = True
            raw = int(np.frombuffer(self.mem.read(1, where, nb, one)[t].tobytes(), udt)[0])
            if kind == "f":  # add.f32: the only float form atomics.py emits
                fdt = {32: np.float32, 64: np.float64}[bits]
                total = np.array(raw, udt).view(fdt) + fdt(np.asarray(srcs[0])[t])
                new = int(np.array(total, fdt).view(udt))
            elif op == "cas":
                cmp, val = (int(np.asarray(v)[t]) & ones for v in srcs)
                new = val if raw == cmp else raw
            else:
                cur, val = raw, int(np.asarray(srcs[0])[t]) & ones
                if kind == "s":
                    cur, val = extra_ops.as_signed(cur, bits), extra_ops.as_signed(val, bits)
                new = extra_ops.RMW_INT[rmw](cur, val, bits, kind == "s") & ones
            data = np.zeros((self.T, nb), np.uint8)
            data[t] = np.frombuffer(np.array(new, udt).tobytes(), np.uint8)
            self.mem.write(1, where, data, one)
            old[t] = np.array(raw, np.uint64).astype(np.int64)
        return old

    # -- inline asm (codegen's memory.py: predicated global accesses, mad.wide addresses) -------
    def inline_asm(self, asm: ir.InlineAsm, vals, types, ret_ty, mask, inst=None):
        text = asm.asm
        if "wgmma.mma_async" in text:
            return self.wgmma(text, vals, inst)
        if text.startswith("wgmma.wait_group.sync.aligned"):
            self.wgmma_wait(int(text.split()[1].rstrip(";")), inst)
            return tuple(np.asarray(v).astype(np.float32) for v in vals)
        outs_types = list(ret_ty.elements) if isinstance(ret_ty, ir.BaseStructType) else (
            [] if isinstance(ret_ty, ir.VoidType) else [ret_ty])
        nout = len(outs_types)
        regs: dict[int, np.ndarray] = {}
        for i, v in enumerate(vals):
            regs[nout + i] = v

        def operand(tok):
            tok = tok.strip()
            m_ = re.fullmatch(r"\$(\d+)", tok)
            if m_:
                return regs[int(m_.group(1))]
            return np.full(self.T, int(tok, 0), dtype=np.int64)

        for stmt in [s.strip() for s in re.split(r";", text) if s.strip()]:
            pred = np.ones(self.T, dtype=bool)
            m_ = re.match(r"@(!?)\$(\d+)\s+(.*)", stmt, re.S)
            if m_:
                p = regs[int(m_.group(2))].astype(bool)
                pred = ~p if m_.group(1) else p
                stmt = m_.group(3)
            stmt = stmt.strip()
            mv = re.match(r"mov\.\w+\s+\$(\d+),\s*(.+)", stmt)
            if mv:
                dst = int(mv.group(1))
                regs[dst] = operand(mv.group(2))
                continue
            mad = re.match(r"mad\.wide\.s32\s+\$(\d+),\s*([^,]+),\s*([^,]+),\s*([^,]+)$", stmt)
            if mad:  # d = sext(a) * sext(b) + c, 32 x 32 -> 64 bits, c and d 64 bits (mod 2^64)
                a, b_, c = (operand(mad.group(k)) for k in (2, 3, 4))
                prod = signed(wrap(a, 32), 32) * signed(wrap(b_, 32), 32)
                res = prod.view(np.uint64) + np.asarray(c).astype(np.int64).view(np.uint64)
                dst = int(mad.group(1))
                regs[dst] = np.where(pred, res, regs.get(dst, res))
                continue
            ld = re.match(r"ld\.global(?:\.[a-z]+)*?(?:\.v(\d))?\.(\w+)\s+(\{[^}]*\}|\$\d+),\s*\[\s*\$(\d+)\s*\+\s*(-?\d+)\s*\]", stmt)
            if ld:
                vecn = int(ld.group(1) or 1)
                tname = ld.group(2)
                bits = int(re.sub(r"\D", "", tname))
                dsts = [int(x) for x in re.findall(r"\$(\d+)", ld.group(3))]
                addr = regs[int(ld.group(4))].astype(np.int64) + int(ld.group(5))
                nb = max(1, bits // 8)
                data = self.mem.read(1, addr.astype(np.uint64), nb * vecn, mask & pred)
                for j, d in enumerate(dsts):
                    chunk = data[:, j * nb:(j + 1) * nb]
                    val = np.zeros(self.T, dtype=np.int64)
                    for k in range(nb):
                        val |= chunk[:, k].astype(np.int64) << (8 * k)
                    old = regs.get(d, np.zeros(self.T, dtype=np.int64)).astype(np.int64)
                    regs[d] = np.where(mask & pred, val, old)
                continue
            st = re.match(r"st\.global(?:\.[a-z]+)*?(?:\.v(\d))?\.(\w+)\s+\[\s*\$(\d+)\s*\+\s*(-?\d+)\s*\],\s*(\{[^}]*\}|\$\d+)", stmt)
            if st:
                tname = st.group(2)
                bits = int(re.sub(r"\D", "", tname))
                nb = max(1, bits // 8)
                srcs = [int(x) for x in re.findall(r"\$(\d+)", st.group(5))]
                addr = regs[int(st.group(3))].astype(np.int64) + int(st.group(4))
                data = np.zeros((self.T, nb * len(srcs)), dtype=np.uint8)
                for j, s_ in enumerate(srcs):
                    v = regs[s_]
                    raw = np.asarray(v).astype(np.int64) if v.dtype.kind in "iub" else \
                        np.ascontiguousarray(v).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[v.dtype.itemsize]).astype(np.int64)
                    for k in range(nb):
                        data[:, j * nb + k] = (raw >> (8 * k)) & 0xFF
                self.mem.write(1, addr.astype(np.uint64), data, mask & pred)
                continue
            red = re.match(r"red(?:\.[a-z]+)*?\.global\.add\.v(\d)\.f32\s+\[\s*\$(\d+)\s*\+\s*(-?\d+)\s*\],\s*(\{[^}]*\})",
                           stmt)
            if red:  # atomics.py's vector red: per thread in thread order, per element, f32 adds
                srcs = [int(x) for x in re.findall(r"\$(\d+)", red.group(4))]
                base = regs[int(red.group(2))].astype(np.int64) + int(red.group(3))
                for t in np.nonzero(mask & pred)[0]:
                    one = np.zeros(self.T, bool)
                    one[t] = True
                    for j, s_ in enumerate(srcs):
                        addr = (base + 4 * j).astype(np.uint64)
                        cur = self.mem.read(1, addr, 4, one)[t].copy().view(np.float32)[0]
                        new = np.float32(cur + np.float32(np.asarray(regs[s_])[t]))
                        data = np.zeros((self.T, 4), np.uint8)
                        data[t] = np.frombuffer(new.tobytes(), np.uint8)
                        self.mem.write(1, addr, data, one)
                continue
            atom = re.match(r"atom\.acq_rel\.gpu\.global\.(\w+)\.([subf])(\d+)\s+\$(\d+),\s*\[\$(\d+)\],\s*(.+)$",
                            stmt)
            if atom:  # atomics.py's scalar atomics: one thread at a time in thread order
                regs[int(atom.group(4))] = self._atom(atom.group(1), atom.group(2), int(atom.group(3)),
                                                      regs[int(atom.group(5))],
                                                      [regs[int(x)] for x in re.findall(r"\$(\d+)", atom.group(6))],
                                                      mask & pred)
                continue
            raise NotImplementedError(f"simulator: inline asm statement {stmt!r}")
        outs = []
        for i, t in enumerate(outs_types):
            v = regs[i]
            if isinstance(t, ir.IntType):
                outs.append(wrap(np.asarray(v).astype(np.int64), t.width))
            else:
                raw = wrap(np.asarray(v).astype(np.int64), 8 * size_of(t))
                outs.append(from_bytes(to_bytes(raw, ir.IntType(8 * size_of(t))), t))
        if not outs_types:
            return None
        return tuple(outs) if len(outs) > 1 else outs[0]
