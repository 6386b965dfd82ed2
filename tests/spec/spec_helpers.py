"""Spec conformance tests: one rule of the language (docs/language.md), checked at four levels.

A :class:`Rule` is a small Triton-C program plus what each level must see:

* **frontend** -- preprocess, parse and sema accept it (with the expected warnings, and the
  declared variables have the expected C types: ``types={"x": "float[16]"}``);
* **ir** -- the printed tile IR straight out of irgen (before any pass) satisfies FileCheck
  directives (``ir="CHECK: tt.load ..."``, run in-process with the ``filecheck`` package);
* **interp** -- the numpy interpreter runs the kernel on numpy arrays, from both the frontend
  IR and the optimised ``ttir`` that the GPU gets, and the outputs match a numpy computation
  (``expect(inputs) -> {arg index: expected array}`` and/or ``check(outputs, inputs)``);
* **codegen** -- ``Compilation(src, CompileOptions(arch=...)).ptx`` has an ``.entry`` per
  kernel and ``.cubin`` is an ELF file (nvJitLink, i.e. ptxas, accepts the PTX); once for
  ``sm_80`` and once for ``sm_90``.

A test module lists its rules and lets :func:`level_params` expand them::

    RULES = [Rule("range", SRC, args=..., expect=..., ir="CHECK: tt.make_range")]

    @pytest.mark.parametrize("rule", level_params(RULES, "frontend"))
    def test_frontend(rule): check_frontend(rule)
    ...

or simply ``test_frontend, test_ir, test_interp, test_codegen = spec_tests(RULES)``.
A level that does not work yet is marked ``xfail(strict=True)`` with ``xfail={"interp": "why"}``
(``"codegen"`` covers both architectures, ``"codegen-sm_80"`` one of them).

Rejected programs are :class:`Reject` cases (exact message, line and column; frontend only).

Compilations are cached per (source, options, arch), so a kernel is compiled once per
process; the GPU test (``tests/gpu/test_spec_gpu.py``) reuses the rules (:meth:`Rule.on_gpu`).
"""
from __future__ import annotations

import contextlib
import io
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest

from tritonc.diagnostics import CompileError, DiagnosticSink, SourceManager
from tritonc.driver import Compilation
from tritonc.frontend_stage import frontend
from tritonc.frontend import ast
from tritonc.frontend.parser import parse
from tritonc.frontend.sema import analyze
from tritonc.interpreter import run_function
from tritonc.ir.printer import print_module
from tritonc.options import CompileOptions

ARCHS = ("sm_80", "sm_90")
LEVELS = ("frontend", "ir", "interp", "codegen")
BF16 = ml_dtypes.bfloat16


# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------

@dataclass
class Rule:
    """One spec rule as a kernel and its checks (see the module docstring).

    Attributes:
        id: the pytest id (short, unique in its module).
        src: Triton-C source.
        kernel: kernel to run/launch (``None``: the only kernel of the file).
        grid: launch grid.
        args: makes fresh arguments (numpy arrays for pointers, scalars) -- called per run.
        expect: ``inputs -> {arg index: expected}``; compared exactly unless ``rtol``/``atol``.
        check: ``(outputs, inputs) -> None`` with asserts of its own (for anything else).
        ir: FileCheck directives on the frontend IR.
        ttir: FileCheck directives on the optimised tt IR.
        ptx: FileCheck directives on the PTX (each arch; ``{arch}`` is replaced by it).
        types: declared name -> C type spelling (``'float[16, 8]'``, ``'unsigned int'``).
        init_types: declared name -> C type of its initialiser expression, as sema typed it
            before converting it to the declared type (``half h; float x = h + 1.0f`` -> ``float``).
        warnings: substrings, one per expected warning (in order); ``None`` = not checked,
            ``[]`` = no warning at all.
        defines / tunables / options: ``-D`` macros, ``--tune`` values, other CompileOptions.
        seeds: interpreter ``order_seed`` values to run with (``None`` = row-major order).
        gpu: part of the GPU run (``tests/gpu/test_spec_gpu.py``); ``None`` (the default) means
            every rule that runs and passes no null pointer (see :meth:`on_gpu`).
        gpu_outputs: arg indices the GPU run compares with the interpreter (default: every array).
        xfail: level (or ``codegen-<arch>``) -> reason, for levels that do not work yet.
    """

    id: str
    src: str
    kernel: str | None = None
    grid: Any = 1
    args: Callable[[], list] | None = None
    expect: Callable[[list], dict[int, Any]] | None = None
    check: Callable[[list, list], None] | None = None
    ir: str | None = None
    ttir: str | None = None
    ptx: str | None = None
    types: dict[str, str] | None = None
    init_types: dict[str, str] | None = None
    warnings: list[str] | None = None
    defines: dict[str, str] | None = None
    tunables: dict[str, int] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    seeds: tuple = (None,)
    rtol: float = 0.0
    atol: float = 0.0
    gpu: bool | None = None
    gpu_outputs: tuple[int, ...] | None = None
    gpu_rtol: float | None = None
    gpu_atol: float | None = None
    xfail: dict[str, str] = field(default_factory=dict)

    def runs(self) -> bool:
        return self.args is not None and (self.expect is not None or self.check is not None)

    def on_gpu(self) -> bool:
        """Whether the GPU test runs this rule (``gpu``, or by default every rule that runs
        without null pointer arguments)."""
        if self.gpu is not None:
            return self.gpu and self.runs()
        return self.runs() and all(a is not None for a in self.args())

    def compile_options(self, arch: str = "sm_90") -> CompileOptions:
        defines = {k: (None if v is None else str(v)) for k, v in (self.defines or {}).items()}
        tune = {k: [int(v)] for k, v in (self.tunables or {}).items()}
        return CompileOptions(defines=defines, tune=tune, arch=arch, **self.options)

    def kernel_name(self, module) -> str:
        if self.kernel is not None:
            return self.kernel
        kernels = [f.name for f in module.functions if f.kind == "kernel"]
        assert len(kernels) == 1, f"rule {self.id}: name the kernel to run among {kernels}"
        return kernels[0]


