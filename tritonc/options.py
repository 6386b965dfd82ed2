"""Compile options shared by the CLI, the driver, the interpreter and the tests.

* :class:`CompileOptions`: what one compilation is asked for (macros, tile meta-parameters,
  warps, stages, the arch) and its :class:`CodegenOptions`;
* :class:`CodegenOptions`: every switch of the code generator, each a documented
  ``-f<name>`` / ``-fno-<name>`` flag of ``tritonc`` (:func:`parse_codegen_flags`,
  :func:`codegen_flags_help`);
* :func:`artifact_identity`: everything that changes what a compilation produces, for the
  key of a compile cache.

The facts about the GPU (warp size, shared memory, which dot instructions exist) are not
options: they are :class:`tritonc.target.Target`'s.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import textwrap
from dataclasses import dataclass, field
from typing import Any

from .diagnostics import DEFAULT_ERROR_LIMIT
from .target import ARCHS, DEFAULT_ARCH, Target

__all__ = ["ARCHS", "DEFAULT_ARCH", "EMIT_SUFFIXES", "CodegenOptions", "CompileOptions", "artifact_identity",
           "codegen_flags_help", "parse_codegen_flags"]

#: Output kinds, by ``--emit`` name, with the file suffix each one is written to.
EMIT_SUFFIXES = {
    "ttir": ".ttir",
    "ttgir": ".ttgir",
    "llir": ".ll",
    "ptx": ".ptx",
    "cubin": ".cubin",
    "fatbin": ".fatbin",
    "header": ".h",
    "py": ".py",
}


#: ``-f`` values of a three-way switch: on, off, or the compiler's own rule.
ON_OFF_AUTO = ("on", "off", "auto")
#: PTX cache operators of ``ld`` (PTX ISA 9.7.9.8 ld, "Cache operators").
LOAD_CACHE_OPS = ("", "ca", "cg", "cs", "lu", "cv")
#: PTX eviction priorities of ``ld`` (PTX ISA 9.7.9.8 ld, ``.level::eviction_priority``).
LOAD_EVICTIONS = ("", "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
                  "L1::no_allocate")
#: PTX L2 prefetch sizes of ``ld`` (PTX ISA 9.7.9.8 ld, ``.level::prefetch_size``, sm_75+).
LOAD_PREFETCHES = ("", "L2::64B", "L2::128B", "L2::256B")


def _flag(default: Any, doc: str, choices: tuple[str, ...] = ()) -> Any:
    """A :class:`CodegenOptions` field: its ``-f`` help text and, for a string, its values."""
    return field(default=default, metadata={"doc": doc, "choices": choices})


@dataclass(frozen=True)
class CodegenOptions:
    """Every switch the code generator reads (the transforms after ``assign-layouts`` and the
    LLVM lowering). Each field ``name`` is the ``tritonc`` flag ``-f<name>`` (``_`` spelled
    ``-``): a bool is ``-fname`` / ``-fno-name``; a three-way switch (``"on"``, ``"off"``,
    ``"auto"``) is ``-fname`` / ``-fno-name`` / ``-fname=auto``; a string is ``-fname=VALUE``.
    The defaults are what the measurements in ``benchmarks/RESULTS.md`` chose; the others exist
    to measure what a choice costs (``tritonc.tools.bench --experiments``) and are not needed
    for correct code, except ``f32_division=rn`` (IEEE division) and the two ``exp`` switches,
    which trade accuracy (see their help).
    """

    group_program_order: bool = _flag(
        True, "launch the 2-D grid of a kernel with a dot in a loop (and no atomics) in groups of 8 rows, "
        "for L2 reuse (transforms/group_program_order.py)")
    occupancy_hint: bool = _flag(
        True, "ask ptxas for two CTAs per SM (.minnctapersm 2) on kernels of 256 to 512 threads "
              "without a dot whose loaded data fits half of the bounded registers")
    read_only_cache: bool = _flag(True, "load through read-only pointers with ld.global.nc")
    load_cache_op: str = _flag("", "cache operator of masked global loads: ca, cg, cs, lu or cv (PTX ld)",
                               LOAD_CACHE_OPS)
    load_eviction: str = _flag("", "eviction priority of masked global loads: L1::evict_normal, "
                                   "L1::evict_unchanged, L1::evict_first, L1::evict_last or "
                                   "L1::no_allocate (PTX ld)", LOAD_EVICTIONS)
    load_prefetch: str = _flag("", "L2 prefetch size of masked global loads: L2::64B, L2::128B or "
                                   "L2::256B (PTX ld .level::prefetch_size)", LOAD_PREFETCHES)
    wide_addresses: bool = _flag(True, "form the addresses of global accesses in loops at the access "
                                       "(mad.wide.s32) instead of carrying 64-bit pointers")
    f32_division: str = _flag("full", "f32 '/': 'full' (div.full.f32 with a range fix-up, 2 ulp) or "
                                      "'rn' (IEEE div.rn.f32, slower)", ("full", "rn"))
    exp_uncorrected: bool = _flag(False, "f32 exp as ex2.approx(x * log2 e) alone (OpenAI Triton's; "
                                         "its error grows with |x| beyond the spec's bound)")
    exp_ftz: bool = _flag(True, "f32 exp and exp2 with ex2.approx.ftz: results below 2^-126 (the smallest "
                                "normal float) flushed to zero, as OpenAI Triton and nvcc -ftz=true do; "
                                "-fno-exp-ftz keeps them subnormal (three more instructions an element)")
    fragment_prefetch: bool = _flag(False, "mma.sync dots: load the fragments of K step k+1 before the "
                                           "mma of step k")
    slice_prefetch: str = _flag("auto", "pipelined mma.sync loops: split the dot into K slices and "
                                        "prefetch the next one ('auto': where the registers allow)",
                                ON_OFF_AUTO)
    pipeline_memory_loads: bool = _flag(True, "loops without a dot: copy their tile loads num_stages - 1 "
                                              "trips ahead with cp.async into shared-memory rings")
    wgmma_in_flight: bool = _flag(True, "pipelined wgmma loops: leave each trip's wgmma running into "
                                        "the next trip (wgmma.wait_group 1)")
    wgmma_copies_after_dot: bool = _flag(True, "pipelined wgmma loops with a wgmma in flight: issue the "
                                               "copies after the dot instead of after the barrier")
    wgmma_second_barrier: str = _flag("auto", "pipelined wgmma loops with a wgmma in flight: copy one "
                                              "more trip ahead after a second barrier ('auto': with at "
                                              "most 4 stages)", ON_OFF_AUTO)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            choices = f.metadata["choices"]
            value = getattr(self, f.name)
            if not isinstance(value, type(f.default)):
                raise ValueError(f"codegen option '{f.name}' must be a {type(f.default).__name__}, got {value!r}")
            if choices and value not in choices:
                raise ValueError(f"codegen option '{f.name}' must be one of "
                                 f"{', '.join(repr(c) for c in choices)}, got {value!r}")

    def flags(self) -> list[str]:
        """The ``-f`` flags that give these options (those that differ from the defaults)."""
        out = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value == f.default:
                continue
            name = f.name.replace("_", "-")
            out.append(f"-f{name}" if value is True or value == "on" else
                       f"-fno-{name}" if value is False or value == "off" else f"-f{name}={value}")
        return out


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
        kernel_warps: warps of named kernels (``--kernel-warps NAME=N``), which then differ
            from the file's other kernels (those take ``num_warps`` or the automatic choice).
        num_stages: software-pipelining depth for loops that feed ``@``; ``None`` lets the cost
            model choose (:mod:`tritonc.tuning.cost_model`; 3 for kernels without a dot).
        arch: target GPU architecture, one of :data:`ARCHS` (default
            :data:`~tritonc.target.DEFAULT_ARCH`, ``sm_90a``: H100/H200 with wgmma; ``sm_90``
            keeps Hopper on mma.sync).
        allow_tf32: let ``@`` on float operands use TF32 tensor cores.
        use_ptxas: assemble with ``ptxas`` from PATH instead of nvJitLink.
        warnings_off: warning flags disabled with ``-Wno-<flag>``; ``werror`` for ``-Werror``.
        specialize: also compile, per kernel, a variant assuming 16-byte-aligned pointers and
            integers divisible by 16 that the launchers run when the arguments allow
            (``transforms/specialize.py``). ``None`` (default): only in what the launchers use
            (``cubin``, ``kernels``, header, Python module), IR outputs stay generic; ``True``:
            everywhere, IR and PTX included (``--specialize``); ``False``: never (``--no-specialize``).
        lineinfo: emit ``.file`` / ``.loc`` line information in the PTX (``-lineinfo``), from
            each op's source location, for profilers and compute-sanitizer.
        codegen: the code generator's switches (``-f`` flags).
        symbol_prefix: the C header's ``--symbol-prefix``: every name it defines starts with it
            (``tritonc.launcher.c_header.generate_c_header``); ``""``: the default names.
        cpp_namespace: the C header's ``--cpp-namespace``: compiled as C++, its launchers are
            declared in this namespace (``A`` or ``A::B``); ``None``: none.
        error_limit: ``-ferror-limit``: the semantic checks report at most this many errors
            before stopping (0: no limit). Not part of :func:`artifact_identity` (it changes
            no output).
    """

    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    tune: dict[str, list[int]] = field(default_factory=dict)
    kernel: str | None = None
    num_warps: int | None = None
    kernel_warps: dict[str, int] = field(default_factory=dict)
    num_stages: int | None = None
    arch: str = DEFAULT_ARCH
    allow_tf32: bool = False
    use_ptxas: bool = False
    warnings_off: frozenset[str] = frozenset()
    werror: bool = False
    specialize: bool | None = None
    hint: dict[str, int] = field(default_factory=dict)
    grid: str | None = None
    kernel_suffix: str = ""
    lineinfo: bool = False
    codegen: CodegenOptions = field(default_factory=CodegenOptions)
    symbol_prefix: str = ""
    cpp_namespace: str | None = None
    error_limit: int = DEFAULT_ERROR_LIMIT

    @property
    def target(self) -> Target:
        """The :class:`~tritonc.target.Target` of :attr:`arch`.

        Raises:
            CompileError: an architecture outside :data:`ARCHS`.
        """
        return Target(self.arch)


