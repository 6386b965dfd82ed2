"""The kernel-level driver of the ttg -> LLVM IR (NVPTX) lowering.

Preconditions: a verified ttg module (every tile has a blocked or slice layout, see
``transforms/assign_layouts.py``); device functions already inlined (``tt.call`` is refused).

Value model: a scalar (0-d) IR value is *uniform*: one LLVM value that every thread computes.
A tile is a Python list of LLVM values, one per register of its layout (``layout_math.py``
says which element each register of each thread holds). Lowering an op is a local job done
by a handler registered with :func:`lowers` in one of the op-family modules
(``elementwise``, ``memory``, ``reduce``, ``convert``, ``dot_fma``, ``atomics``,
``control_flow``, ``tile_ops``); it reads its operands' registers and defines its results'.

Kernel ABI (what launchers build on, ``KernelInfo.params``): ``define ptx_kernel void
@name(...)`` with ``"nvvm.maxntid"="<num_warps*32>"`` (and ``"nvvm.minctasm"="2"``,
``.minnctapersm 2``, where :func:`min_ctas_per_sm` says so); pointers are ``ptr addrspace(1)``
with ``noalias``/``readonly``/``align N`` from the parameter's ``noalias``/``readonly``/
``aligned`` attributes (``readonly`` only where the kernel writes nothing through it);
scalars at their C width (``i1`` arrives as ``i8`` and is truncated,
``f16`` is ``half``, ``bf16`` is ``bfloat``); ``multipleof`` on an integer becomes an
``llvm.assume``. The grid is 3-D (``%ctaid.{x,y,z}``); the CTA has ``num_warps*32`` threads
along x.

Shared memory: one ``@global_smem = external addrspace(3) global [0 x i8], align 16`` per
module (dynamic shared memory, its size given at launch). The memory plan comes from two
passes that run last (``transforms/allocate_shared.py``, ``transforms/insert_barriers.py``):

* an op whose handler needs shared memory internally (*scratch*: a conversion through shared
  memory, a cross-warp reduction, FMA dot staging, atomics broadcasting old values) declares
  how much on its op definition (``OpDef.scratch``, ``ir/scratch.py``); an op that works on
  explicit buffers declares its :class:`~tritonc.ir.effects.SharedEffect` list there too
  (``OpDef.shared_effects``, ``ir/ttg_ops.py``);
* ``allocate-shared`` packs scratch and buffers by liveness and writes each owner's
  ``smem_offset`` and the kernel's ``shared_bytes`` (``KernelInfo.shared_bytes``);
  handlers address their scratch from :meth:`KernelLowering.scratch_base`;
* a handler uses scratch as *write; barrier; read* and emits only that inner barrier;
  ``insert-barriers`` puts ``gpu.barrier`` ops between ops where a read-after-write or
  write-after-read hazard needs one.

Barriers are ``llvm.nvvm.barrier.cta.sync.aligned.all(0)`` (``bar.sync 0``, PTX ISA 9.7.13.1
bar/barrier) and are only emitted at points every thread reaches (structured control flow with
uniform scalar conditions).
"""
from __future__ import annotations

import math
import struct
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

import llvmlite.ir as ir

from tritonc.analysis.pointer_origins import promised_readonly, readonly_pointer_values
from tritonc.diagnostics import InternalCompilerError
from tritonc.ir.core import Block, Function, Operation, Value
from tritonc.ir.distribution import Distribution, distribution
from tritonc.ir.layouts import MmaLayout
from tritonc.ir.ops import scratch_bytes
from tritonc.ir.scratch import smem_elem_bytes
from tritonc.ir.types import PointerType, ScalarType, TileType, Type
from tritonc.options import CodegenOptions
from tritonc.target import WARP_SIZE, Target

from .builder import NumberingBuilder, ValueTable


#: op name -> handler(lowering, op)
HANDLERS: dict[str, Callable[["KernelLowering", Operation], None]] = {}

def lowers(*names: str):
    """Decorator: register a handler for the named ops."""
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return deco


class BFloatType(ir.Type):
    """LLVM's ``bfloat`` (llvmlite has no class for it). Constants print as ``0xRXXXX``."""

    null = "0xR0000"
    intrinsic_name = "bf16"

    def _to_string(self) -> str:
        return "bfloat"

    def __eq__(self, other) -> bool:
        return isinstance(other, BFloatType)

    def __hash__(self) -> int:
        return hash(BFloatType)

    def format_constant(self, value) -> str:
        return f"0xR{float_to_bf16_bits(float(value)):04X}"