@dataclass
class Reject:
    """A program the spec rejects: the exact message and the 1-based line and column."""

    id: str
    src: str
    message: str
    line: int
    col: int
    defines: dict[str, str] | None = None
    xfail: str | None = None


# ---------------------------------------------------------------------------------------------
# Parametrisation
# ---------------------------------------------------------------------------------------------

def level_params(rules: list[Rule], level: str) -> list:
    """``pytest.param`` per rule for ``level`` (per rule and arch for ``codegen``), with xfails."""
    out = []
    _check_unique(rules)
    for r in rules:
        if level == "interp" and not r.runs():
            continue
        variants = [(a, f"{r.id}-{a}") for a in ARCHS] if level == "codegen" else [(None, r.id)]
        for arch, pid in variants:
            reason = r.xfail.get(level) or (arch and r.xfail.get(f"codegen-{arch}"))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            values = (r, arch) if level == "codegen" else (r,)
            out.append(pytest.param(*values, id=pid, marks=marks))
    return out


def _check_unique(rules) -> None:
    seen = set()
    for r in rules:
        assert r.id not in seen, f"duplicate rule id {r.id!r}"
        seen.add(r.id)


def reject_params(cases: list[Reject]) -> list:
    _check_unique(cases)
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else [])
            for c in cases]


def spec_tests(rules: list[Rule], rejects: list[Reject] = ()):
    """The four level tests (and a rejection test) of a rule list, ready to assign to module names."""

    @pytest.mark.parametrize("rule", level_params(rules, "frontend"))
    def test_frontend(rule):
        check_frontend(rule)

    @pytest.mark.parametrize("rule", level_params(rules, "ir"))
    def test_ir(rule):
        check_ir(rule)

    @pytest.mark.parametrize("rule", level_params(rules, "interp"))
    def test_interp(rule):
        check_interp(rule)

    @pytest.mark.parametrize("rule, arch", level_params(rules, "codegen"))
    def test_codegen(rule, arch):
        check_codegen(rule, arch)

    @pytest.mark.parametrize("case", reject_params(list(rejects)))
    def test_rejected(case):
        check_reject(case)

    return test_frontend, test_ir, test_interp, test_codegen, (test_rejected if rejects else None)


# ---------------------------------------------------------------------------------------------
# Compilation (cached)
# ---------------------------------------------------------------------------------------------

def _key(d: dict | None) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in (d or {}).items()))


_COMPILATIONS: dict[tuple, Compilation] = {}


def compilation(rule: Rule, arch: str = "sm_90") -> Compilation:
    """The :class:`Compilation` of ``rule`` for ``arch``, made once per process."""
    key = (rule.src, _key(rule.defines), _key(rule.tunables), _key(rule.options), arch)
    if key not in _COMPILATIONS:
        comp = Compilation(rule.src, rule.compile_options(arch))
        other = next((c for k, c in _COMPILATIONS.items() if k[:-1] == key[:-1] and "ttir" in c.__dict__), None)
        if other is not None:
            comp.__dict__["ttir"] = other.ttir   # the tt level does not depend on the arch
        _COMPILATIONS[key] = comp
    return _COMPILATIONS[key]


