"""What the cost models are given (:mod:`tritonc.tuning.cost_model`,
:mod:`tritonc.tuning.memory_model`): the target GPU's resources and throughputs
(:class:`GpuModel`, one per ``--arch`` in :data:`GPU_MODELS`) and the dots of a kernel as the
dot model sees them (:class:`DotTile`, read from the frontend's tile IR by :func:`dot_tiles`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..ir.core import Module
from ..ir.types import TileType


#: Bytes per element of the scalar types, by name (the models take 4 for one not listed).
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4, "f64": 8, "i16": 2, "i64": 8}


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
        gather_cycles: SM issue cycles per element of a gathered operand a trip (its address,
            bounds checks, one load or 4-byte copy per element; estimate, from conv2d fp16
            64x64x32 on an H100: ~1100 cycles per CTA trip for 2048 gathered elements, half
            of it put on the gather).
        staged_registers: registers per thread per gathered element of an operand under 4
            bytes (staged through registers one trip ahead, ``software-pipeline``: the value,
            its 64-bit address and mask; estimate).
        copied_gather_registers: registers per thread per gathered element of an operand of 4
            bytes or more, which ``cp.async`` copies one element at a time (its 64-bit address
            and mask; estimate: conv2d TF32 64x128x32 on 4 warps, estimated at 192 registers
            without it, took 255 and spilled 192 bytes).
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
    gather_cycles: float = 0.5
    staged_registers: float = 6.0
    copied_gather_registers: float = 4.0

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
        chain: ``0``, or a number shared by the dots of one loop body that holds two or more
            (chained dots: flash attention's ``q @ k`` and ``p @ v``,
            :func:`~tritonc.tuning.cost_model.estimate_chained`); in the body's order.
        batch: the batch tile of a batched dot ``[m, k, batch] @ [k, n, batch]`` (1 for a 2-D
            dot): ``unbatch-dots`` makes it ``batch`` 2-D dots of ``[m, k] @ [k, n]`` a trip,
            each with its own operand tiles and accumulator.
        gather_a, gather_b: the operand is loaded through a pointer tile with no contiguity in
            any dimension (a gather: conv2d's A, ``pa0[m] + AOFF[k]``), one element per
            instruction (:func:`gathered`).
        programs: the program instances the kernel's ``__grid`` launches at the problem size
            (``None``: no grid, or one the problem's sizes do not decide). More than the output
            tiles means a split reduction (split-K: ``programs / tiles`` instances share a tile,
            each taking that share of the ``K`` steps, adding its partial tile atomically).
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
    chain: int = 0
    batch: int = 1
    gather_a: bool = False
    gather_b: bool = False
    programs: int | None = None

    def wgmma_n(self, num_warps: int) -> int | None:
        return dict(self.wgmma).get(num_warps)


def gathered(operand, axis) -> bool:
    """Whether dot operand ``operand`` (a value of tt IR) is a load through a pointer tile with
    no contiguity in any dimension (looking through ``tt.trans``, ``tt.broadcast`` and casts):
    a gather, accessed one element per instruction whatever the alignment (``coalesce``'s
    "not strong" access). ``axis``: an :class:`~tritonc.analysis.axis_info.AxisInfoAnalysis`
    of the module."""
    v = operand
    for _ in range(4):
        op = getattr(v, "op", None)
        if op is None:
            return False
        if op.name == "tt.load":
            ptr = op.get("ptr")
            return isinstance(ptr.type, TileType) and max(axis.info(ptr).contiguity) <= 1
        if op.name not in ("tt.trans", "tt.broadcast", "arith.extf", "arith.truncf", "tt.fp_to_fp",
                           "arith.sitofp", "arith.bitcast"):
            return False
        v = op.operands[0]
    return False


def dot_tiles(module: Module, warp_candidates: tuple[int, ...], allow_tf32: bool = False,
              memo: dict | None = None) -> list[DotTile]:
    """The :class:`DotTile` of every 2-D or batched (3-D, batch axis trailing) ``tt.dot`` in
    ``module`` (tt IR from the frontend), function by function.

    ``warp_candidates``: the warp counts at which to test wgmma eligibility. A batched dot is
    modelled as the 2-D dots ``unbatch-dots`` splits it into (batch tiles up to
    :data:`~tritonc.transforms.unbatch_dots.MAX_BATCH_UNROLL`; larger ones stay on FMA), their
    wgmma eligibility from the shapes and types alone
    (:func:`~tritonc.transforms.accelerate_matmul.wgmma_shape_n`).

    ``memo``: a dict the caller keeps across calls with the same ``warp_candidates`` and
    ``allow_tf32``, holding each function's tiles: the cost model's modules share the
    translation of a kernel among the combinations of the tunables it does not use
    (:class:`~tritonc.meta_parameters.KernelTranslations`), so each function is read once
    (its axis info is the costly part: ``examples/conv2d_nchw.tri``'s cold compile, 192
    combinations, went from 3.2-3.6 s to 2.5-2.6 s on the 2-core machine, the cubin the same).
    """
    tiles = []
    for f in module.functions:
        hit = memo.get(id(f)) if memo is not None else None
        if hit is None or hit[0] is not f:
            hit = (f, _function_dot_tiles(f, warp_candidates, allow_tf32))
            if memo is not None:
                memo[id(f)] = hit  # (the function is kept alive with its tiles: ids stay unique)
        tiles.extend(hit[1])
    return tiles


def _function_dot_tiles(f, warp_candidates: tuple[int, ...], allow_tf32: bool) -> list[DotTile]:
    """:func:`dot_tiles` of one function (axis info is intraprocedural: computed on ``f``
    alone, it is what the module's analysis derives for ``f``)."""
    from ..analysis.axis_info import AxisInfoAnalysis
    from ..transforms.accelerate_matmul import mma_types, wgmma_eligible, wgmma_shape_n
    from ..transforms.unbatch_dots import MAX_BATCH_UNROLL

    tiles = []
    axis = None
    dots = [op for op in f.walk() if op.name == "tt.dot"]
    bodies = [op.parent for op in dots]
    chained = [blk for i, blk in enumerate(bodies) if bodies.count(blk) >= 2 and bodies.index(blk) == i]
    for op in dots:
        if len(op.operands) < 3 or op.operands[0].type.rank not in (2, 3):
            continue
        a, b, acc = (v.type for v in op.operands[:3])
        m, k = a.shape[:2]
        n = b.shape[1]
        batch = a.shape[2] if a.rank == 3 else 1
        kw = mma_types(a.element, b.element, acc.element, op.attrs.get("input_precision", "ieee"), allow_tf32)
        if kw is not None and (m % 16 or n % 8 or k % (8 * kw) or batch > MAX_BATCH_UNROLL):
            kw = None
        if a.rank == 3:
            wg = tuple((w, wgmma_shape_n(a.element.name, acc.element.name, m, n, k, w) if kw is not None else None)
                       for w in warp_candidates)
        else:
            wg = tuple((w, wgmma_eligible(op, w) if kw is not None else None) for w in warp_candidates)
        in_loop = False
        parent = op.parent_op()
        while parent is not None and not in_loop:
            in_loop = parent.name in ("scf.for", "scf.while")
            parent = parent.parent_op()
        chain = next((i + 1 for i, blk in enumerate(chained) if op.parent is blk), 0) if in_loop else 0
        tiles.append(DotTile(f.name, m, n, k, ELEMENT_BYTES.get(a.element.name, 4),
                             ELEMENT_BYTES.get(b.element.name, 4), ELEMENT_BYTES.get(acc.element.name, 4),
                             kw, a.element.name == "i8", wg, in_loop, chain=chain, batch=batch))
        if in_loop:
            axis = axis or AxisInfoAnalysis(f)
            tiles[-1] = dataclasses.replace(tiles[-1], gather_a=gathered(op.operands[0], axis),
                                            gather_b=gathered(op.operands[1], axis))
    return tiles
