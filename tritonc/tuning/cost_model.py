"""A static cost model that picks tunables, ``num_warps`` and ``num_stages`` for a GPU target.

When the user leaves a meta-parameter free (a ``const tunable`` without ``-D``, ``--num-warps
auto``, ``--num-stages auto``), the driver builds every candidate configuration the source
allows, reads the shape of each ``tt.dot`` from the frontend's tile IR (:func:`dot_tiles`), and
asks :func:`choose` for the configuration with the lowest estimated time on the target for the
problem size (``--hint M=..,N=..,K=..``; :data:`LARGE_PROBLEM` without a hint). Nothing is
compiled or run: the model is arithmetic on the tile shapes (docs/tuning.md).

The model, per configuration (``TM x TN x TK`` dot tile, ``W`` warps, ``S`` stages):

1. **Instruction**: ``wgmma.mma_async m64nNk16`` when the target has it and
   :func:`~tritonc.transforms.accelerate_matmul.wgmma_eligible` accepts the dot at ``W`` warps
   (warp groups of 4 warps, ``TM`` a multiple of ``16 * W``, ``N <= 256``, ``TK >= 32``); else
   ``mma.sync m16n8k16`` when the operand types allow (PTX ISA 9.7.14); else FMA.
2. **Hard limits** (a configuration over one is rejected, with the reason):
   shared memory ``max(S, 1) * (TM*TK*a + TK*TN*b)`` bytes (the operand rings that
   ``software-pipeline`` allocates) against the per-CTA limit; registers per thread, estimated
   as the accumulator's ``TM*TN*4 / (32 W)`` bytes / 4 (at most 128 with wgmma, whose operands
   stay in shared memory) plus, on mma.sync, the operand fragments of a 32-deep K slice of the
   warp's tile and 32 registers of addresses and indices (at most 255, the ISA limit);
   ``32 W <= 1024`` threads.
3. **Occupancy** ``c``: CTAs per SM, the least of what shared memory, registers (rounded up to
   8 per thread), threads (2048 per SM) and the CTA slot limit allow.
4. **Time of one round** (each of the ``c`` resident CTAs takes one ``TK`` step), in cycles:
   ``pnorm3(c * t_mma, c * t_l2, c * t_smem, latency / (S - 1)) + step_overhead`` with
   ``t_mma = 2 TM TN TK / F`` (``F`` the SM's tensor-core flops per cycle for the instruction),
   ``t_l2 = (TM*TK*a + TK*TN*b) / B`` (``B`` the SM's share of L2 bandwidth), ``t_smem`` the
   bytes the operands cross shared memory (cp.async writes plus wgmma / ldmatrix reads, by warp
   grid) over 128 bytes per cycle, and ``latency / (S - 1)``: ``S - 1`` loads in flight hide
   one memory latency (Little's law). The 3-norm (rather than ``max``) says the pipes overlap
   imperfectly, so relieving a non-binding term still helps a little; this is what makes a
   deeper pipeline win when it fits.
5. **Waves**: ``ceil(M / TM) * ceil(N / TN)`` output tiles over ``SMs * c`` slots; the time is
   ``waves * (ceil(K / TK) * round + latency + epilogue)``, so a tile too large for a small
   problem leaves SMs idle and loses.

The per-target constants (:data:`GPU_MODELS`) are public figures (SM counts, shared-memory and
register limits from the CUDA C++ Programming Guide's compute-capability tables, dense fp16
tensor throughput from the NVIDIA A100/H100 whitepapers) and estimates (L2 bandwidth per SM,
memory latency, the fixed cost of a loop step) chosen so that the model reproduces the order of
the matmul configurations measured on an H200 (4096^3 fp16: 64x64x32 w4 s3 0.46x cuBLAS,
128x128x64 w4 s3 0.73x, 128x256x64 w8 s4 0.94x): it ranks configurations, it does not predict
absolute times.

Kernels without a ``tt.dot`` are memory-bound: :func:`choose_memory_bound` ranks their
configurations by whether each CTA keeps enough bytes in flight (:func:`memory_profiles`,
:func:`estimate_memory`): per loop body (the loads a CTA issues together, one step at a time),
``ctas_per_sm * bytes_per_step`` against ``dram_bytes * latency`` (Little's law), with the warps
the tile rule gives (:mod:`tritonc.analysis.num_warps`) and occupancy from threads, CTA slots
and an estimate of registers. Configurations within :data:`MEMORY_TIE` of the best tie, and ties
keep the source's candidate order: the model only moves away from the first candidates when they leave
the memory system idle (too small a tile per CTA).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from ..ir.core import Module

#: Problem size assumed without ``--hint``: large enough that every tile shape fills the GPU
#: for several waves (the size the matmul benchmarks measure).
LARGE_PROBLEM = {"M": 4096, "N": 4096, "K": 4096}

#: The problem dimensions ``--hint`` accepts: a dot ``[M, K] @ [K, N]``'s output rows, output
#: columns and reduction length, summed over the kernel's grid and loop.
HINT_NAMES = ("M", "N", "K")

#: ``num_warps`` candidates for a kernel with a ``tt.dot`` when ``--num-warps`` is ``auto``.
WARP_CANDIDATES = (4, 8)

#: ``num_stages`` candidates when ``--num-stages`` is ``auto``.
STAGE_CANDIDATES = (2, 3, 4, 5)

#: ``num_stages`` when nothing feeds a dot from a loop (the value has no effect there).
DEFAULT_NUM_STAGES = 3

#: Most tunable combinations the model enumerates (each costs one run of the frontend's
#: irgen, about 2 ms); more is a usage error asking for ``-D``.
MAX_COMBINATIONS = 4096

_ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4, "f64": 8, "i16": 2, "i64": 8}


@dataclass(frozen=True)
class GpuModel:
    """The resources and throughputs of one target, per SM unless said otherwise.

    Attributes:
        arch: ``sm_XX`` name.
        device: the GPU the figures are for.
        sm_count: streaming multiprocessors.
        smem_per_cta: largest dynamic shared memory of one CTA, bytes (opt-in maximum).
        smem_per_sm: shared memory of one SM, bytes (1 KiB of it is reserved per CTA).
        regs_per_sm: 32-bit registers of one SM.
        max_ctas_per_sm: resident CTA slots.
        mma_flops: dense fp16 ``mma.sync`` flops per cycle (int8: twice as many).
        wgmma_flops: dense fp16 ``wgmma`` flops per cycle (0 without wgmma).
        fma_flops: fp32 FMA flops per cycle (the dot's fallback).
        l2_bytes: L2-to-SM bytes per cycle (the SM's share of L2 bandwidth; estimate).
        smem_bytes: shared-memory bytes per cycle.
        latency: cycles from issuing a global load to its data in shared memory (estimate).
        step_overhead: cycles a loop step of a CTA cannot overlap (barrier, wait, address
            update; estimate).
        dram_bytes: device-memory bytes per cycle of one SM at full bandwidth (the data sheet's
            bandwidth over SMs and boost clock): ``dram_bytes * latency`` bytes must be in
            flight on each SM to saturate it (Little's law; the memory-bound model).
    """

    arch: str
    device: str
    sm_count: int
    smem_per_cta: int
    smem_per_sm: int
    regs_per_sm: int
    max_ctas_per_sm: int
    mma_flops: float
    wgmma_flops: float
    fma_flops: float
    l2_bytes: float
    smem_bytes: float = 128.0
    latency: float = 1000.0
    step_overhead: float = 40.0
    dram_bytes: float = 16.0

    @property
    def peak_flops(self) -> float:
        return max(self.mma_flops, self.wgmma_flops)


_HOPPER = dict(sm_count=132, smem_per_cta=227 * 1024, smem_per_sm=228 * 1024, regs_per_sm=65536,
               max_ctas_per_sm=32, mma_flops=2560.0, fma_flops=256.0, l2_bytes=40.0, dram_bytes=20.0)

#: The model of each ``--arch`` (sm_86 / sm_89 figures: A40 / L40-class parts).
GPU_MODELS = {
    "sm_80": GpuModel("sm_80", "A100", 108, 163 * 1024, 164 * 1024, 65536, 32, 2048.0, 0.0, 128.0, 48.0,
                      dram_bytes=13.0),
    "sm_86": GpuModel("sm_86", "A40", 84, 99 * 1024, 100 * 1024, 65536, 16, 1024.0, 0.0, 256.0, 32.0,
                      dram_bytes=5.0),
    "sm_89": GpuModel("sm_89", "L40", 142, 99 * 1024, 100 * 1024, 65536, 24, 1024.0, 0.0, 256.0, 32.0,
                      dram_bytes=2.5),
    "sm_90": GpuModel("sm_90", "H100/H200 (mma.sync)", wgmma_flops=0.0, **_HOPPER),
    "sm_90a": GpuModel("sm_90a", "H100/H200", wgmma_flops=4096.0, **_HOPPER),
}

#: Architectures with ``wgmma`` (PTX ISA 9.7.15).
WGMMA_ARCHS = ("sm_90a",)


@dataclass(frozen=True)
class DotTile:
    """One ``tt.dot [m, k] @ [k, n] -> [m, n]`` of a kernel, as the model needs it.

    Attributes:
        kernel: the kernel's name.
        m, n, k: the tile shape (elements).
        a_bytes, b_bytes, acc_bytes: element sizes of the operands and accumulator.
        mma_k_width: elements per 32-bit register of the mma.sync operand, or ``None`` when
            the dot cannot use mma.sync (it runs on FMA).
        int8: the dot is ``i8 x i8 -> i32`` (twice the fp16 tensor rate).
        wgmma: ``(num_warps, n)`` pairs: the wgmma instruction's ``N`` at that warp count,
            ``None`` when the dot cannot run on wgmma with those warps.
        in_loop: the dot is inside a loop (its operand loads are software-pipelined).
    """

    kernel: str
    m: int
    n: int
    k: int
    a_bytes: int
    b_bytes: int
    acc_bytes: int
    mma_k_width: int | None
    int8: bool
    wgmma: tuple[tuple[int, int | None], ...]
    in_loop: bool

    def wgmma_n(self, num_warps: int) -> int | None:
        return dict(self.wgmma).get(num_warps)


def dot_tiles(module: Module, warp_candidates: tuple[int, ...], allow_tf32: bool = False) -> list[DotTile]:
    """The :class:`DotTile` of every 2-D ``tt.dot`` in ``module`` (tt IR from the frontend).

    ``warp_candidates``: the warp counts at which to test wgmma eligibility.
    """
    from ..transforms.accelerate_matmul import mma_types, wgmma_eligible

    tiles = []
    for f in module.functions:
        for op in f.walk():
            if op.name != "tt.dot" or len(op.operands) < 3 or op.operands[0].type.rank != 2:
                continue
            a, b, acc = (v.type for v in op.operands[:3])
            m, k = a.shape
            n = b.shape[1]
            kw = mma_types(a.element, b.element, acc.element, op.attrs.get("input_precision", "ieee"), allow_tf32)
            if kw is not None and (m % 16 or n % 8 or k % (8 * kw)):
                kw = None
            wg = tuple((w, wgmma_eligible(op, w) if kw is not None else None) for w in warp_candidates)
            in_loop = False
            parent = op.parent_op()
            while parent is not None and not in_loop:
                in_loop = parent.name in ("scf.for", "scf.while")
                parent = parent.parent_op()
            tiles.append(DotTile(f.name, m, n, k, _ELEMENT_BYTES.get(a.element.name, 4),
                                 _ELEMENT_BYTES.get(b.element.name, 4), _ELEMENT_BYTES.get(acc.element.name, 4),
                                 kw, a.element.name == "i8", wg, in_loop))
    return tiles


@dataclass(frozen=True)
class Config:
    """One point of the variant space: tunable values, warps per CTA, pipeline depth."""

    tunables: tuple[tuple[str, int], ...]
    num_warps: int
    num_stages: int

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in self.tunables] + [f"num_warps={self.num_warps}",
                                                          f"num_stages={self.num_stages}"]
        return " ".join(parts)


@dataclass(frozen=True)
class DotEstimate:
    """What the model derived for one dot at one configuration (see the module docstring)."""

    tile: DotTile
    instruction: str
    shared_bytes: int
    registers: int
    ctas_per_sm: int
    tiles: int
    waves: int
    cycles: float
    problem_flops: float


@dataclass(frozen=True)
class Estimate:
    """The model's verdict on one :class:`Config`: ``reason`` is set when it is rejected."""

    config: Config
    dots: tuple[DotEstimate, ...] = ()
    reason: str | None = None

    @property
    def feasible(self) -> bool:
        return self.reason is None

    @property
    def cycles(self) -> float:
        return sum(d.cycles for d in self.dots)

    def efficiency(self, gpu: GpuModel) -> float:
        """Estimated fraction of the target's peak tensor throughput (0..1)."""
        flops = sum(d.problem_flops for d in self.dots)
        return flops / max(self.cycles * gpu.sm_count * gpu.peak_flops, 1e-9)

    def describe(self, gpu: GpuModel) -> str:
        if not self.feasible:
            return f"{self.config.describe()}: rejected, {self.reason}"
        d = max(self.dots, key=lambda e: e.cycles)
        return (f"{self.config.describe()}: {d.instruction}, {d.shared_bytes // 1024} KiB shared memory, "
                f"~{d.registers} registers/thread, {d.ctas_per_sm} CTA/SM, {d.tiles} tiles = "
                f"{d.tiles / (gpu.sm_count * d.ctas_per_sm):.2f} waves, "
                f"est. {100 * self.efficiency(gpu):.0f}% of peak")


def _pnorm3(*terms: float) -> float:
    return sum(t ** 3 for t in terms) ** (1.0 / 3.0)


def _warps_per_tile(m: int, n: int, num_warps: int) -> tuple[int, int]:
    from ..transforms.accelerate_matmul import warps_per_tile

    return warps_per_tile((m, n), num_warps)


def estimate_dot(tile: DotTile, num_warps: int, num_stages: int, gpu: GpuModel,
                 problem: dict[str, int]) -> tuple[DotEstimate | None, str | None]:
    """The model (module docstring, steps 1-5) for one dot; ``(None, reason)`` when rejected."""
    threads = 32 * num_warps
    if threads > 1024:
        return None, f"{threads} threads per CTA (at most 1024)"
    # 1. instruction
    wgmma_n = tile.wgmma_n(num_warps) if gpu.arch in WGMMA_ARCHS else None
    acc_regs = math.ceil(tile.m * tile.n * tile.acc_bytes / 4 / threads)
    if wgmma_n is not None:
        instruction, flops = f"wgmma m64n{wgmma_n}k16", gpu.wgmma_flops
        registers = acc_regs + 64
        if acc_regs > 128:
            return None, (f"the {tile.m}x{tile.n} accumulator needs {acc_regs} registers per thread "
                          f"at {num_warps} warps (wgmma: at most 128)")
    elif tile.mma_k_width is not None:
        instruction, flops = "mma.sync m16n8k16", gpu.mma_flops * (2 if tile.int8 else 1)
        wm, wn = _warps_per_tile(tile.m, tile.n, num_warps)
        kslice = min(tile.k, 32)
        frag = math.ceil((tile.m // wm) * kslice * tile.a_bytes / 128) + math.ceil((tile.n // wn) * kslice * tile.b_bytes / 128)
        registers = acc_regs + frag + 32
    else:
        instruction, flops = "FMA", gpu.fma_flops
        registers = acc_regs + 32
    if registers > 255:
        return None, (f"~{registers} registers per thread at {num_warps} warps ({instruction}; at most 255: "
                      "it would spill)")
    # 2. shared memory
    stage_bytes = tile.m * tile.k * tile.a_bytes + tile.k * tile.n * tile.b_bytes
    stages = num_stages if tile.in_loop else 1
    shared = max(stages, 1) * stage_bytes
    if shared > gpu.smem_per_cta:
        return None, (f"{shared // 1024} KiB of shared memory ({stages} stages of {stage_bytes // 1024} KiB) "
                      f"over the {gpu.smem_per_cta // 1024} KiB per CTA of {gpu.arch}")
    # 3. occupancy
    regs_rounded = (registers + 7) // 8 * 8
    ctas = min(gpu.max_ctas_per_sm, gpu.smem_per_sm // (shared + 1024), gpu.regs_per_sm // (regs_rounded * threads),
               2048 // threads)
    if ctas < 1:
        return None, f"no CTA fits on an SM ({registers} registers x {threads} threads)"
    # waves over the SMs (step 5); a problem with fewer tiles than slots leaves them empty
    M, N, K = problem["M"], problem["N"], problem["K"]
    tiles = math.ceil(M / tile.m) * math.ceil(N / tile.n)
    waves = math.ceil(tiles / (gpu.sm_count * ctas))
    resident = min(ctas, math.ceil(tiles / gpu.sm_count))
    # 4. one round: every resident CTA takes one TK step
    t_mma = 2.0 * tile.m * tile.n * tile.k / flops
    t_l2 = stage_bytes / gpu.l2_bytes
    if wgmma_n is not None:
        groups = num_warps // 4
        smem_traffic = stage_bytes + tile.m * tile.k * tile.a_bytes + groups * tile.k * tile.n * tile.b_bytes
    elif tile.mma_k_width is not None:
        wm, wn = _warps_per_tile(tile.m, tile.n, num_warps)
        smem_traffic = stage_bytes + wn * tile.m * tile.k * tile.a_bytes + wm * tile.k * tile.n * tile.b_bytes
    else:
        smem_traffic = stage_bytes * (1 + num_warps)
    t_smem = smem_traffic / gpu.smem_bytes
    latency = gpu.latency / max(stages - 1, 1)
    round_cycles = _pnorm3(resident * t_mma, resident * t_l2, resident * t_smem, latency) + gpu.step_overhead
    steps = math.ceil(K / tile.k) if tile.in_loop else 1
    epilogue = resident * tile.m * tile.n * tile.acc_bytes / 2 / gpu.l2_bytes
    cycles = waves * (steps * round_cycles + gpu.latency + epilogue)
    flops_done = 2.0 * M * N * (K if tile.in_loop else tile.k)
    return DotEstimate(tile, instruction, shared, registers, ctas, tiles, waves, cycles, flops_done), None


def estimate(tiles: list[DotTile], config: Config, gpu: GpuModel, problem: dict[str, int]) -> Estimate:
    """The :class:`Estimate` of ``config`` for a module whose dots are ``tiles``."""
    dots = []
    for tile in tiles:
        est, reason = estimate_dot(tile, config.num_warps, config.num_stages, gpu, problem)
        if est is None:
            return Estimate(config, reason=reason)
        dots.append(est)
    return Estimate(config, tuple(dots))


@dataclass
class Choice:
    """What :func:`choose` picked, with the ranked alternatives and the rejected ones.

    Attributes:
        config: the configuration to compile (``None`` when nothing was feasible).
        gpu: the target's model.
        problem: the problem size used; ``hinted`` whether it came from ``--hint``.
        ranked: feasible estimates, best first.
        rejected: infeasible estimates, each with its reason.
        free: what the model chose (tunable names, ``num_warps``, ``num_stages``).
        note: why the model did not rank (a module without a dot), else ``None``.
    """

    config: Config | None
    gpu: GpuModel
    problem: dict[str, int]
    hinted: bool
    ranked: list[Estimate] = field(default_factory=list)
    rejected: list[Estimate] = field(default_factory=list)
    free: tuple[str, ...] = ()
    note: str | None = None

    def explain(self, top: int = 5) -> str:
        """Lines for ``-v``: the choice, the runners-up and the rejections (counted by reason)."""
        gpu = self.gpu
        size = ", ".join(f"{k}={v}" for k, v in self.problem.items())
        lines = [f"tritonc: cost model for {gpu.arch} ({gpu.device}: {gpu.sm_count} SMs, "
                 f"{gpu.smem_per_cta // 1024} KiB shared memory per CTA); problem {size} "
                 f"({'--hint' if self.hinted else 'assumed large: no --hint'}); choosing {', '.join(self.free)}"]
        if self.note:
            lines.append(f"tritonc:   {self.note}")
            if not self.ranked:
                if self.config is not None:
                    lines.append(f"tritonc:   chose {self.config.describe()}")
                return "\n".join(lines)
        if self.config is None:
            lines.append("tritonc:   no candidate configuration is feasible")
        else:
            lines.append(f"tritonc:   chose {self.ranked[0].describe(gpu)}")
            for e in self.ranked[1:top]:
                lines.append(f"tritonc:   next  {e.describe(gpu)}")
        if self.rejected:
            lines.append(f"tritonc:   rejected {len(self.rejected)} configuration(s):")
            for e in self.rejected[:top]:
                lines.append(f"tritonc:     {e.describe(gpu)}")
            if len(self.rejected) > top:
                lines.append(f"tritonc:     ... and {len(self.rejected) - top} more")
        return "\n".join(lines)


def choose(space: list[tuple[Config, list[DotTile]]], arch: str, problem: dict[str, int] | None = None,
           free: tuple[str, ...] = ()) -> Choice:
    """Rank every ``(config, dot tiles)`` of ``space`` on ``arch`` and pick the fastest.

    Args:
        space: the candidate configurations with the dots their tile IR has, in the source's
            candidate order (ties keep the earlier one).
        arch: one of :data:`GPU_MODELS`.
        problem: ``M``, ``N``, ``K`` (missing ones from :data:`LARGE_PROBLEM`).
        free: names of the meta-parameters being chosen (for :meth:`Choice.explain`).

    Returns:
        a :class:`Choice`; its ``config`` is ``None`` when every configuration was rejected.
    """
    gpu = GPU_MODELS[arch]
    size = dict(LARGE_PROBLEM)
    size.update(problem or {})
    estimates = [estimate(tiles, config, gpu, size) for config, tiles in space]
    ranked = sorted((e for e in estimates if e.feasible), key=lambda e: e.cycles)  # stable: source order on ties
    rejected = [e for e in estimates if not e.feasible]
    return Choice(ranked[0].config if ranked else None, gpu, size, bool(problem), ranked, rejected, free)


def configurations(tunables: dict[str, list[int]], warps: tuple[int, ...], stages: tuple[int, ...]) -> list[Config]:
    """Every combination of the candidate lists, in source order (first candidates first)."""
    names = list(tunables)
    out = []
    for values in itertools.product(*(tunables[n] for n in names)):
        for w in warps:
            for s in stages:
                out.append(Config(tuple(zip(names, values)), w, s))
    return out


# ---- memory-bound kernels (no tt.dot) -----------------------------------------------------

#: Efficiencies (fractions of the DRAM bandwidth) this close to the best tie: the memory-bound
#: model is too coarse to rank them, so the source's candidate order decides.
MEMORY_TIE = 0.1


@dataclass(frozen=True)
class MemoryProfile:
    """What the memory-bound model reads from one kernel's tile IR.

    Attributes:
        kernel: the kernel's name.
        steps: bytes one CTA loads per step, one entry per group of loads issued together: the
            loads of one loop body (a nested loop is its own group); for a kernel without
            loops, its loads (one step).
        largest_tile: elements of the largest tile loaded, stored, reduced or updated atomically
            (what sets the warps and the registers per thread).
        num_warps: the warps this kernel compiles with when the kernels of the module take their
            own (the tile rule per kernel); ``None``: the configuration's ``num_warps``.
    """

    kernel: str
    steps: tuple[int, ...]
    largest_tile: int
    num_warps: int | None = None


def _value_bytes(t) -> tuple[int, int]:
    """(elements, bytes per element) of a loaded value's type (a tile or a scalar)."""
    element = getattr(t, "element", t)
    return getattr(t, "numel", 1), _ELEMENT_BYTES.get(getattr(element, "name", ""), 4)


def memory_profiles(module: Module, num_warps: dict[str, int] | None = None) -> list[MemoryProfile]:
    """The :class:`MemoryProfile` of every kernel of ``module`` (tt IR from the frontend);
    ``num_warps``: each kernel's own warps by name (``None``: the configuration's)."""
    out = []
    for f in module.functions:
        if f.kind != "kernel":
            continue
        steps = [0]
        largest = 1

        def visit(block, group: int) -> None:
            nonlocal largest
            for op in block.ops:
                if op.name == "tt.load":
                    n, b = _value_bytes(op.results[0].type)
                    steps[group] += n * b
                if op.name in ("tt.load", "tt.store", "tt.reduce", "tt.atomic_rmw", "tt.atomic_cas"):
                    for v in (*op.operands, *op.results):
                        largest = max(largest, getattr(v.type, "numel", 1))
                for region in op.regions:
                    inner = group
                    if op.name in ("scf.for", "scf.while"):
                        inner = len(steps)
                        steps.append(0)
                    for b in region.blocks:
                        visit(b, inner)

        visit(f.body.block, 0)
        loops = tuple(b for b in steps[1:] if b)
        # a kernel that loops streams its data in the loops; its loads outside them (a row's
        # statistics, a label) are issued once and do not decide the bandwidth
        out.append(MemoryProfile(f.name, loops or tuple(b for b in steps[:1] if b), largest,
                                 (num_warps or {}).get(f.name)))
    return out


@dataclass(frozen=True)
class MemoryEstimate:
    """The memory-bound model's verdict on one :class:`Config`.

    Attributes:
        config: the configuration (its ``num_warps``: the warps it would compile with).
        efficiency: estimated fraction of the DRAM bandwidth, averaged over the kernels (0..1).
        ctas_per_sm: resident CTAs per SM (the least over the kernels).
        registers: estimated registers per thread (the most over the kernels).
        in_flight: bytes in flight per SM in the kernels' smallest step.
        needed: bytes in flight per SM that saturate the bandwidth.
    """

    config: Config
    efficiency: float
    ctas_per_sm: int
    registers: int
    in_flight: int
    needed: int
    reason: str | None = None
    #: ``(kernel, warps)`` of each kernel when the kernels take different warp counts (the
    #: configuration's ``num_warps`` is then the most of them); empty otherwise
    kernel_warps: tuple[tuple[str, int], ...] = ()

    @property
    def feasible(self) -> bool:
        return self.reason is None

    @property
    def cycles(self) -> float:
        """Relative time (lower is better): the inverse of the efficiency."""
        return 1.0 / max(self.efficiency, 1e-3)

    def describe(self, gpu: GpuModel) -> str:
        if not self.feasible:
            return f"{self.config.describe()}: rejected, {self.reason}"
        per_kernel = f" (warps per kernel: {', '.join(f'{k} {w}' for k, w in self.kernel_warps)})" \
            if self.kernel_warps else ""
        return (f"{self.config.describe()}{per_kernel}: ~{self.registers} registers/thread, {self.ctas_per_sm} CTA/SM, "
                f"{self.in_flight // 1024} KiB in flight per SM (saturation: {self.needed // 1024} KiB), "
                f"est. {100 * self.efficiency:.0f}% of DRAM bandwidth")


def estimate_memory(profiles: list[MemoryProfile], config: Config, gpu: GpuModel) -> MemoryEstimate:
    """How close ``config`` keeps a module whose kernels are ``profiles`` to the bandwidth.

    Per kernel: ``T = 32 * num_warps`` threads (the kernel's own warps when its profile has
    them, else the configuration's); registers per thread ``32 + 4 * ceil(E / T)``
    for the largest tile of ``E`` elements (its values, addresses and masks; an estimate);
    resident CTAs ``c`` = the least of the CTA slots, ``2048 / T`` threads and the registers;
    each step ``s`` (bytes a CTA loads per loop step) reaches ``min(1, c * s / (dram_bytes *
    latency))`` of the bandwidth, and the kernel the byte-weighted harmonic mean of its steps.
    The configuration's efficiency is the mean over the kernels.
    """
    needed = int(gpu.dram_bytes * gpu.latency)
    effs, ctas, regs, flights = [], [], [], []
    for p in profiles:
        warps = p.num_warps or config.num_warps
        threads = 32 * warps
        if threads > 1024:
            return MemoryEstimate(config, 0.0, 0, 0, 0, 0, reason=f"{threads} threads per CTA (at most 1024)")
        r = 32 + 4 * math.ceil(p.largest_tile / threads)
        if r > 255:
            return MemoryEstimate(config, 0.0, 0, r, 0, needed,
                                  reason=f"{p.kernel}: a {p.largest_tile}-element tile needs ~{r} registers per "
                                         f"thread at {warps} warps (at most 255: it would spill)")
        c = min(gpu.max_ctas_per_sm, 2048 // threads, gpu.regs_per_sm // (math.ceil(r / 8) * 8 * threads))
        c = max(c, 1)
        ctas.append(c)
        regs.append(r)
        if not p.steps:
            effs.append(1.0)
            continue
        flights.append(c * min(p.steps))
        step_eff = [min(1.0, c * s / needed) for s in p.steps]
        effs.append(sum(p.steps) / sum(s / e for s, e in zip(p.steps, step_eff)))
    if not effs:
        return MemoryEstimate(config, 1.0, 0, 0, 0, needed)
    warps = tuple((p.kernel, p.num_warps or config.num_warps) for p in profiles)
    distinct = len({w for _, w in warps}) > 1
    return MemoryEstimate(config, sum(effs) / len(effs), min(ctas), max(regs), min(flights, default=0), needed,
                          kernel_warps=warps if distinct else ())


def choose_memory_bound(space: list[tuple[Config, list[MemoryProfile]]], arch: str,
                        problem: dict[str, int] | None = None, free: tuple[str, ...] = ()) -> Choice:
    """Rank the configurations of a module without ``tt.dot`` (:func:`estimate_memory`).

    Args:
        space: ``(config, profiles)`` in the source's candidate order; each config's
            ``num_warps`` is what that configuration compiles with.
        arch: one of :data:`GPU_MODELS`.
        problem, free: as for :func:`choose` (the problem size is reported, not used).

    Returns:
        a :class:`Choice` whose ``ranked`` holds :class:`MemoryEstimate` s, best first (ties in
        source order); ``config`` is ``None`` when every configuration was rejected.
    """
    gpu = GPU_MODELS[arch]
    size = dict(LARGE_PROBLEM)
    size.update(problem or {})
    estimates = [estimate_memory(profiles, config, gpu) for config, profiles in space]
    feasible = [e for e in estimates if e.feasible]
    best = max((e.efficiency for e in feasible), default=0.0)
    # within MEMORY_TIE of the best, the model cannot tell: the source's order decides
    ranked = sorted(feasible, key=lambda e: 0.0 if e.efficiency >= best - MEMORY_TIE else e.cycles)
    rejected = [e for e in estimates if not e.feasible]
    return Choice(ranked[0].config if ranked else None, gpu, size, bool(problem), ranked, rejected, free,
                  note="no tt.dot: ranked as memory-bound (bytes in flight per SM against the bandwidth; "
                       "within 10 points of the best, the source's candidate order), num_warps from the "
                       "tile sizes")
