"""Compile options shared by the CLI, the driver, the interpreter and the tests."""
from __future__ import annotations

from dataclasses import dataclass, field

#: GPU architectures tritonc can target (``--arch``).
ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a")

#: Output kinds, by ``--emit`` name, with the file suffix each one is written to.
EMIT_SUFFIXES = {
    "ttir": ".ttir",
    "ttgir": ".ttgir",
    "llir": ".ll",
    "ptx": ".ptx",
    "cubin": ".cubin",
    "header": ".h",
    "py": ".py",
}


@dataclass
class CompileOptions:
    """Everything that decides what a compilation produces.

    Attributes:
        defines: preprocessor macros (``-D NAME=VALUE``; value ``"1"`` for a bare ``-D NAME``).
        include_dirs: ``-I`` directories searched by ``#include``.
        tune: candidate lists per meta-parameter (``--tune TM=64,128``). For a ``const tunable``
            a one-value list fixes it and a longer one replaces its candidates for the cost
            model; a macro takes the first value.
        hint: problem sizes for the cost model (``--hint M=4096,N=4096,K=4096``): ``M``, ``N``,
            ``K`` of the kernel's matrix products; missing ones are assumed large.
        grid: ``--grid 'cdiv(M,TM),cdiv(N,TN)'``: the launch grid of every kernel, replacing
            their ``__grid`` (``tritonc.frontend.grid``).
        kernel_suffix: appended to every kernel's symbol (``matmul__v1``): variants of one
            kernel compiled separately and linked into one cubin (``tritonc.variants``).
        kernel: compile only this kernel of a multi-kernel file (``--kernel``).
        num_warps: warps per CTA (each program instance runs on ``32 * num_warps`` threads);
            ``None`` picks them from the kernel's tiles (:mod:`tritonc.analysis.num_warps`).
        num_stages: software-pipelining depth for loops that feed ``@``; ``None`` lets the cost
            model choose (:mod:`tritonc.tuning.cost_model`; 3 for kernels without a dot).
        arch: target GPU architecture, one of :data:`ARCHS` (default ``sm_90a``: H100/H200 with
            wgmma; ``sm_90`` keeps Hopper on mma.sync).
        allow_tf32: let ``@`` on float operands use TF32 tensor cores.
        use_ptxas: assemble with ``ptxas`` from PATH instead of nvJitLink.
        warnings_off: warning flags disabled with ``-Wno-<flag>``; ``werror`` for ``-Werror``.
        specialize: also compile, per kernel, a variant assuming 16-byte-aligned pointers and
            integers divisible by 16 that the launchers run when the arguments allow
            (``transforms/specialize.py``). ``None`` (default): only in what the launchers use
            (``cubin``, ``kernels``, header, Python module), IR outputs stay generic; ``True``:
            everywhere, IR and PTX included (``--specialize``); ``False``: never (``--no-specialize``).
    """

    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    tune: dict[str, list[int]] = field(default_factory=dict)
    kernel: str | None = None
    num_warps: int | None = None
    num_stages: int | None = None
    arch: str = "sm_90a"
    allow_tf32: bool = False
    use_ptxas: bool = False
    warnings_off: frozenset[str] = frozenset()
    werror: bool = False
    specialize: bool | None = None
    hint: dict[str, int] = field(default_factory=dict)
    grid: str | None = None
    kernel_suffix: str = ""
