"""A small SIMT simulator of the LLVM IR that ``tritonc.codegen.llvm`` builds, for CPU tests.

It runs one CTA at a time of a lowered kernel (the ``llvmlite.ir`` objects, before LLVM's
optimiser) on numpy: every instruction is evaluated for all ``num_warps * 32`` threads at
once (a value is an array over threads), so the warp-collective instructions (``ldmatrix``,
``mma.sync``, ``shfl``) see all their lanes. It is a check of the lowering's *index math*
(which element each thread loads, copies, swizzles and multiplies), not of the hardware:

* threads run in lock step, so a missing ``bar.sync`` does not change the values computed;
  instead every shared-memory access is recorded in shadow state (:mod:`tritonc.simt.races`:
  per byte, the warp and op that last wrote it and the warps that read it, per barrier epoch)
  and a read of a byte another warp wrote, or a write over a byte another warp read or wrote,
  with no ``bar.sync`` between raises :class:`~tritonc.simt.races.RaceError` naming both ops
  (``run_kernel(..., races=False)`` turns the check off). A ``bar.sync`` reached by only part
  of the CTA is an error;
* the f32 math intrinsics (``ex2.approx``, ``mul.rm``, ``div.full``, ``rsqrt.approx``,
  ``sin.approx``, ``cos.approx``) are computed in float64 and rounded once to f32 (the
  hardware's approximate results differ from these by at most their PTX error bounds);
  ``llvm.rint`` rounds half to even, ``llvm.nvvm.mulhi.ui`` (``mul.hi.u32``) is the high
  half of the 64-bit product;
* control flow must be uniform except the lowering's ``if (pred) { ... }`` diamonds (a
  conditional branch whose false target is where the true side rejoins), run under a mask;
* the inline-asm forms of ``codegen/llvm/memory.py`` (predicated ``ld.global``/``st.global``,
  optionally vectorised, and the ``mad.wide.s32`` that forms global addresses in loops: ``d =
  sext(a) * sext(b) + c`` mod 2^64) and ``atomics.py``'s vector ``red.global.add.vN.f32``
  (thread by thread, element by element, as ``atomicrmw``) are interpreted from their text;
* the tensor-core and asynchronous-copy instructions (``cp.async`` and its groups,
  ``ldmatrix``/``stmatrix``, ``mma.sync``, ``wgmma`` and its groups) are modelled in
  :mod:`tritonc.simt.tensor_core`, after the PTX ISA's fragment and descriptor definitions.

Values (numpy arrays over the threads) and the global and shared memory they are loaded from
are :mod:`tritonc.simt.memory`; the arithmetic, casts, math intrinsics and inline-asm forms are
:mod:`tritonc.simt.scalar_ops`, this module the control flow (masked diamonds, phis, barriers)
and the calls.

Usage: ``run_kernel(module, name, grid, args)`` with a ttg module (layouts, shared-memory
plan and barriers done); numpy arrays for pointer arguments (updated in place). To run an
edited lowering (e.g. a test that deletes a barrier), ``lower_for_simulation`` then
``run_lowered``. Atomics (``atomicrmw``, ``cmpxchg``) run one thread at a time in thread order
(``extra_ops.atomic``); the inline-asm forms other than the ones above raise
``NotImplementedError``.
"""
from __future__ import annotations

import re

import llvmlite.ir as ir
import numpy as np

from . import extra_ops
from .memory import GLOBAL_BASE, WARP, Memory, from_bytes, np_dtype, signed, size_of, to_bytes, wrap
from .races import RaceShadow, lane_bytes
from .scalar_ops import ScalarOps
from .tensor_core import TensorCoreOps