_FRONTEND: dict[tuple, tuple] = {}


def frontend_module(rule: Rule):
    """The tile IR module straight out of irgen (no passes), with the warnings collected (cached)."""
    key = (rule.src, _key(rule.defines), _key(rule.tunables), _key(rule.options))
    if key not in _FRONTEND:
        diag = DiagnosticSink()
        module = frontend(rule.src, "<source>", rule.compile_options(), SourceManager(), diag)
        _FRONTEND[key] = (module, diag)
    return _FRONTEND[key]


# ---------------------------------------------------------------------------------------------
# The four levels
# ---------------------------------------------------------------------------------------------

def check_frontend(rule: Rule) -> None:
    """Parse and sema accept the program; warnings and declared types are as expected."""
    opts = rule.compile_options()
    diag = DiagnosticSink()
    tu = parse(rule.src, "<source>", defines=opts.defines, include_dirs=opts.include_dirs, sink=diag,
               kernel=opts.kernel)
    tunables = {k: v[0] for k, v in opts.tune.items()}
    declared = {d.name for d in tu.tunables}
    macros = {k: str(v) for k, v in tunables.items() if k not in declared and k not in opts.defines}
    if macros:  # --tune NAME=... for a name that is not a 'const tunable' is a macro (as the driver does)
        diag = DiagnosticSink()
        tu = parse(rule.src, "<source>", defines={**opts.defines, **macros}, include_dirs=opts.include_dirs, sink=diag,
                   kernel=opts.kernel)
    result = analyze(tu, tunables=tunables, diag=diag)
    if rule.warnings is not None:
        # Warnings found on the tile IR (-Wreadonly-store) come from irgen: take the whole
        # frontend's where irgen works.
        got = [w.message for w in (diag if "ir" in rule.xfail else frontend_module(rule)[1]).warnings]
        assert len(got) == len(rule.warnings), f"warnings {got}, expected {rule.warnings}"
        for g, want in zip(got, rule.warnings):
            assert want in g, f"warning {g!r} does not contain {want!r}"
    for name, spelled in (rule.types or {}).items():
        found = [str(s.type) for s in result.decls.values() if s.name == name]
        assert found, f"no declaration of '{name}'"
        assert spelled in found, f"'{name}' has type {found}, expected '{spelled}'"
    if rule.init_types:
        inits: dict[str, list[str]] = {}
        for node in tu.walk():
            if isinstance(node, ast.Declarator) and node.init is not None:
                inits.setdefault(node.name, []).append(str(result.info(node.init).type))
        for name, spelled in rule.init_types.items():
            assert name in inits, f"no initialised declaration of '{name}'"
            assert spelled in inits[name], f"the initialiser of '{name}' has type {inits[name]}, expected '{spelled}'"


def check_ir(rule: Rule) -> None:
    """FileCheck the frontend IR (and the optimised IR when ``rule.ttir`` is given)."""
    module, _ = frontend_module(rule)
    text = print_module(module)
    if rule.ir:
        filecheck(text, rule.ir)
    else:
        assert "tt.func" in text
    if rule.ttir:
        filecheck(print_module(compilation(rule).ttir), rule.ttir)


def run_interpreter(rule: Rule, module, seed=None) -> tuple[list, list]:
    """``(outputs, inputs)``: fresh arguments, a copy of them, and the arguments after the run."""
    args = rule.args()
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_function(module, rule.kernel_name(module), rule.grid, args, order_seed=seed)
    return args, inputs


def check_interp(rule: Rule) -> None:
    """Run the frontend IR and the optimised tt IR; both must match the numpy reference."""
    fe_module, _ = frontend_module(rule)
    for what, module in (("frontend IR", fe_module), ("optimised ttir", compilation(rule).ttir)):
        for seed in rule.seeds:
            outs, ins = run_interpreter(rule, module, seed)
            where = f"{what}, order_seed={seed}"
            if rule.expect is not None:
                for index, want in rule.expect(ins).items():
                    assert_close(outs[index], want, rule.rtol, rule.atol, f"argument {index} ({where})")
            if rule.check is not None:
                rule.check(outs, ins)


