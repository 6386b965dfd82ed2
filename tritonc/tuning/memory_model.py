"""A static cost model that picks tunables for the kernels without a ``tt.dot``: the memory-bound model.

When no kernel of the module has a ``tt.dot``, the driver (:mod:`tritonc.meta_parameters`) reads
each candidate configuration's tile IR into :class:`MemoryProfile` s (:func:`memory_profiles`;
each kernel's bytes moved at the problem size from :mod:`tritonc.tuning.traffic`) and asks
:func:`choose_memory_bound` for the configuration that keeps the DRAM bandwidth busiest. Nothing is
compiled or run: the model is arithmetic on the tile sizes (docs/tuning.md, "Kernels without
``@``: the memory-bound model"); kernels with a ``tt.dot`` are ranked by the tensor-core model,
:mod:`tritonc.tuning.cost_model`.

Kernels without a ``tt.dot`` are memory-bound: :func:`choose_memory_bound` ranks their
configurations by whether each CTA keeps enough bytes in flight (:func:`memory_profiles`,
:func:`estimate_memory`): per loop body (the loads a CTA issues together, one step at a time),
``ctas_per_sm * bytes_per_step`` against ``dram_bytes * latency`` (Little's law), with the warps
the tile rule gives (:mod:`tritonc.analysis.num_warps`) and occupancy from threads, CTA slots
and an estimate of registers. Configurations within :data:`MEMORY_TIE` of the best tie, and ties
keep the source's candidate order: the model only moves away from the first candidates when they leave
the memory system idle (too small a tile per CTA).

Units: bytes and cycles per SM; an estimate's ``efficiency`` is the fraction of the DRAM
bandwidth (0..1). The per-target figures are :data:`~tritonc.tuning.workload.GPU_MODELS`':
``dram_bytes`` is the data sheet's bandwidth over SMs and boost clock, ``latency`` an estimate,
the CTA slot and register limits from the CUDA C++ Programming Guide's compute-capability tables;
the registers per thread are an estimate. Like the tensor-core model it ranks configurations,
it does not predict absolute times.

Layer: this module takes the GPU models, :class:`~tritonc.tuning.cost_model.Config` and
:class:`~tritonc.tuning.cost_model.Choice` from :mod:`tritonc.tuning.cost_model`, which does not
import it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.core import Module
from .cost_model import LARGE_PROBLEM, Choice, Config
from .workload import ELEMENT_BYTES, GPU_MODELS, GpuModel


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
        traffic: bytes the whole launch moves at the problem size (each program instance's
            loads, stores and atomics, :func:`tritonc.tuning.traffic.program_bytes`, times the
            grid); ``None`` when not known (no ``__grid``, or control flow the problem does not
            decide).
    """

    kernel: str
    steps: tuple[int, ...]
    largest_tile: int
    num_warps: int | None = None
    traffic: int | None = None


def _value_bytes(t) -> tuple[int, int]:
    """(elements, bytes per element) of a loaded value's type (a tile or a scalar)."""
    element = getattr(t, "element", t)
    return getattr(t, "numel", 1), ELEMENT_BYTES.get(getattr(element, "name", ""), 4)


def memory_profiles(module: Module, num_warps: dict[str, int] | None = None,
                    traffic: dict[str, int | None] | None = None) -> list[MemoryProfile]:
    """The :class:`MemoryProfile` of every kernel of ``module`` (tt IR from the frontend);
    ``num_warps``: each kernel's own warps by name (``None``: the configuration's); ``traffic``:
    each kernel's bytes moved by a launch at the problem size (missing: unknown)."""
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
                                 (num_warps or {}).get(f.name), (traffic or {}).get(f.name)))
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
    #: bytes the kernels' launches move at the problem size (``None``: not known)
    traffic: int | None = None

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
        moved = f", {self.traffic / 2**20:.1f} MiB moved" if self.traffic is not None else ""
        return (f"{self.config.describe()}{per_kernel}: ~{self.registers} registers/thread, {self.ctas_per_sm} CTA/SM, "
                f"{self.in_flight // 1024} KiB in flight per SM (saturation: {self.needed // 1024} KiB){moved}, "
                f"est. {100 * self.efficiency:.0f}% of DRAM bandwidth")