class Simulator(ScalarOps, TensorCoreOps):
    """One CTA of ``fn`` (``num_warps`` warps) on ``mem``; ``races``: keep the shadow state of
    shared memory and raise :class:`~tritonc.simt.races.RaceError` at the first race."""

    def __init__(self, fn: ir.Function, smem: ir.GlobalVariable, num_warps: int, mem: Memory,
                 args: list, ctaid: tuple[int, int, int], nctaid: tuple[int, int, int], races: bool = True):
        self.fn, self.smem, self.mem = fn, smem, mem
        self.T = num_warps * WARP
        self.shadow = RaceShadow(mem.s.size, num_warps) if races else None
        self.env: dict = {}
        for a, v in zip(fn.args, args):
            self.env[id(a)] = np.full(self.T, v, dtype=np_dtype(a.type) if not isinstance(a.type, ir.PointerType)
                                      else np.uint64)
        self.ctaid, self.nctaid = ctaid, nctaid
        self.init_async_state()

    # -- race shadow ----------------------------------------------------------------------------
    def op(self, inst, suffix: str = "", key=None) -> int:
        """The shadow's id of instruction ``inst`` (its text and block name, shortened)."""
        return self.shadow.op_id(key if key is not None else id(inst), lambda: self.op_text(inst) + suffix)

    @staticmethod
    def op_text(inst) -> str:
        """How a report names ``inst``: its LLVM text (an inline asm: its statement), its block."""
        callee = getattr(inst, "callee", None)
        if isinstance(callee, ir.InlineAsm):  # the asm statement, not the 64 operands of a wgmma
            stmts = [t.strip().lstrip("{").strip() for t in callee.asm.split(";")]
            stmt = next((t for t in stmts if "wgmma" in t), stmts[0])
            stmt = re.sub(r"\{[^}]*\}", "{...}", stmt)
            text = f'{getattr(inst, "name", "") and "%" + inst.name + " = "}asm "{stmt}"'
        else:
            text = str(inst).strip()
        if len(text) > 160:
            text = text[:157] + "..."
        block = getattr(inst, "parent", None)
        where = f" (block {block.name})" if isinstance(block, ir.Block) and block.name else ""
        return text + where

    def shadow_access(self, kind: str, inst, addr: np.ndarray, nbytes: int, mask: np.ndarray) -> None:
        """Record a shared-memory load or store of ``nbytes`` at ``addr`` by the lanes in ``mask``."""
        lanes = np.nonzero(mask)[0]
        a, w = lane_bytes(addr, lanes, nbytes)
        getattr(self.shadow, kind)(a, w, self.op(inst))

    # -- values --------------------------------------------------------------------------------
    def val(self, v):
        if isinstance(v, ir.Constant):
            return self.const(v)
        if isinstance(v, ir.GlobalVariable):
            return np.zeros(self.T, dtype=np.uint64)
        try:
            return self.env[id(v)]
        except KeyError:
            raise RuntimeError(f"value {v!r} used before definition") from None

    def const(self, c: ir.Constant):
        ty = c.type
        if isinstance(ty, ir.VectorType):
            if c.constant is None or c.constant is ir.Undefined:
                return np.zeros((self.T, ty.count), dtype=np_dtype(ty.element))
            return np.stack([self.const(e) for e in c.constant], axis=1)
        if isinstance(ty, ir.BaseStructType):
            return tuple(np.zeros(self.T, dtype=np_dtype(e)) for e in ty.elements)
        value = c.constant
        if value is None or value is ir.Undefined:
            value = 0
        if isinstance(ty, ir.IntType):
            return wrap(np.full(self.T, int(value), dtype=np.int64), ty.width)
        if isinstance(ty, ir.PointerType):
            return np.zeros(self.T, dtype=np.uint64)
        return np.full(self.T, float(value), dtype=np_dtype(ty))

    # -- driver --------------------------------------------------------------------------------
    def run(self) -> None:
        self.exec_from(self.fn.blocks[0], None, np.ones(self.T, dtype=bool), None)

    def exec_from(self, block: ir.Block, prev: ir.Block | None, mask: np.ndarray, stop: ir.Block | None):
        """Run from ``block`` until ``stop`` is reached (returns the block that jumped to it)."""
        joined = False  # the phis of ``block`` were set by a divergent diamond's join
        while True:
            if block is stop:
                return prev
            phis = [i for i in block.instructions if isinstance(i, ir.PhiInstr)]
            if phis and not joined:
                vals = []
                for p in phis:
                    src = next((v for v, b in p.incomings if b is prev), None)
                    if src is None:
                        raise RuntimeError(f"phi in {block.name} without incoming from {prev and prev.name}")
                    vals.append(self.val(src))
                for p, v in zip(phis, vals):
                    self.env[id(p)] = v
            for inst in block.instructions:
                if isinstance(inst, ir.PhiInstr):
                    continue
                if isinstance(inst, ir.Ret):
                    return None
                if isinstance(inst, ir.Branch) and not isinstance(inst, ir.ConditionalBranch):
                    prev, block = block, inst.operands[0]
                    joined = False
                    break
                if isinstance(inst, ir.ConditionalBranch):
                    cond, tb, fb = inst.operands
                    c = self.val(cond).astype(bool)
                    joined = False
                    if c[mask].all() or not mask.any():
                        prev, block = block, tb
                    elif not c[mask].any():
                        prev, block = block, fb
                    else:  # an if-then diamond: run the true side under a mask until it rejoins
                        last = self.exec_from(tb, block, mask & c, fb)
                        self.join_phis(fb, last, block, mask & c)
                        prev, block = last, fb
                        joined = True
                    break
                self.env[id(inst)] = self.exec(inst, mask)
            else:
                raise RuntimeError(f"block {block.name} has no terminator")

    def join_phis(self, join: ir.Block, then_end: ir.Block, head: ir.Block, taken: np.ndarray) -> None:
        """The phis of ``join`` after a divergent if-then diamond: per thread, the value from
        the true side's last block where the thread took it, else the one from ``head``."""
        for p in [i for i in join.instructions if isinstance(i, ir.PhiInstr)]:
            a = next(v for v, b in p.incomings if b is then_end)
            b_ = next(v for v, b in p.incomings if b is head)
            va, vb = self.val(a), self.val(b_)
            if isinstance(va, tuple):
                raise NotImplementedError("phi of a struct at a divergent join")
            self.env[id(p)] = np.where(taken if np.ndim(va) == 1 else taken[:, None], va, vb)

    # -- instructions --------------------------------------------------------------------------
    def exec(self, inst, mask):
        op = inst.opname
        o = inst.operands
        ty = inst.type
        with np.errstate(all="ignore"):
            if isinstance(inst, ir.CallInstr):
                return self.call(inst, mask)
            if isinstance(inst, (ir.AtomicRMW, ir.CmpXchg)):
                return extra_ops.atomic(self, inst, mask, to_bytes, from_bytes, size_of)
            if isinstance(inst, ir.Fence):
                return None
            if isinstance(inst, ir.GEPInstr):
                base = self.val(inst.pointer).astype(np.int64)
                etype = inst.source_etype
                idx = self.val(inst.indices[0])
                width = inst.indices[0].type.width
                off = signed(idx, width) * size_of(etype)
                return (base + off).astype(np.uint64)
            if isinstance(inst, ir.LoadInstr):
                ptr = o[0]
                addr = self.val(ptr)
                data = self.mem.read(ptr.type.addrspace, addr, size_of(ty), mask)
                if self.shadow is not None and ptr.type.addrspace == 3:
                    self.shadow_access("read", inst, addr, size_of(ty), mask)
                return from_bytes(data, ty)
            if isinstance(inst, ir.StoreInstr):
                value, ptr = o
                data = to_bytes(self.val(value), value.type)
                addr = self.val(ptr)
                self.mem.write(ptr.type.addrspace, addr, data, mask)
                if self.shadow is not None and ptr.type.addrspace == 3:
                    self.shadow_access("write", inst, addr, data.shape[1], mask)
                return None
            if isinstance(inst, ir.ICMPInstr):
                return self.icmp(inst.op, self.val(o[0]), self.val(o[1]), o[0].type)
            if isinstance(inst, ir.FCMPInstr):
                return self.fcmp(inst.op, self.val(o[0]), self.val(o[1]))
            if isinstance(inst, ir.SelectInstr):
                c = self.val(o[0]).astype(bool)
                a, b = self.val(o[1]), self.val(o[2])
                if isinstance(a, tuple):
                    raise NotImplementedError("select of a struct")
                return np.where(c if a.ndim == 1 else c[:, None], a, b)
            if isinstance(inst, ir.CastInstr):
                return self.cast(op, self.val(o[0]), o[0].type, ty)
            if isinstance(inst, ir.ExtractElement):
                vec, i = self.val(o[0]), self.val(o[1])
                return vec[np.arange(self.T), i.astype(np.int64)]
            if isinstance(inst, ir.InsertElement):
                vec, x, i = self.val(o[0]).copy(), self.val(o[1]), self.val(o[2])
                vec[np.arange(self.T), i.astype(np.int64)] = x
                return vec
            if isinstance(inst, ir.ExtractValue):
                agg = self.val(o[0])
                return agg[inst.indices[0]]
            if isinstance(inst, ir.InsertValue):
                agg = list(self.val(o[0]))
                agg[inst.indices[0]] = self.val(o[1])
                return tuple(agg)
            if op in ("add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "urem", "sdiv",
                      "srem"):
                return self.int_binary(op, self.val(o[0]), self.val(o[1]), ty)
            if op in ("fadd", "fsub", "fmul", "fdiv", "frem"):
                a, b = self.val(o[0]).astype(np.float64), self.val(o[1]).astype(np.float64)
                r = {"fadd": a + b, "fsub": a - b, "fmul": a * b, "fdiv": a / b, "frem": np.fmod(a, b)}[op]
                return r.astype(np_dtype(ty))
            if op == "fneg":
                return (-self.val(o[0]).astype(np.float64)).astype(np_dtype(ty))
            if op == "freeze":  # the lowering freezes only values that are never poison
                return self.val(o[0])
        raise NotImplementedError(f"simulator: instruction {op} ({type(inst).__name__})")

    # -- calls ---------------------------------------------------------------------------------
    def call(self, inst, mask):
        callee = inst.callee
        args = inst.args
        if isinstance(callee, ir.InlineAsm):
            return self.inline_asm(callee, [self.val(a) for a in args], [a.type for a in args], inst.type, mask,
                                   inst)
        name = callee.name
        if name.startswith("llvm.nvvm.read.ptx.sreg."):
            reg = name[len("llvm.nvvm.read.ptx.sreg."):]
            kind, axis = reg.split(".")
            i = "xyz".index(axis)
            value = {"tid": np.arange(self.T) if i == 0 else np.zeros(self.T), "ntid": np.full(self.T, self.T if i == 0 else 1),
                     "ctaid": np.full(self.T, self.ctaid[i]), "nctaid": np.full(self.T, self.nctaid[i])}[kind]
            return wrap(np.asarray(value, dtype=np.int64), 32)
        if name in ("llvm.nvvm.barrier.cta.sync.aligned.all", "llvm.nvvm.barrier0"):
            if not mask.all():
                raise RuntimeError(
                    f"simulator: {name} reached by {int(mask.sum())} of the CTA's {self.T} threads "
                    "(a barrier in divergent code)")
            if self.shadow is not None:
                self.shadow.barrier()
            return None
        if name in ("llvm.assume", "llvm.nvvm.bar.warp.sync", "llvm.nvvm.fence.proxy.async.shared_cta",
                    "llvm.nvvm.wgmma.fence.sync.aligned"):
            return None
        if name == "llvm.nvvm.wgmma.commit_group.sync.aligned":
            return self.wgmma_commit()
        if name == "llvm.nvvm.wgmma.wait_group.sync.aligned":
            self.wgmma_wait(int(args[0].constant), inst)
            return None
        if name.startswith("llvm.nvvm.ldmatrix.sync.aligned.m8n8."):
            return self.ldmatrix(name, self.val(args[0]), inst)
        if name.startswith("llvm.nvvm.stmatrix.sync.aligned.m8n8."):
            return self.stmatrix(name, self.val(args[0]), [self.val(a) for a in args[1:]], inst)
        if name.startswith("llvm.nvvm.mma."):
            return self.mma(name, [self.val(a) for a in args])
        if name.startswith("llvm.nvvm.cp.async.") and ".shared.global." in name:
            return self.cp_async(name, [self.val(a) for a in args], mask, inst)
        if name == "llvm.nvvm.cp.async.commit.group":
            return self.cp_async_commit()
        if name == "llvm.nvvm.cp.async.wait.group":
            return self.cp_async_wait(int(args[0].constant), inst)
        if name == "llvm.nvvm.cp.async.wait.all":
            return self.call_wait_all(inst)
        if name == "llvm.nvvm.f2tf32.rna":
            x = self.val(args[0]).astype(np.float32).view(np.uint32).astype(np.uint64)
            r = ((x + 0x1000) & 0xFFFFE000).astype(np.uint32)
            return r
        if name in ("llvm.nvvm.ex2.approx.f", "llvm.nvvm.ex2.approx.ftz.f", "llvm.nvvm.mul.rm.f",
                    "llvm.nvvm.div.full", "llvm.nvvm.rsqrt.approx.f", "llvm.nvvm.sin.approx.f",
                    "llvm.nvvm.cos.approx.f"):
            return self.f32_math(name, [self.val(x).astype(np.float64) for x in args])
        if name.startswith(("llvm.fabs.", "llvm.floor.", "llvm.ceil.", "llvm.sqrt.", "llvm.rint.")):
            f = {"fabs": np.abs, "floor": np.floor, "ceil": np.ceil, "sqrt": np.sqrt,
                 "rint": np.rint}[name.split(".")[1]]
            return f(self.val(args[0]).astype(np.float64)).astype(np_dtype(inst.type))
        if name.startswith("llvm.fma."):
            a, b, c = (self.val(x).astype(np.float64) for x in args)
            return (a * b + c).astype(np_dtype(inst.type))
        if name.startswith(("llvm.maxnum.", "llvm.minnum.")):
            a, b = (self.val(x).astype(np.float64) for x in args)
            f = np.fmax if "max" in name else np.fmin
            return f(a, b).astype(np_dtype(inst.type))
        if name == "llvm.nvvm.mulhi.ui":  # mul.hi.u32: the high half of the 64-bit product
            a, b = (self.val(x).astype(np.uint64) for x in args)
            return ((a * b) >> np.uint64(32)).astype(np.uint32)
        if name.startswith(("llvm.smax.", "llvm.smin.", "llvm.umax.", "llvm.umin.")):
            w = inst.type.width
            a, b = (self.val(x) for x in args)
            if name.startswith("llvm.s"):
                a, b = signed(a, w), signed(b, w)
            f = np.maximum if "max" in name else np.minimum
            return wrap(f(a, b).astype(np.int64), w)
        if name.startswith("llvm.nvvm.shfl.sync.bfly."):
            _, x, lanemask, _ = (self.val(a) for a in args)
            lane = np.arange(self.T) % WARP
            src = (np.arange(self.T) - lane) + (lane ^ lanemask.astype(np.int64))
            return x[src.astype(np.int64)]
        result = extra_ops.call_intrinsic(name, [self.val(a) for a in args], np_dtype(inst.type))
        if result is not None:
            return result
        raise NotImplementedError(f"simulator: call of {name}")