def float_to_bf16_bits(x: float) -> int:
    """The bfloat16 bits of ``x`` (rounded to float32, then to nearest-even bfloat16)."""
    if math.isnan(x):
        return 0x7FC0
    if abs(x) > 3.4028234663852886e38:
        return 0x7F80 if x > 0 else 0xFF80
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    rounding = 0x7FFF + ((bits >> 16) & 1)
    return ((bits + rounding) >> 16) & 0xFFFF


I1, I8, I16, I32, I64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))
F16, BF16, F32, F64 = ir.HalfType(), BFloatType(), ir.FloatType(), ir.DoubleType()
GPTR = ir.PointerType(addrspace=1)
SPTR = ir.PointerType(addrspace=3)

def min_ctas_per_sm(f: Function, num_warps: int, shared_bytes: int, dist, target: Target,
                    options: CodegenOptions) -> int | None:
    """``2`` when the kernel ``f`` should carry ``.minnctapersm 2`` (``"nvvm.minctasm"``), else None
    (always None with ``-fno-occupancy-hint``, ``options.occupancy_hint`` False).

    nvJitLink assembles PTX as relocatable code, and ptxas then allocates registers more
    freely than for a whole program: softmax 4096x16384 (BLOCK=16384, 16 warps) took 75
    registers (``ptxas -c`` gives the same; plain ``ptxas`` 63, Triton's 57), over the 64 that
    two CTAs of 512 threads can have, so one CTA ran per SM: its memory phase no longer
    overlapped the other's reductions and barriers (ncu on an H200: 25% theoretical
    occupancy, DRAM 71% busy against Triton's 83%; 0.86x Triton's speed, ``benchmarks/
    RESULTS.md`` 2026-11-21). ``.minnctapersm 2`` (with ``.maxntid``) bounds the registers
    at 64 and brings two CTAs back (measured: 64 registers, no spills, 1.00x Triton).

    The hint is given where it binds and should not spill: kernels without ``tt.dot`` (matrix
    kernels want their registers for accumulators), of 256 to 512 threads (the bound is then
    128 or 64 registers; fewer threads are not bounded by it, more would be bounded too
    tightly), whose two CTAs fit in shared memory, and whose loaded data (``tt.load``
    results, per thread, in 32-bit words, at the width of a cast that widens them: halves
    used as floats count as floats) is at most half the bound, leaving the other half for
    addresses, masks and temporaries. (rmsnorm's backward at BLOCK = 8192 on 16 warps loads
    three half tiles and holds them as floats, 48 words a thread: bounded at 64 registers it
    spilled.)

    Chained-dot kernels (two or more ``tt.dot`` in one loop body: flash attention's ``q @ k``
    and ``p @ v``) get the hint under the same rule, their loaded data being the dots'
    accumulators in the body that has the most (the score tile and the output accumulator, per thread; the operands stay in
    shared memory): attention's loop with BM = 128, BN = D = 64 on 8 warps holds 32 + 32
    words, and nvJitLink gave it 156 registers (one CTA of 256 threads per SM) where plain
    ``ptxas`` needs 128; bounded at 128, two CTAs overlap one's softmax with the other's
    tensor-core work. A lone matmul's accumulator is what it wants its registers for, so it
    is left unbounded.
    """
    threads = target.warp_size * num_warps
    if not options.occupancy_hint or not 256 <= threads <= 512:
        return None
    if 2 * (shared_bytes + target.reserved_shared_per_cta) > target.shared_bytes_per_sm:
        return None
    granule = target.register_granule
    bound = target.registers_per_sm // (2 * threads) // granule * granule
    words = 0
    dots = [op for op in f.walk() if op.name == "tt.dot"]
    if dots:
        bodies = [op.parent for op in dots if getattr(op, "parent", None) is not None]
        if not any(bodies.count(blk) >= 2 for blk in bodies):
            return None
        words = max(sum(dist(op.result).num_regs for op in dots if op.parent is blk) for blk in bodies)
        return 2 if words <= bound // 2 else None
    for op in f.walk():
        if op.name == "tt.load" and isinstance(op.result.type, TileType):
            el = op.result.type.element
            bits = 64 if isinstance(el, PointerType) else max(8, el.bits)
            # half data widened to float where it is used is held as floats
            bits = max([bits] + [u.results[0].type.element.bits for u, _ in op.result.uses
                                 if u.name in _WIDENING and isinstance(u.results[0].type.element, ScalarType)])
            words += -(-dist(op.result).num_regs * bits // 32)
    return 2 if words <= bound // 2 else None


#: Casts after which a loaded tile is held at a wider element type (min_ctas_per_sm).
_WIDENING = ("arith.extf", "arith.extsi", "arith.extui", "arith.sitofp", "arith.uitofp")


_SCALAR_LLVM = {"i1": I1, "i8": I8, "i16": I16, "i32": I32, "i64": I64,
                "f16": F16, "bf16": BF16, "f32": F32, "f64": F64}


def llvm_type(t: Type) -> ir.Type:
    """The LLVM register type of a scalar or pointer IR type (or of a tile's elements)."""
    if isinstance(t, TileType):
        t = t.element
    if isinstance(t, PointerType):
        return GPTR
    return _SCALAR_LLVM[t.name]


def storage_type(t: Type) -> ir.Type:
    """The LLVM type an element has in memory: ``i1`` is stored as ``i8``."""
    ty = llvm_type(t)
    return I8 if ty == I1 else ty


def const(ty: ir.Type, value: Any) -> ir.Constant:
    """An LLVM constant of ``ty``; integers wrap to the type's width (two's complement)."""
    if isinstance(ty, ir.IntType):
        v = int(value) & ((1 << ty.width) - 1)
        if ty.width > 1 and v >= 1 << (ty.width - 1):
            v -= 1 << ty.width
        return ir.Constant(ty, v)
    return ir.Constant(ty, float(value))


@dataclass
class ParamInfo:
    """One kernel parameter as the launcher passes it: ``llvm_type`` is what the kernel's
    PTX parameter holds (``i8`` for ``i1``); ``attrs`` are the tt-level parameter attributes."""

    name: str
    type: Type
    llvm_type: str
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class KernelInfo:
    """What a launcher needs to know about a lowered kernel."""

    name: str
    num_warps: int
    shared_bytes: int
    params: list[ParamInfo]

    @property
    def num_threads(self) -> int:
        return WARP_SIZE * self.num_warps


@dataclass
class EntryValues:
    """Values a kernel computes once, in its entry block, and the lowering reuses (what was a
    bag of string keys, ``lw.cache``). Each field says what it holds and who fills it."""

    #: ``%tid.x``-style special registers by name (:meth:`KernelLowering.sreg`).
    sregs: dict[str, ir.Value] = field(default_factory=dict)
    #: ``tid % 32`` and ``tid / 32`` (:meth:`KernelLowering.lane`, :meth:`KernelLowering.warp`).
    lane: ir.Value | None = None
    warp: ir.Value | None = None
    #: ``tid == 0``: the thread that does a scalar side effect once (``memory.scalar_leader``).
    leader: ir.Value | None = None
    #: The empty metadata node of ``!invariant.load`` (``memory``).
    invariant_md: Any = None
    #: Axis info of the module being lowered (``memory.axis_info``).
    axis_info: Any = None
    #: ``(lane // 4, lane % 4)`` of the mma fragments, ``(lane // 8, lane % 8)`` of ldmatrix rows.
    mma_lane: tuple | None = None
    ldmatrix_lane: tuple | None = None
    #: mma ``warps_per_cta`` -> this warp's ``(wm, wn)`` (``layout_math.mma_warp_ids_ir``).
    mma_warp: dict[tuple, tuple] = field(default_factory=dict)
    #: ``(layout, cta)`` -> this thread's base of an mma or dot-operand layout.
    mma_bases: dict[tuple, list] = field(default_factory=dict)
    #: blocked layout -> this thread's base per dimension (``layout_math.thread_bases_ir``).
    bases: dict[Any, list] = field(default_factory=dict)
    #: ``(layout, shape)`` -> per register: unwrapped positions, coordinates, canonical
    #: predicates, row-major linear ids (``layout_math``).
    unwrapped: dict[tuple, list] = field(default_factory=dict)
    coords: dict[tuple, list] = field(default_factory=dict)
    canonical: dict[tuple, list] = field(default_factory=dict)
    linear: dict[tuple, list] = field(default_factory=dict)
    #: ldmatrix row addresses and the warp's operand base (``shared_ops.FragmentLoader``).
    ldmatrix_rows: dict[tuple, list] = field(default_factory=dict)
    ldmatrix_base: dict[tuple, tuple] = field(default_factory=dict)
    #: Swizzled shared-memory offsets by layout, shape, base and low constant (``smem_access``).
    smem_offsets: dict[tuple, tuple] = field(default_factory=dict)


def uses_wgmma(f: Function) -> bool:
    """Whether function ``f`` has a ``tt.dot`` in an mma v3 (wgmma) layout."""
    for op in f.walk():
        if op.name == "tt.dot":
            layout = op.result.type.layout
            if isinstance(layout, MmaLayout) and layout.version == 3:
                return True
    return False


class KernelLowering:
    """Lowers one kernel function into ``module`` (an ``llvmlite.ir.Module``) for ``target``
    with the code generator's switches ``options``."""

    def __init__(self, module: ir.Module, smem: ir.GlobalVariable, f: Function, num_warps: int, target: Target,
                 options: CodegenOptions | None = None, line_info=None):
        self.module = module
        #: ``-lineinfo``: the module's :class:`~tritonc.codegen.llvm.debug_info.LineInfo`, or None
        self.line_info = line_info
        self.lines = None
        self.smem = smem
        self.f = f
        self.num_warps = num_warps
        self.target = target
        self.options = options or CodegenOptions()
        self.capability = target.capability
        self.values: dict[Value, Any] = {}
        self.entry_values = EntryValues()
        self.shared_bytes = int(f.attrs.get("shared_bytes", 0))
        self.params: list[ParamInfo] = []
        self.nc_values: set[Value] = set()
        self.wgmma = uses_wgmma(f)

    @property
    def num_threads(self) -> int:
        """Threads of the CTA: ``num_warps`` warps of the Target's warp size."""
        return self.target.warp_size * self.num_warps

    # -- building blocks ---------------------------------------------------------------------
    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name)
        return fn

    def struct_type(self, element: ir.Type, count: int) -> ir.Type:
        """``{element x count}`` as a named LLVM struct, ``%"<element>x<count>"``, declared once
        at the top of the module: the result type of the wgmma inline asm is 64 or 128
        floats, and each ``extractvalue`` of a literal struct type spells the whole type out
        (1 KB a line; in a 128x256 matmul 70% of the LLVM IR text). The module's context must
        be its own (``ir.Module(context=ir.Context())``), or the name would be shared with
        every other module."""
        ty = self.module.context.get_identified_type(f"{element}x{count}")
        if ty.is_opaque:
            ty.set_body(*([element] * count))
        return ty

    def call(self, name: str, ret: ir.Type, args: list[ir.Value], builder: ir.IRBuilder | None = None) -> ir.Value:
        fn = self.intrinsic(name, ret, [a.type for a in args])
        return (builder or self.b).call(fn, args)

    def sreg(self, name: str) -> ir.Value:
        """``%tid.x``-style special register, read once in the entry block."""
        sregs = self.entry_values.sregs
        if name not in sregs:
            sregs[name] = self.call(f"llvm.nvvm.read.ptx.sreg.{name}", I32, [], self.eb)
        return sregs[name]

    def tid(self) -> ir.Value:
        return self.sreg("tid.x")

    def lane(self) -> ir.Value:
        if self.entry_values.lane is None:
            self.entry_values.lane = self.eb.and_(self.tid(), const(I32, self.target.warp_size - 1), name="lane")
        return self.entry_values.lane

    def warp(self) -> ir.Value:
        if self.entry_values.warp is None:
            shift = self.target.warp_size.bit_length() - 1
            self.entry_values.warp = self.eb.lshr(self.tid(), const(I32, shift), name="warp")
        return self.entry_values.warp

    def barrier(self, proxy_fence: bool = True) -> None:
        """``bar.sync 0``: every thread of the CTA waits (PTX ISA 9.7.13.1). In a kernel with
        ``wgmma`` dots the barrier is preceded by ``fence.proxy.async.shared::cta`` (PTX ISA
        9.7.13.4.18): wgmma reads shared memory through the async proxy, and this fence makes
        each thread's earlier generic-proxy writes (``st.shared``, completed ``cp.async``)
        visible to it, so every write before the barrier is seen by every wgmma after it.
        ``proxy_fence=False``: no completed write is pending (``insert-barriers``'
        ``no_proxy_fence``), no fence."""
        if self.wgmma and proxy_fence:
            self.call("llvm.nvvm.fence.proxy.async.shared_cta", ir.VoidType(), [])
        self.call("llvm.nvvm.barrier.cta.sync.aligned.all", ir.VoidType(), [const(I32, 0)])

    def scratch_base(self, op: Operation, nbytes: int) -> int:
        """The byte offset of ``op``'s scratch (``smem_offset``, set by ``allocate-shared``),
        checking that the ``nbytes`` the handler uses fit in what its op definition reserves
        (:func:`tritonc.ir.ops.scratch_bytes`)."""
        offset = op.attrs.get("smem_offset")
        if offset is None:
            raise InternalCompilerError(f"lowering: '{op.name}' needs shared memory but has no smem_offset "
                                        "(run allocate-shared and insert-barriers before lowering)")
        reserved = scratch_bytes(op)
        if nbytes > reserved:
            raise InternalCompilerError(f"lowering: '{op.name}' uses {nbytes} bytes of scratch, "
                                        f"its op definition reserves {reserved}")
        return int(offset)

    def scratch_address(self, base: int, byte_offset: ir.Value) -> ir.Value:
        """``base + byte_offset`` (no instruction when ``base`` is 0)."""
        return self.b.add(byte_offset, const(I32, base)) if base else byte_offset

    def smem_ptr(self, byte_offset: ir.Value, builder: ir.IRBuilder | None = None) -> ir.Value:
        return (builder or self.b).gep(self.smem, [byte_offset], source_etype=I8)

    def smem_store(self, value: ir.Value, element: Type, byte_offset: ir.Value) -> None:
        """Store a register of IR element type ``element`` to shared memory."""
        self.smem_store_at(value, element, self.smem_ptr(byte_offset))

    def smem_store_at(self, value: ir.Value, element: Type, ptr: ir.Value) -> None:
        """:meth:`smem_store` to the shared-memory pointer ``ptr``."""
        b = self.b
        if isinstance(element, PointerType):
            value = b.ptrtoint(value, I64)
        elif value.type == I1:
            value = b.zext(value, I8)
        b.store(value, ptr, align=min(8, smem_elem_bytes(element)))

    def smem_load(self, element: Type, byte_offset: ir.Value) -> ir.Value:
        return self.smem_load_at(element, self.smem_ptr(byte_offset))

    def smem_load_at(self, element: Type, ptr: ir.Value) -> ir.Value:
        """Load a register of IR element type ``element`` from the shared-memory pointer ``ptr``."""
        b = self.b
        ty = I64 if isinstance(element, PointerType) else storage_type(element)
        v = b.load(ptr, typ=ty, align=min(8, smem_elem_bytes(element)))
        if isinstance(element, PointerType):
            return b.inttoptr(v, GPTR)
        if llvm_type(element) == I1:
            return b.trunc(v, I1)
        return v

    @contextmanager
    def if_then(self, pred: ir.Value | None):
        """Emit the body under ``pred`` (no branch when ``pred`` is None: always)."""
        if pred is None:
            yield
            return
        if isinstance(pred, ir.Constant) and pred.type == I1:
            if pred.constant:
                yield
                return
        then = self.b.append_basic_block("then")
        merge = self.b.append_basic_block("endif")
        self.b.cbranch(pred, then, merge)
        self.b.position_at_end(then)
        yield
        self.b.branch(merge)
        self.b.position_at_end(merge)

    def and_pred(self, a: ir.Value | None, b: ir.Value | None) -> ir.Value | None:
        if a is None:
            return b
        if b is None:
            return a
        return self.b.and_(a, b)

    # -- values ------------------------------------------------------------------------------
    def get(self, v: Value) -> Any:
        try:
            return self.values[v]
        except KeyError:
            raise InternalCompilerError(f"lowering: value {v!r} used before it was lowered") from None

    def set(self, v: Value, lowered: Any) -> None:
        if isinstance(v.type, TileType):
            n = self.dist(v).num_regs
            if not isinstance(lowered, list) or len(lowered) != n:
                raise InternalCompilerError(f"lowering: {v!r} needs {n} registers")
        self.values[v] = lowered

    def regs(self, v: Value, n: int) -> list:
        """``v``'s registers, or a scalar ``v`` repeated ``n`` times."""
        x = self.get(v)
        return x if isinstance(x, list) else [x] * n

    def dist(self, v: Value | Type) -> Distribution:
        t = v.type if isinstance(v, Value) else v
        if not isinstance(t, TileType) or t.layout is None:
            raise InternalCompilerError(f"lowering: {t} has no layout (run assign-layouts first)")
        d = distribution(t.layout, t.shape)
        if d.num_threads != self.num_threads:
            raise InternalCompilerError(f"layout {t.layout} is for {d.num_threads} threads, "
                                        f"the kernel has {self.num_threads}")
        return d

    # -- driver ------------------------------------------------------------------------------
    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        handler = HANDLERS.get(op.name)
        if handler is None:
            raise InternalCompilerError(f"lowering of '{op.name}' to LLVM is not implemented")
        if self.lines is not None and op.loc is not None:
            # -lineinfo: every instruction this op's handler emits carries its source position
            self.b.debug_metadata = self.lines.location(op.loc)
        handler(self, op)

    def build(self) -> KernelInfo:
        f = self.f
        arg_types = []
        for arg, attrs in zip(f.args, f.arg_attrs):
            t = arg.type
            if isinstance(t, TileType):
                raise InternalCompilerError(f"kernel @{f.name} has a tile parameter {arg!r}")
            lt = storage_type(t)
            arg_types.append(lt)
            self.params.append(ParamInfo(arg.name or f"arg{len(self.params)}", t, str(lt), dict(attrs)))
        self.fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), arg_types), f.name)
        self.fn.calling_convention = "ptx_kernel"
        if self.line_info is not None:
            self.lines = self.line_info.subprogram(self.fn, f.name, f.loc)
        set.add(self.fn.attributes, f'"nvvm.maxntid"="{self.num_threads}"')
        min_ctas = min_ctas_per_sm(f, self.num_warps, self.shared_bytes, self.dist, self.target, self.options)
        if min_ctas:
            set.add(self.fn.attributes, f'"nvvm.minctasm"="{min_ctas}"')
        entry = self.fn.append_basic_block("entry")
        body = self.fn.append_basic_block("body")
        values = ValueTable(entry)  # the kernel's pure instructions, numbered (builder.py)
        self.eb = NumberingBuilder(entry, values)
        self.b = NumberingBuilder(body, values)
        if self.lines is not None and f.loc is not None:
            self.eb.debug_metadata = self.b.debug_metadata = self.lines.location(f.loc)
        readonly = promised_readonly(f)
        for i, (arg, attrs, larg) in enumerate(zip(f.args, f.arg_attrs, self.fn.args)):
            larg.name = arg.name or ""
            self.values[arg] = self._param_value(arg.type, attrs, larg, i in readonly)
        self.nc_values = readonly_pointer_values(f)
        self.lower_block(f.body.block)
        self.eb.branch(body)
        return KernelInfo(f.name, self.num_warps, self.shared_bytes, self.params)

    def _param_value(self, t: Type, attrs: dict, larg: ir.Argument, readonly: bool) -> ir.Value:
        """The kernel's value of parameter ``larg``; pointer promises become LLVM attributes
        (``readonly`` only where the kernel does not write through the pointer: a broken
        ``__readonly`` promise would let LLVM delete the stores, spec section 4)."""
        if isinstance(t, PointerType):
            if attrs.get("noalias"):
                larg.add_attribute("noalias")
            if readonly:
                set.add(larg.attributes, "readonly")
            # At least the element size (spec section 3), more when promised.
            multiple = int(attrs.get("multipleof") or 1)
            larg.attributes.align = max(int(attrs.get("aligned") or 1), multiple & -multiple, t.pointee.bytes)
            return larg
        assert isinstance(t, ScalarType)
        value: ir.Value = larg
        if t.name == "i1":
            value = self.eb.trunc(larg, I1)
        mult = attrs.get("multipleof")
        if mult and t.is_int and int(mult) > 1:
            rem = self.eb.urem(larg, const(larg.type, int(mult)))
            ok = self.eb.icmp_unsigned("==", rem, const(larg.type, 0))
            self.call("llvm.assume", ir.VoidType(), [ok], self.eb)
        return value