def launch_traffic(profiles: list[MemoryProfile]) -> int | None:
    """Bytes all of ``profiles``' kernels move at the problem size; ``None`` if one is unknown."""
    if not profiles or any(p.traffic is None for p in profiles):
        return None
    return sum(p.traffic for p in profiles)


def estimate_memory(profiles: list[MemoryProfile], config: Config, gpu: GpuModel,
                    least_traffic: int | None = None) -> MemoryEstimate:
    """How close ``config`` keeps a module whose kernels are ``profiles`` to the bandwidth.

    Per kernel: ``T = 32 * num_warps`` threads (the kernel's own warps when its profile has
    them, else the configuration's); registers per thread ``32 + 4 * ceil(E / T)``
    for the largest tile of ``E`` elements (its values, addresses and masks; an estimate);
    resident CTAs ``c`` = the least of the CTA slots, ``2048 / T`` threads and the registers;
    each step ``s`` (bytes a CTA loads per loop step) reaches ``min(1, c * s / (dram_bytes *
    latency))`` of the bandwidth, and the kernel the byte-weighted harmonic mean of its steps.
    The configuration's efficiency is the mean over the kernels, times ``least_traffic`` over
    the bytes this configuration moves (:func:`launch_traffic`) when both are known: of two
    configurations that keep the bandwidth equally busy, the one that moves more bytes (a
    second pass over the data, a tile much wider than the row) takes longer in proportion.
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
    efficiency = sum(effs) / len(effs)
    traffic = launch_traffic(profiles)
    if traffic and least_traffic:
        efficiency *= min(1.0, least_traffic / traffic)
    return MemoryEstimate(config, efficiency, min(ctas), max(regs), min(flights, default=0), needed,
                          kernel_warps=warps if distinct else (), traffic=traffic)


def choose_memory_bound(space: list[tuple[Config, list[MemoryProfile]]], arch: str,
                        problem: dict[str, int] | None = None, free: tuple[str, ...] = ()) -> Choice:
    """Rank the configurations of a module without ``tt.dot`` (:func:`estimate_memory`).

    Args:
        space: ``(config, profiles)`` in the source's candidate order; each config's
            ``num_warps`` is what that configuration compiles with.
        arch: one of :data:`GPU_MODELS`.
        problem, free: as for :func:`choose` (the problem size is reported; it enters through
            the profiles' ``traffic``, which the caller computes at that size).

    Returns:
        a :class:`Choice` whose ``ranked`` holds :class:`MemoryEstimate` s, best first (ties in
        source order); ``config`` is ``None`` when every configuration was rejected.
    """
    gpu = GPU_MODELS[arch]
    size = dict(LARGE_PROBLEM)
    size.update(problem or {})
    estimates = [estimate_memory(profiles, config, gpu) for config, profiles in space]
    totals = [e.traffic for e in estimates if e.feasible]
    if totals and all(totals):  # every feasible configuration's traffic known: rank by it too
        estimates = [estimate_memory(profiles, config, gpu, min(totals)) for config, profiles in space]
    feasible = [e for e in estimates if e.feasible]
    best = max((e.efficiency for e in feasible), default=0.0)
    # within MEMORY_TIE of the best, the model cannot tell: the source's order decides
    ranked = sorted(feasible, key=lambda e: 0.0 if e.efficiency >= best - MEMORY_TIE else e.cycles)
    rejected = [e for e in estimates if not e.feasible]
    return Choice(ranked[0].config if ranked else None, gpu, size, bool(problem), ranked, rejected, free,
                  note="no tt.dot: ranked as memory-bound (bytes in flight per SM against the bandwidth; "
                       "within 10 points of the best, the source's candidate order), num_warps from the "
                       "tile sizes")