def parse_codegen_flags(flags: list[str] | tuple[str, ...], base: CodegenOptions | None = None) -> CodegenOptions:
    """:class:`CodegenOptions` from ``-f`` flags without the ``-f`` (``"no-wide-addresses"``,
    ``"f32-division=rn"``), applied in order over ``base`` (default: the defaults).

    Raises:
        ValueError: an unknown flag, a value for a bool flag, a missing or unknown value, or
            ``no-`` on a flag that takes a value; the message names the flag and its choices.
    """
    fields = {f.name: f for f in dataclasses.fields(CodegenOptions)}
    changes: dict[str, Any] = {}
    for text in flags:
        spelled, eq, value = text.partition("=")
        negated = spelled.startswith("no-")
        name = (spelled[3:] if negated else spelled).replace("-", "_")
        f = fields.get(name)
        if f is None:
            known = ", ".join(n.replace("_", "-") for n in fields)
            raise ValueError(f"unknown code-generation flag '-f{text}' (flags: {known})")
        choices = f.metadata["choices"]
        if isinstance(f.default, bool):
            if eq:
                raise ValueError(f"'-f{text}': -f{spelled} takes no value")
            changes[name] = not negated
        elif choices == ON_OFF_AUTO:
            if negated and eq:
                raise ValueError(f"'-f{text}': -fno-{name.replace('_', '-')} takes no value")
            changes[name] = "off" if negated else value if eq else "on"
        else:
            if negated or not eq:
                raise ValueError(f"'-f{text}': use -f{name.replace('_', '-')}=VALUE with VALUE one of "
                                 f"{', '.join(c or repr(c) for c in choices)}")
            changes[name] = value
        if changes[name] not in choices and choices:
            raise ValueError(f"'-f{text}': expected one of {', '.join(c or repr(c) for c in choices)}")
    return dataclasses.replace(base or CodegenOptions(), **changes)