def lower_for_simulation(module, arch: str = "sm_90"):
    """Lower ``module``'s kernels; returns ``{name: (ir.Function, KernelInfo)}`` and the smem global."""
    from tritonc.codegen.llvm import lower_module  # noqa: F401  (registers every handler)
    from tritonc.codegen.llvm.lowering import I8, SPTR, KernelLowering
    from tritonc.target import DATALAYOUT, TRIPLE, Target

    num_warps = int(module.attrs.get("num_warps", 4))
    llmod = ir.Module(name="sim", context=ir.Context())
    llmod.triple = TRIPLE
    llmod.data_layout = DATALAYOUT
    smem = ir.GlobalVariable(llmod, ir.ArrayType(I8, 0), "global_smem", addrspace=3)
    smem.linkage = "external"
    smem.type = SPTR
    out = {}
    for f in module.functions:
        if f.kind != "kernel":
            continue
        warps = module.num_warps_of(f, num_warps)
        kl = KernelLowering(llmod, smem, f, warps, Target(arch))
        info = kl.build()
        out[f.name] = (kl.fn, info, warps)
    return out, smem


def run_kernel(module, name: str, grid, args: list, arch: str = "sm_90", *, races: bool = True) -> None:
    """Run kernel ``name`` of a ttg ``module`` over ``grid`` (CTA by CTA); pointer arguments are
    numpy arrays, updated in place (the same array object passed twice is one buffer, as an
    in-place kernel expects; distinct arrays never overlap, views included).

    ``races`` (default on): check every CTA for shared-memory races between warps and raise
    :class:`~tritonc.simt.races.RaceError` (an ``AssertionError``) at the first one."""
    kernels, smem = lower_for_simulation(module, arch)
    run_lowered(kernels[name], smem, grid, args, races=races)