def check_codegen(rule: Rule, arch: str) -> None:
    """PTX for ``arch`` with one entry per kernel, and a cubin from it."""
    comp = compilation(rule, arch)
    ptx = comp.ptx
    assert f".target {arch}" in ptx
    kernels = [f.name for f in comp.ttir.functions if f.kind == "kernel"]
    assert kernels
    for k in kernels:
        assert f".entry {k}(" in ptx, f"no .entry for kernel {k}"
    if rule.ptx:
        filecheck(ptx, rule.ptx.replace("{arch}", arch))
    cubin = comp.cubin
    assert cubin[:4] == b"\x7fELF"


def check_reject(case: Reject) -> None:
    """The program fails to compile with exactly this message at this line and column."""
    err = compile_error(case.src, case.defines)
    assert (err.message, err.loc.line, err.loc.col) == (case.message, case.line, case.col), (
        f"got {err.loc.line}:{err.loc.col}: {err.message}")


def compile_error(src: str, defines: dict | None = None) -> CompileError:
    opts = CompileOptions(defines={k: (None if v is None else str(v)) for k, v in (defines or {}).items()})
    with pytest.raises(CompileError) as info:
        frontend(src, "t.tri", opts, SourceManager(), DiagnosticSink())
    assert info.value.loc is not None and info.value.loc.file == "t.tri", info.value
    return info.value


def check_rule(src: str, kernel: str | None = None, grid=1, args=None, expect=None, *, ir: str | None = None,
               check=None, **kw) -> Rule:
    """All four levels of one rule in one call (for ad-hoc tests); returns the rule."""
    rule = Rule("adhoc", src, kernel, grid, args, expect, check, ir, **kw)
    check_frontend(rule)
    check_ir(rule)
    if rule.runs():
        check_interp(rule)
    for arch in ARCHS:
        check_codegen(rule, arch)
    return rule


# ---------------------------------------------------------------------------------------------
# Comparisons and FileCheck
# ---------------------------------------------------------------------------------------------

def assert_close(got, want, rtol: float = 0.0, atol: float = 0.0, what: str = "") -> None:
    """Exact comparison by default (bit-exact for integers, NaN == NaN for floats)."""
    got = np.asarray(got)
    if not isinstance(want, np.ndarray) and got.dtype.kind in "iub":
        want = np.asarray(want, dtype=object)   # Python ints stay exact (2**63 + 5 is no float)
        want = np.array([int(w) for w in want.reshape(-1)], dtype=got.dtype).reshape(want.shape)
    want = np.asarray(want)
    if want.dtype != got.dtype and want.dtype.kind != "O":
        want = want.astype(got.dtype)
    if got.dtype.kind in "fc" or got.dtype == BF16:
        g, w = got.astype(np.float64), want.astype(np.float64)
        if rtol == 0 and atol == 0:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def filecheck(text: str, checks: str) -> None:
    """Run FileCheck (the ``filecheck`` package, in-process) on ``text``."""
    from filecheck.matcher import Matcher
    from filecheck.options import Options

    with tempfile.TemporaryDirectory() as d:
        cpath, ipath = os.path.join(d, "checks"), os.path.join(d, "input.ttir")
        with open(cpath, "w") as f:
            f.write(checks)
        with open(ipath, "w") as f:
            f.write(text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
            status = Matcher.from_opts(Options(match_filename=cpath, input_file=ipath)).run()
    if status != 0:
        pytest.fail(f"FileCheck failed:\n{err.getvalue()}\n--- IR ---\n{text}", pytrace=False)


# ---------------------------------------------------------------------------------------------
# Argument makers
# ---------------------------------------------------------------------------------------------

_RNGS: dict[str, np.random.Generator] = {}


def _rng() -> np.random.Generator:
    """A generator per calling test file, seeded from its name: the inputs a module draws do not
    depend on which other modules the same (xdist) process imported first."""
    import sys
    import zlib

    name = os.path.basename(sys._getframe(2).f_globals.get("__file__", "?"))
    if name not in _RNGS:
        _RNGS[name] = np.random.default_rng(zlib.crc32(name.encode()))
    return _RNGS[name]


def randn(*shape, dtype=np.float32) -> np.ndarray:
    return _rng().standard_normal(shape).astype(dtype)


def randint(lo, hi, *shape, dtype=np.int32) -> np.ndarray:
    return _rng().integers(lo, hi, shape).astype(dtype)


def zeros(*shape, dtype=np.float32) -> np.ndarray:
    return np.zeros(shape, dtype)


def fixed(*arrays_or_scalars) -> Callable[[], list]:
    """An ``args`` maker returning copies of the given values (random inputs drawn once)."""
    values = list(arrays_or_scalars)
    return lambda: [v.copy() if isinstance(v, np.ndarray) else v for v in values]
