"""The executors of the differential runs: each runs a :class:`~tritonc.fuzz.program.Program` on
fresh arguments and returns them (the arrays updated in place).

* :func:`run_reference`: the numpy interpreter on the frontend's tile IR (before any pass): the
  reference;
* :func:`run_interpreter_optimised`: the interpreter on the optimised tile IR (``ttir``), which
  catches a wrong tt-level pass without a code generator in the loop;
* :func:`run_simulator`: the SIMT simulator (:mod:`tritonc.simt`) on the lowered ttg IR, for
  ``sm_80``, ``sm_90`` and ``sm_90a`` code, running the first specialised variant
  (``__spec_s1_d16``, ``__spec_s1``, ``__spec16``) whose facts the arguments meet, as a
  launcher would;
* :func:`run_gpu`: the GPU, through the generated Python module (needs torch and a GPU).

:func:`compile_program` turns the compiler's exceptions into :class:`Rejected` (a diagnostic:
the generator made a program the language does not accept) or :class:`InternalError`
(anything else: a compiler bug).
"""
from __future__ import annotations

import importlib.util
import itertools

import numpy as np

from ..diagnostics import CompileError, DiagnosticSink, SourceManager
from ..driver import Compilation
from ..frontend_stage import frontend
from ..interpreter import run_function
from ..launcher.build import variant_facts
from ..launcher.facts import fact as fact_named
from .program import Program


class Rejected(Exception):
    """The compiler rejected a generated program with a diagnostic (a generator bug)."""


class InternalError(Exception):
    """The compiler (or an executor) failed with an exception that is not a diagnostic."""


def compile_program(program: Program, arch: str | None = None) -> Compilation:
    """A :class:`Compilation` of ``program`` whose ``ttir`` and ``ttgir`` are already built.

    Raises:
        Rejected: a :class:`~tritonc.diagnostics.CompileError` (bad input).
        InternalError: any other exception while compiling.
    """
    # one LLVM worker: the runner already spreads programs over one process per core
    comp = Compilation(program.source, program.compile_options(arch), jobs=1)
    try:
        comp.ttir
        comp.ttgir
    except CompileError as e:
        raise Rejected(str(e.diagnostic.message if hasattr(e, "diagnostic") else e)) from e
    except Exception as e:  # noqa: BLE001 - every other exception is a compiler bug
        raise InternalError(f"{type(e).__name__}: {e}") from e
    return comp


def run_reference(program: Program, args: list) -> list:
    """Run ``program`` in the interpreter on the frontend's IR; ``args`` updated in place."""
    opts = program.compile_options()
    sources = SourceManager()
    sources.register("<fuzz>", program.source)
    try:
        module = frontend(program.source, "<fuzz>", opts, sources, DiagnosticSink(frozenset(), False))
    except CompileError as e:
        raise Rejected(e.diagnostic.message) from e
    run_function(module, program.kernel, program.grid, args)
    return args


def run_interpreter_optimised(program: Program, comp: Compilation, args: list) -> list:
    """Run the kernel of ``comp.ttir`` (after the tt passes) in the interpreter."""
    run_function(comp.ttir, program.kernel, program.grid, args)
    return args


#: The alignment in bytes of the simulator's buffers (the address a launch's facts see).
SIMULATOR_ALIGNMENT = 256


def launched_kernel(module, kernel: str, args: list) -> str:
    """The function a launcher runs for ``args``: the first specialised variant of ``kernel``
    (in module order, most specialised first) whose every fact holds, as the launchers test
    them (:func:`tritonc.launcher.build.variant_facts`, :func:`tritonc.launcher.facts.fact`;
    an array's address is a multiple of :data:`SIMULATOR_ALIGNMENT`), else ``kernel`` itself."""
    base = next(f for f in module.functions if f.name == kernel)
    for f in module.functions:
        if f.attrs.get("variant_of") != kernel:
            continue
        values = [SIMULATOR_ALIGNMENT if isinstance(a, np.ndarray) else int(a) for a in args]
        if all(fact_named(fact).holds(values[i]) for i, fact in variant_facts(base, f)):
            return f.name
    return kernel


def run_simulator(program: Program, comp: Compilation, args: list) -> str:
    """Run ``comp.ttgir`` in the SIMT simulator (the kernel a launcher would pick); returns the
    name of the function that ran."""
    from ..simt import run_kernel

    name = launched_kernel(comp.ttgir, program.kernel, args)
    run_kernel(comp.ttgir, name, program.grid, args, arch=comp.options.arch)
    return name


_count = itertools.count()


def load_launcher(comp: Compilation):
    """The generated Python module of ``comp``, executed as a fresh module."""
    name = f"tritonc_fuzz_launcher_{next(_count)}"
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
    exec(compile(comp.python_module, name, "exec"), module.__dict__)
    return module


def _torch_views():
    import ml_dtypes

    return {np.dtype(np.uint16): ("uint16", np.int16), np.dtype(np.uint32): ("uint32", np.int32),
            np.dtype(np.uint64): ("uint64", np.int64), np.dtype(ml_dtypes.bfloat16): ("bfloat16", np.int16)}


def run_gpu(program: Program, launcher, args: list, torch) -> list:
    """Launch ``program`` through its generated Python module ``launcher`` on the GPU with
    torch tensors holding ``args``; copies the results back into ``args``."""
    views = _torch_views()
    dev = []
    for a in args:
        if isinstance(a, np.ndarray):
            dt = np.dtype(a.dtype)
            if dt in views:
                tname, carrier = views[dt]
                dev.append(torch.from_numpy(np.ascontiguousarray(a).view(carrier)).cuda().view(getattr(torch, tname)))
            else:
                dev.append(torch.from_numpy(np.ascontiguousarray(a)).cuda())
        else:
            dev.append(a.item() if isinstance(a, np.generic) else a)
    getattr(launcher, program.kernel)(*dev, grid=program.grid)
    torch.cuda.synchronize()
    for a, d in zip(args, dev):
        if isinstance(a, np.ndarray):
            dt = np.dtype(a.dtype)
            if dt in views:
                signed = {2: torch.int16, 4: torch.int32, 8: torch.int64}[dt.itemsize]
                a[...] = d.view(signed).cpu().numpy().view(dt).reshape(a.shape)
            else:
                a[...] = d.cpu().numpy().reshape(a.shape)
    return args