def run_lowered(kernel, smem, grid, args: list, *, races: bool = True) -> None:
    """Run a kernel as :func:`lower_for_simulation` returns it (``(ir.Function, KernelInfo,
    num_warps)`` and the shared-memory global ``smem``), e.g. after a test edited its LLVM IR;
    ``grid``, ``args`` and ``races`` as in :func:`run_kernel`."""
    fn, info, num_warps = kernel
    grid = (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid)
    grid = grid + (1,) * (3 - len(grid))
    arrays = list({id(a): a for a in args if isinstance(a, np.ndarray)}.values())  # one buffer per array
    mem = Memory(arrays, info.shared_bytes)
    address = {id(a): addr for a, addr in zip(arrays, mem.addresses)}
    values = []
    for a, larg in zip(args, fn.args):
        if isinstance(a, np.ndarray):
            values.append(address[id(a)])  # an array passed twice: both arguments alias it
        elif isinstance(larg.type, ir.IntType):
            values.append(int(a) & ((1 << larg.type.width) - 1))
        else:
            values.append(a)
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                mem.s[:] = 0xAB
                Simulator(fn, smem, num_warps, mem, values, (x, y, z), grid, races=races).run()
    for a, addr in zip(arrays, mem.addresses):
        data = mem.g[addr - GLOBAL_BASE:addr - GLOBAL_BASE + a.nbytes]
        a[...] = np.frombuffer(data.tobytes(), dtype=a.dtype).reshape(a.shape)