def codegen_flags_help() -> str:
    """The ``-f`` flags with their defaults and help, one per line (for ``tritonc --help``)."""
    lines = []
    for f in dataclasses.fields(CodegenOptions):
        name = f.name.replace("_", "-")
        if isinstance(f.default, bool):
            spelling = f"-f{name}" if not f.default else f"-fno-{name}"
            default = "on" if f.default else "off"
        elif f.metadata["choices"] == ON_OFF_AUTO:
            spelling, default = f"-f[no-]{name}[=auto]", f.default
        else:
            spelling = f"-f{name}=VALUE"
            default = f.default or "none"
        text = f"{spelling:34} {f.metadata['doc']} (default: {default})"
        lines += textwrap.wrap(text, width=98, initial_indent="  ", subsequent_indent=" " * 37)
    return "\n".join(lines)


def artifact_identity(options: CompileOptions, target: Target | None = None) -> str:
    """A hex digest that identifies what ``options`` compile to: every :class:`CompileOptions`
    field (the macros, tunables, warps, stages, TF32, assembler, warning flags, specialisation),
    every :class:`CodegenOptions` field and the :class:`~tritonc.target.Target`'s
    :meth:`~tritonc.target.Target.identity` (default: ``options.target``). Two option sets
    with the same identity produce the same output from the same source text (the compile
    cache key adds the text of the source and of the files it includes).

    Raises:
        CompileError: ``options.arch`` is not a supported architecture (when ``target`` is None).
    """
    target = target or options.target
    record = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)
              if f.name not in ("codegen", "error_limit")}
    record["codegen"] = dataclasses.asdict(options.codegen)
    record["target"] = target.identity()
    text = json.dumps(record, sort_keys=True, default=_jsonable)
    return hashlib.sha256(text.encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot put {type(value).__name__} {value!r} in an artefact identity")
