"""A static cost model that picks tunables, ``num_warps`` and ``num_stages`` for a GPU target.

When the user leaves a meta-parameter free (a ``const tunable`` without ``-D``, ``--num-warps
auto``, ``--num-stages auto``), the driver builds every candidate configuration the source
allows, reads the shape of each ``tt.dot`` from the frontend's tile IR
(:func:`~tritonc.tuning.workload.dot_tiles`), and asks :func:`choose` for the configuration with the lowest estimated time on the target for the
problem size (``--hint M=..,N=..,K=..``; :data:`LARGE_PROBLEM` without a hint). Nothing is
compiled or run: the model is arithmetic on the tile shapes (docs/tuning.md).

The model, per configuration (``TM x TN x TK`` dot tile, ``W`` warps, ``S`` stages):

1. **Instruction**: ``wgmma.mma_async m64nNk16`` when the target has it and
   :func:`~tritonc.transforms.accelerate_matmul.wgmma_eligible` accepts the dot at ``W`` warps
   (warp groups of 4 warps, ``TM`` a multiple of ``16 * W``, ``N <= 256``, ``TK >= 32``); else
   ``mma.sync m16n8k16`` when the operand types allow (PTX ISA 9.7.14); else FMA, at the
   share of the issue slots its FMAs get next to its operand loads and staging stores
   (:func:`_fma_issue_share`).
2. **Hard limits** (a configuration over one is rejected, with the reason):
   shared memory ``max(S, 1) * (TM*TK*a + TK*TN*b)`` bytes (the operand rings that
   ``software-pipeline`` allocates) against the per-CTA limit; registers per thread, estimated
   as the accumulator's ``TM*TN*4 / (32 W)`` bytes / 4 (at most 128 with wgmma, whose operands
   stay in shared memory) plus, on mma.sync, the operand fragments of a 32-deep K slice of the
   warp's tile, on FMA the operand tiles (staged through registers), and 32 registers of
   addresses and indices (at most 255, the ISA limit);
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
5. **Waves**: ``ceil(M / TM) * ceil(N / TN)`` output tiles over ``SMs * c`` slots; each full
   wave takes ``ceil(K / TK) * round + latency + epilogue`` with ``c`` resident CTAs, and a last
   wave that does not fill the slots the same with the ``ceil(rest / SMs)`` CTAs it puts on each
   SM (shorter rounds), so a tile too large for a small problem leaves SMs idle and loses, and
   a half-empty last wave costs less than a full one. When the kernel's ``__grid``, evaluated
   at the problem size, launches ``s >= 2`` times as many program instances as there are tiles (split-K:
   ``splitk_matmul``, ``conv2d_nhwc_splitk``, ``conv2d_splitk``), the ``s`` instances of a tile each take
   ``ceil(K / TK) / s`` steps and add their tile in fp32 (an epilogue four times a 16-bit
   store's), over ``s`` times the waves' slots: a split pays where the tiles alone leave SMs
   idle, and costs an epilogue a split where they do not.
6. **Gathered operands** (:func:`~tritonc.tuning.workload.gathered`: loaded through a pointer
   tile with no contiguity, one element per instruction): ``gather_cycles`` issue cycles per gathered element a trip,
   a term of the norm times the resident CTAs, and ``staged_registers`` registers per element
   a thread holds under 4 bytes (staged through registers), ``copied_gather_registers`` at 4
   bytes or more (copied by ``cp.async`` one element at a time) (docs/tuning.md).

The per-target constants (:data:`~tritonc.tuning.workload.GPU_MODELS`) are public figures (SM
counts, shared-memory and register limits from the CUDA C++ Programming Guide's compute-capability tables, dense fp16
tensor throughput from the NVIDIA A100/H100 whitepapers) and estimates (L2 bandwidth per SM,
memory latency, the fixed cost of a loop step) chosen so that the model reproduces the order of
the matmul configurations measured on an H200 (4096^3 fp16: 64x64x32 w4 s3 0.46x cuBLAS,
128x128x64 w4 s3 0.73x, 128x256x64 w8 s4 0.94x): it ranks configurations, it does not predict
absolute times.

Kernels without a ``tt.dot`` are ranked by the memory-bound model instead: :mod:`tritonc.tuning.memory_model`.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from .workload import GPU_MODELS, WGMMA_ARCHS, DotTile, GpuModel

#: Problem size assumed without ``--hint``: large enough that every tile shape fills the GPU
#: for several waves (the size the matmul benchmarks measure).
LARGE_PROBLEM = {"M": 4096, "N": 4096, "K": 4096}

#: The problem dimensions ``--hint`` accepts: a dot ``[M, K] @ [K, N]``'s output rows, output
#: columns and reduction length, summed over the kernel's grid and loop, and ``B``: how many
#: such products the grid computes (the batch of a batched ``@``; 1 when not given).
HINT_NAMES = ("M", "N", "K", "B")

#: ``num_warps`` candidates for a kernel with a ``tt.dot`` when ``--num-warps`` is ``auto``.
WARP_CANDIDATES = (4, 8)

#: ``num_stages`` candidates when ``--num-stages`` is ``auto``.
STAGE_CANDIDATES = (2, 3, 4, 5)

#: ``num_stages`` when nothing feeds a dot from a loop (the value has no effect there).
DEFAULT_NUM_STAGES = 3

#: Most tunable combinations the model enumerates (each costs one run of the frontend's
#: irgen, about 2 ms); more is a usage error asking for ``-D``.
MAX_COMBINATIONS = 4096

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
        if not self.dots:
            return f"{self.config.describe()}: no dot the model ranks (the source's candidate order)"
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


def _fma_issue_share(tile: DotTile, num_warps: int) -> float:
    """The share of a thread's issue slots that are FMAs, for a dot on CUDA cores: per ``k``,
    its ``r * c`` FMAs (``r`` rows and ``c`` columns of the accumulator a thread holds in
    :func:`~tritonc.transforms.accelerate_matmul.fma_layout`) share the slots with the
    16-byte shared-memory loads of its ``r`` rows of A and ``c`` columns of B, and per loop
    trip with its share of the stores that stage both operands (one element each). Bigger
    tiles a thread (more FMAs per load) and a thread's share of bigger CTA tiles (fewer stores
    per FMA) rank higher. 1.0 where the layout does not apply (a batched dot)."""
    from ..transforms.accelerate_matmul import fma_layout

    lay = fma_layout((tile.m, tile.n), num_warps) if tile.batch == 1 else None
    if lay is None:
        return 1.0
    rows, cols = lay.size_per_thread
    reps = tile.n // (32 * cols)  # a thread's columns repeat every 32 * cols
    fmas = rows * cols * reps
    loads = math.ceil(rows * tile.a_bytes / 16) + reps * math.ceil(cols * tile.b_bytes / 16)
    stores = (tile.m + tile.n) * tile.k / (32 * num_warps)
    return fmas * tile.k / ((fmas + loads) * tile.k + stores)


def estimate_dot(tile: DotTile, num_warps: int, num_stages: int, gpu: GpuModel,
                 problem: dict[str, int]) -> tuple[DotEstimate | None, str | None]:
    """The model (module docstring, steps 1-5) for one dot; ``(None, reason)`` when rejected."""
    threads = 32 * num_warps
    if threads > 1024:
        return None, f"{threads} threads per CTA (at most 1024)"
    # 1. instruction
    wgmma_n = tile.wgmma_n(num_warps) if gpu.arch in WGMMA_ARCHS else None
    nb = tile.batch  # a batched dot: nb 2-D dots a trip, each with its operands and accumulator
    acc_regs = math.ceil(nb * tile.m * tile.n * tile.acc_bytes / 4 / threads)
    if wgmma_n is not None:
        instruction, flops = f"wgmma m64n{wgmma_n}k16", gpu.wgmma_flops
        registers = acc_regs + 64
        if acc_regs > 128:
            what = f"the {tile.m}x{tile.n} accumulator" if nb == 1 else f"the {nb} {tile.m}x{tile.n} accumulators"
            return None, (f"{what} needs {acc_regs} registers per thread "
                          f"at {num_warps} warps (wgmma: at most 128)")
    elif tile.mma_k_width is not None:
        instruction, flops = "mma.sync m16n8k16", gpu.mma_flops * (2 if tile.int8 else 1)
        wm, wn = _warps_per_tile(tile.m, tile.n, num_warps)
        kslice = min(tile.k, 32)
        frag = math.ceil((tile.m // wm) * kslice * tile.a_bytes / 128) + math.ceil((tile.n // wn) * kslice * tile.b_bytes / 128)
        registers = acc_regs + nb * frag + 32
    else:
        instruction, flops = "FMA", gpu.fma_flops * _fma_issue_share(tile, num_warps)
        # the operand tiles, loaded into registers and then staged in shared memory, live
        # with the accumulator
        registers = acc_regs + math.ceil(nb * (tile.m * tile.k * tile.a_bytes + tile.k * tile.n * tile.b_bytes)
                                         / 4 / threads) + 32
    # a gather under 4 bytes is staged through registers a trip ahead (cp.async needs 4 bytes)
    gathered_elems = nb * (tile.m * tile.k * tile.gather_a + tile.k * tile.n * tile.gather_b)
    staged = nb * (tile.m * tile.k * (tile.gather_a and tile.a_bytes < 4)
                   + tile.k * tile.n * (tile.gather_b and tile.b_bytes < 4))
    registers += math.ceil((gpu.staged_registers * staged
                            + gpu.copied_gather_registers * (gathered_elems - staged)) / threads)
    if registers > 255:
        return None, (f"~{registers} registers per thread at {num_warps} warps ({instruction}; at most 255: "
                      "it would spill)")
    # 2. shared memory
    stage_bytes = nb * (tile.m * tile.k * tile.a_bytes + tile.k * tile.n * tile.b_bytes)
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
    M, N, K, B = problem["M"], problem["N"], problem["K"], problem.get("B", 1)
    tiles = math.ceil(M / tile.m) * math.ceil(N / tile.n) * math.ceil(B / nb)
    # a grid with more program instances than output tiles splits the reduction (step 5)
    split = tile.programs // tiles if tile.programs is not None and tile.programs >= 2 * tiles else 1
    tiles *= split
    waves = math.ceil(tiles / (gpu.sm_count * ctas))
    full_waves, last = divmod(tiles, gpu.sm_count * ctas)
    resident = ctas if full_waves else math.ceil(tiles / gpu.sm_count)
    # 4. one round: every resident CTA takes one TK step
    t_mma = 2.0 * nb * tile.m * tile.n * tile.k / flops
    t_l2 = stage_bytes / gpu.l2_bytes
    if wgmma_n is not None:
        groups = num_warps // 4
        smem_traffic = stage_bytes + nb * (tile.m * tile.k * tile.a_bytes + groups * tile.k * tile.n * tile.b_bytes)
    elif tile.mma_k_width is not None:
        wm, wn = _warps_per_tile(tile.m, tile.n, num_warps)
        smem_traffic = stage_bytes + nb * (wn * tile.m * tile.k * tile.a_bytes + wm * tile.k * tile.n * tile.b_bytes)
    else:
        smem_traffic = stage_bytes * (1 + num_warps)
    t_smem = smem_traffic / gpu.smem_bytes
    latency = gpu.latency / max(stages - 1, 1)
    t_gather = gpu.gather_cycles * gathered_elems  # issue slots: the SM's, shared by its CTAs
    steps = math.ceil(math.ceil(K / tile.k) / split) if tile.in_loop else 1

    def wave_cycles(resident: int) -> float:
        """One wave with ``resident`` CTAs on each SM: its rounds, one latency, the epilogue
        (the tile written as 16-bit elements, or with a split added in fp32 by
        read-modify-write)."""
        round_cycles = _pnorm3(resident * t_mma, resident * t_l2, resident * t_smem, resident * t_gather,
                               latency) + gpu.step_overhead
        epilogue = resident * nb * tile.m * tile.n * tile.acc_bytes / 2 / gpu.l2_bytes * (4 if split > 1 else 1)
        return steps * round_cycles + gpu.latency + epilogue

    # a last wave that does not fill the slots puts fewer CTAs on each SM: shorter rounds
    cycles = full_waves * wave_cycles(ctas) + (wave_cycles(math.ceil(last / gpu.sm_count)) if last else 0.0)
    flops_done = 2.0 * M * N * B * (K if tile.in_loop else tile.k)
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


# ---- chained dots (flash attention) -------------------------------------------------------

#: Resident warps per SM (4 per scheduler) that hide the latency of a chained loop's dependent
#: steps (dot, wait, row reductions through shuffles, exp, dot): measured on an H100
#: (benchmarks/RESULTS.md 2026-11-24, attention D = 64): BM=128 BN=64 on 8 warps, 2 CTAs
#: (16 warps) 2.12 ms; 4 warps, 2 CTAs (8 warps) 2.72 ms; BN=128 on 8 warps, 1 CTA (8 warps)
#: 2.33 ms.
CHAIN_HIDING_WARPS = 16

#: Chained loops take the fewest stages (2: the copies one trip ahead). Deeper pipelines leave
#: the last dot running into the next trip (``software-pipeline``, 3 stages: copies still one
#: trip ahead, 4: two) and pin its A registers (``p``) until the next trip's wait. Measured on
#: an H100 (attention, 2026-11-27, one run each): D=64 2 stages 2.02 ms, 3 stages 1.97 ms (the
#: model's one miss: 2.5% slower), 4 stages 2.03 ms (another run: 3 stages 1.94, 4 stages
#: 2.03); D=128 BN=128 2 stages 3.27 ms, 3 stages 3.60 ms (255 registers and a spill).
CHAIN_MIN_STAGES = 2

#: Registers per thread a chained loop needs besides its tiles (addresses, masks, row
#: statistics, loop counters): ptxas gave attention (BM=128, BN=D=64, 8 warps: 64 words of
#: accumulators, 16 of p) 120 registers.
CHAIN_OTHER_REGISTERS = 40

CHAINED_NOTE = ("chained dots (two or more in one loop body): ranked by resident warps per SM (their registers: "
                "every accumulator of the body and the next dots' A fragments), then score-tile elements per "
                "trip, then the fewest stages")


@dataclass(frozen=True)
class ChainedEstimate(Estimate):
    """:func:`estimate_chained`'s verdict: ``key`` ranks (smaller first)."""

    registers: int = 0
    shared_bytes: int = 0
    ctas_per_sm: int = 0
    trip_elements: int = 0
    instruction: str = ""

    @property
    def key(self) -> tuple:
        warps = self.ctas_per_sm * self.config.num_warps
        return (-min(warps, CHAIN_HIDING_WARPS), -self.trip_elements, abs(self.config.num_stages - CHAIN_MIN_STAGES))

    @property
    def cycles(self) -> float:
        return 0.0

    def efficiency(self, gpu: GpuModel) -> float:
        return 0.0

    def describe(self, gpu: GpuModel) -> str:
        if not self.feasible:
            return f"{self.config.describe()}: rejected, {self.reason}"
        return (f"{self.config.describe()}: {self.instruction}, {self.shared_bytes // 1024} KiB shared memory, "
                f"~{self.registers} registers/thread, {self.ctas_per_sm} CTA/SM = "
                f"{self.ctas_per_sm * self.config.num_warps} warps/SM, {self.trip_elements} score elements per trip")


