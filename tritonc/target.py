"""What tritonc compiles for: the :class:`Target` (facts about one GPU architecture).

The Target sits in the bottom layer, beside :mod:`tritonc.options`, so that analyses and
transforms can ask it (the warp size, which dot instructions exist, how much shared memory a
CTA may use) without importing the code generator. It holds facts only; what the compiler
may choose (the ``-f`` flags) is :class:`tritonc.options.CodegenOptions`. The driver builds one
Target from ``--arch`` and passes it down.

Sources of the numbers: the CUDA C++ Programming Guide, "Technical Specifications per Compute
Capability" (shared memory per SM and per block, registers per SM and per thread, the 1 KiB
of shared memory the system reserves per CTA); the PTX ISA (9.7.14 mma, 9.7.15 wgmma: the
``sm_90a`` requirement); LLVM's NVPTX back end ("User Guide for NVPTX") for the triple and
datalayout (``--nvptx-short-ptr``: shared, const and local pointers are 32 bits).
"""
from __future__ import annotations

from dataclasses import dataclass

from .diagnostics import CompileError

#: GPU architectures tritonc compiles for (``--arch``), oldest first.
ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")

#: Architectures tritonc writes PTX for but no SASS (``--arch sm_80,sm_100``, inside a fatbin): each
#: is compiled on the path of an architecture of :data:`ARCHS` that it shares (mma.sync, cp.async,
#: no wgmma), then the PTX is retargeted (``.target``, ``.version``): arch -> (path arch, least PTX
#: ISA version x10 that knows the target; PTX ISA "Release notes": 8.6 added sm_100, 8.7 sm_120).
#: sm_120 takes sm_86's path because its CTAs have sm_86's 99 KiB of shared memory, not sm_80's 163.
PTX_ONLY_ARCHS = {"sm_100": ("sm_80", 86), "sm_120": ("sm_86", 87)}

#: The architecture of a compilation that names none: H100/H200 with wgmma.
DEFAULT_ARCH = "sm_90a"

#: PTX ISA versions (x10) that LLVM 22 knows as ``+ptxNN`` and ptxas 13.0 accepts.
PTX_VERSIONS = (80, 81, 82, 83, 84, 85, 86, 87, 88, 90)

#: ``+ptx86``: the lowest PTX version that every intrinsic tritonc may use needs (the
#: ``.relaxed`` mbarrier waits), accepted by ptxas 13.0 and nvJitLink 13.x.
DEFAULT_PTX_VERSION = 86

#: LLVM's target triple for NVIDIA GPUs (64-bit generic addresses).
TRIPLE = "nvptx64-nvidia-cuda"

#: LLVM 22's NVPTX datalayout with ``--nvptx-short-ptr`` (the same for every sm_XX).
DATALAYOUT = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"

#: Threads per warp on every NVIDIA architecture tritonc supports.
WARP_SIZE = 32

#: The instructions a ``tt.dot`` can be lowered to, from the most general to the fastest:
#: per-thread FMA, warp-level ``mma.sync`` (PTX ISA 9.7.14, sm_80+) and warp-group ``wgmma``
#: (PTX ISA 9.7.15, sm_90a only).
DOT_INSTRUCTIONS = ("fma", "mma.sync", "wgmma")

#: Shared memory per SM usable by CTAs, in bytes, by compute capability (x10).
_SHARED_PER_SM = {80: 164 * 1024, 86: 100 * 1024, 89: 100 * 1024, 90: 228 * 1024}
#: The most dynamic shared memory one CTA may opt in to, in bytes (per SM, less the 1 KiB
#: reserved per CTA).
_SHARED_PER_CTA = {80: 163 * 1024, 86: 99 * 1024, 89: 99 * 1024, 90: 227 * 1024}


@dataclass(frozen=True)
class Target:
    """An NVIDIA GPU target: ``arch`` (one of :data:`ARCHS`) and ``ptx_version`` (x10, e.g.
    86 for PTX 8.6). Every other attribute is a fact that follows from those two.

    Raises:
        CompileError: for an architecture or PTX version outside the supported sets.
    """

    arch: str = DEFAULT_ARCH
    ptx_version: int = DEFAULT_PTX_VERSION

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise CompileError(f"unsupported GPU architecture '{self.arch}'; expected one of {', '.join(ARCHS)}")
        if self.ptx_version not in PTX_VERSIONS:
            raise CompileError(f"unsupported PTX version {self.ptx_version}; expected one of "
                               f"{', '.join(map(str, PTX_VERSIONS))}")

    triple = TRIPLE
    datalayout = DATALAYOUT
    #: Threads per warp.
    warp_size = WARP_SIZE
    #: 32-bit registers per SM (65536 on sm_80 .. sm_90).
    registers_per_sm = 65536
    #: Registers a thread may use at most (255 on sm_80 .. sm_90).
    max_registers_per_thread = 255
    #: Per-thread register allocation granularity (a warp's registers come in units of 256).
    register_granule = 8
    #: Shared memory the system reserves per CTA, in bytes.
    reserved_shared_per_cta = 1024

    @property
    def cpu(self) -> str:
        """LLVM's ``cpu`` name, equal to the arch (``sm_90a`` included)."""
        return self.arch

    @property
    def features(self) -> str:
        """LLVM's target features: the PTX version, ``+ptx86``."""
        return f"+ptx{self.ptx_version}"

    @property
    def capability(self) -> int:
        """Compute capability times ten: 80, 86, 89 or 90 (``sm_90a`` is 90)."""
        return int(self.arch[3:5])

    @property
    def arch_specific(self) -> bool:
        """True for ``sm_90a``: code that runs only on that exact chip family (wgmma, setmaxnreg)."""
        return self.arch.endswith("a")

    @property
    def shared_bytes_per_sm(self) -> int:
        """Shared memory per SM that CTAs can use, in bytes (228 KiB on sm_90)."""
        return _SHARED_PER_SM[self.capability]

    @property
    def max_shared_bytes_per_cta(self) -> int:
        """The most dynamic shared memory one CTA may use (after opting in), in bytes."""
        return _SHARED_PER_CTA[self.capability]

    @property
    def dot_instructions(self) -> tuple[str, ...]:
        """The members of :data:`DOT_INSTRUCTIONS` this target has: FMA everywhere,
        ``mma.sync`` from sm_80, ``wgmma`` on ``sm_90a`` only."""
        have = ["fma"]
        if self.capability >= 80:
            have.append("mma.sync")
        if self.capability >= 90 and self.arch_specific:
            have.append("wgmma")
        return tuple(have)

    def has_dot_instruction(self, name: str) -> bool:
        """Whether this target has dot instruction ``name``.

        Raises:
            ValueError: ``name`` is not one of :data:`DOT_INSTRUCTIONS`.
        """
        if name not in DOT_INSTRUCTIONS:
            raise ValueError(f"unknown dot instruction '{name}'; expected one of {', '.join(DOT_INSTRUCTIONS)}")
        return name in self.dot_instructions

    def identity(self) -> dict[str, object]:
        """Everything about the target that changes compiled output (part of the compile cache key)."""
        return {"arch": self.arch, "ptx_version": self.ptx_version}

    def __str__(self) -> str:
        return f"{self.arch} (PTX {self.ptx_version // 10}.{self.ptx_version % 10})"