def estimate_chained(tiles: list[DotTile], config: Config, gpu: GpuModel) -> ChainedEstimate:
    """Rank a kernel with chained dots (``DotTile.chain``; flash attention: ``s = q @ k`` with
    ``s`` a ``[BM, BN]`` f32 tile, a softmax of ``s`` in registers, ``acc += p @ v`` with
    ``acc`` ``[BM, D]`` f32 and ``p`` the A operand in registers).

    A trip of such a loop is a chain of dependent steps (the first dot and its wait, row
    reductions, ``exp``, the second dot), so an SM keeps its tensor cores and issue slots busy
    only by switching between the warps of other warp groups and CTAs: the configurations are
    ranked by resident warps per SM (up to :data:`CHAIN_HIDING_WARPS`), then by score-tile
    elements per trip (each trip pays a barrier, a copy wait and the dots' latency), then by
    pipeline depth (the fewest stages, :data:`CHAIN_MIN_STAGES`); ties keep the source's order.

    Resident warps come from the registers and shared memory of the body with the most:
    registers per thread are every accumulator of the body (all live across the softmax) plus
    the A operand of each dot after the first (``p``, in registers; PTX ISA 9.7.15.5.2 for
    wgmma), counted twice from 3 stages on, where the last dot runs into the next trip and its
    A registers may not be written before its wait (PTX ISA 9.7.15.6.2, ``wgmma.wait_group``),
    plus :data:`CHAIN_OTHER_REGISTERS`; shared memory is ``num_stages`` copies of every
    dot's B operand plus the first dot's A (``q``, loaded once). Rejected: an accumulator over
    128 registers per thread on wgmma, over 255 registers (it would spill), shared memory over
    the per-CTA limit, a dot wgmma cannot run at these warps on a wgmma target (its 64-row warp
    groups: ``BM`` a multiple of ``16 * num_warps``).
    """
    W, S = config.num_warps, config.num_stages
    threads = 32 * W
    if threads > 1024:
        return ChainedEstimate(config, reason=f"{threads} threads per CTA (at most 1024)")
    bodies: dict[int, list[DotTile]] = {}
    for t in tiles:
        if t.chain:
            bodies.setdefault(t.chain, []).append(t)
    worst = None
    for body in bodies.values():
        regs, shared = CHAIN_OTHER_REGISTERS, body[0].m * body[0].k * body[0].a_bytes
        wgmma = gpu.arch in WGMMA_ARCHS
        for i, t in enumerate(body):
            acc = math.ceil(t.m * t.n * t.acc_bytes / 4 / threads)
            if wgmma and t.wgmma_n(W) is None:
                return ChainedEstimate(config, reason=f"the {t.m}x{t.n}x{t.k} dot cannot run on wgmma at {W} warps")
            if wgmma and acc > 128:
                return ChainedEstimate(config, reason=(f"the {t.m}x{t.n} accumulator needs {acc} registers per "
                                                       f"thread at {W} warps (wgmma: at most 128)"))
            a_regs = math.ceil(t.m * t.k * t.a_bytes / 4 / threads) if i else 0
            running = i == len(body) - 1 and S >= 3 and gpu.arch in WGMMA_ARCHS
            regs += acc + a_regs * (2 if running else 1)
            shared += max(S, 1) * t.k * t.n * t.b_bytes
        if worst is None or (regs, shared) > worst[:2]:
            worst = (regs, shared, body)
    regs, shared, body = worst
    if regs > 255:
        return ChainedEstimate(config, reason=f"~{regs} registers per thread at {W} warps (at most 255: it would spill)")
    if shared > gpu.smem_per_cta:
        return ChainedEstimate(config, reason=(f"{shared // 1024} KiB of shared memory over the "
                                               f"{gpu.smem_per_cta // 1024} KiB per CTA of {gpu.arch}"))
    ctas = min(gpu.max_ctas_per_sm, gpu.smem_per_sm // (shared + 1024),
               gpu.regs_per_sm // ((regs + 7) // 8 * 8 * threads), 2048 // threads)
    if ctas < 1:
        return ChainedEstimate(config, reason=f"no CTA fits on an SM ({regs} registers x {threads} threads)")
    wgmma_n = body[0].wgmma_n(W) if gpu.arch in WGMMA_ARCHS else None
    instruction = f"wgmma m64n{wgmma_n}k16" if wgmma_n else "mma.sync m16n8k16" if body[0].mma_k_width else "FMA"
    return ChainedEstimate(config, registers=regs, shared_bytes=shared, ctas_per_sm=ctas,
                           trip_elements=body[0].m * body[0].n, instruction=instruction)


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
        arch: one of :data:`~tritonc.tuning.workload.GPU_MODELS`.
        problem: ``M``, ``N``, ``K`` (missing ones from :data:`LARGE_PROBLEM`).
        free: names of the meta-parameters being chosen (for :meth:`Choice.explain`).

    Returns:
        a :class:`Choice`; its ``config`` is ``None`` when every configuration was rejected.
    """
    gpu = GPU_MODELS[arch]
    size = dict(LARGE_PROBLEM)
    size.update(problem or {})
    if any(t.chain for _, tiles in space for t in tiles):
        estimates = [estimate_chained(tiles, config, gpu) for config, tiles in space]
        ranked = sorted((e for e in estimates if e.feasible), key=lambda e: e.key)  # stable: source order on ties
        rejected = [e for e in estimates if not e.feasible]
        return Choice(ranked[0].config if ranked else None, gpu, size, bool(problem), ranked, rejected, free,
                      note=CHAINED_NOTE)
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
