"""Differential runs: generate programs, run them on the executors, compare, minimise failures.

:func:`check_program` runs one program and raises :class:`MismatchFound`, :class:`InternalError`
or :class:`~tritonc.fuzz.execute.Rejected`. :func:`fuzz` drives hypothesis over
:func:`tritonc.fuzz.gen.programs` in one process: it counts programs until the first failure,
lets hypothesis shrink that failure to a minimal program, records it, and goes on with a fresh
seed until ``count`` programs ran. :func:`main` (``tritonc-fuzz``, ``python -m tritonc.fuzz``)
spreads the work over processes and prints the summary whose last line is
``fuzz: N programs, M mismatches, K internal errors``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, given, seed as hseed, settings

from .compare import compare
from .execute import (InternalError, Rejected, compile_program, load_launcher, run_gpu, run_interpreter_optimised,
                      run_reference, run_simulator)
from .gen import ARCHS, programs
from .program import Program

TARGETS = ("sim", "gpu")
GPU_ARCHS = ("sm_90", "sm_90a")


class MismatchFound(AssertionError):
    """An executor's outputs differ from the reference's."""


def _copy(args: list) -> list:
    return [a.copy() if hasattr(a, "copy") and hasattr(a, "shape") else a for a in args]


def check_program(program: Program, target: str = "sim", torch=None) -> str | None:
    """Run ``program`` on the reference and on ``target``'s executors and compare; returns
    the function the simulator ran (the kernel or a specialised variant; ``None`` on the GPU).

    ``target="sim"``: the interpreter on the optimised tile IR and the SIMT simulator;
    ``target="gpu"``: the GPU through the generated Python module (``torch`` given).

    Raises:
        MismatchFound: an executor disagrees with the reference (message: which, where).
        InternalError: the compiler or an executor raised something other than a diagnostic.
        Rejected: the compiler rejected the program with a diagnostic (a generator bug).
    """
    comp = compile_program(program)
    args = program.arguments()
    want = run_reference(program, _copy(args))
    runs = []
    name = None
    try:
        if target == "sim":
            runs.append(("interpreter (optimised tt IR)", run_interpreter_optimised(program, comp, _copy(args))))
            got = _copy(args)
            name = run_simulator(program, comp, got)
            runs.append((f"simulator ({program.options['arch']}, {name})", got))
        else:
            launcher = load_launcher(comp)
            runs.append((f"GPU ({program.options['arch']})", run_gpu(program, launcher, _copy(args), torch)))
    except (Rejected, MismatchFound):
        raise
    except AssertionError as e:  # the simulator's race detection reports a race this way
        raise MismatchFound(f"{type(e).__name__}: {e}") from e
    except Exception as e:  # noqa: BLE001 - a crash of the compiler's later stages or of an executor
        raise InternalError(f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-4)}") from e
    for who, got in runs:
        bad = compare(program, got, want)
        if bad:
            raise MismatchFound(f"{who} differs from the interpreter:\n  " + "\n  ".join(str(m) for m in bad))
    return name


@dataclass
class Failure:
    kind: str          # "mismatch", "internal error", "rejected"
    message: str
    program: Program

    def report(self) -> str:
        return (f"---- {self.kind} ----\n{self.message}\n"
                f"options: {self.program.options}, grid {self.program.grid}, seed {self.program.seed}\n"
                f"# regression case (tests/fuzz/regressions.py):\n{self.program.regression_case()}\n")


@dataclass
class Stats:
    programs: int = 0
    failures: list = field(default_factory=list)
    seconds: float = 0.0
    #: programs that passed, by the kind of function the simulator ran (:func:`variant_kind`)
    launched: Counter = field(default_factory=Counter)

    def count(self, kind: str) -> int:
        return sum(1 for f in self.failures if f.kind == kind)


_KIND = {MismatchFound: "mismatch", InternalError: "internal error", Rejected: "rejected"}


def variant_kind(kernel: str, name: str) -> str:
    """``generic`` for ``kernel`` itself, else the variant's suffix (``__spec_s1_d16``)."""
    return "generic" if name == kernel else name[len(kernel):]


def fuzz(count: int, seed: int, target: str = "sim", shrink: bool = True, progress=None) -> Stats:
    """Run ``count`` generated programs from ``seed`` (deterministic for a given seed); each
    failure is shrunk (unless ``shrink`` is false) and recorded. ``progress(n, failure=None,
    shrinking=False)``, when given, is called with ``n = 1`` for each program run, with the
    :class:`Failure` when one is recorded, and before that with ``shrinking=True`` when a
    failure is first found and is about to be shrunk (which can take long on the GPU)."""
    torch = None
    if target == "gpu":
        import torch  # noqa: F811 - the GPU executor passes tensors to the launcher
    archs = GPU_ARCHS if target == "gpu" else ARCHS
    stats = Stats()
    start = time.time()
    chunk_seed = seed
    while stats.programs < count:
        state = {"ran": 0, "failed": False, "last": None}
        todo = count - stats.programs

        phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else [])

        @hseed(chunk_seed)
        @settings(max_examples=todo, database=None, deadline=None, derandomize=False, phases=phases,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False)
        @given(programs(archs=archs))
        def run(program):
            if not state["failed"]:
                state["ran"] += 1
                if progress:
                    progress(1)
            try:
                name = check_program(program, target, torch)
                if name is not None and not state["failed"]:
                    stats.launched[variant_kind(program.kernel, name)] += 1
            except (MismatchFound, InternalError, Rejected) as e:
                if progress and shrink and not state["failed"]:
                    progress(0, Failure(_KIND[type(e)], str(e), program), shrinking=True)
                state["failed"] = True
                state["last"] = (type(e), str(e), program)
                raise
            except Exception as e:  # noqa: BLE001 - the reference itself failed
                state["failed"] = True
                err = InternalError(f"reference interpreter: {type(e).__name__}: {e}")
                state["last"] = (InternalError, str(err), program)
                raise err from e

        try:
            run()
        except Exception:
            if state["last"] is None:  # hypothesis itself failed (not a program's failure)
                raise
            kind_type, message, program = state["last"]
            stats.failures.append(Failure(_KIND[kind_type], message, program))
            if progress:
                progress(0, stats.failures[-1])
        stats.programs += max(state["ran"], 1) if state["failed"] else state["ran"]
        if not state["failed"] and state["ran"] < todo:
            chunk_seed += 1_000_003  # hypothesis stopped early (duplicates): go on with another seed
            if state["ran"] == 0:
                break
        chunk_seed += 1
    stats.seconds = time.time() - start
    return stats


def _worker(job):
    count, seed, target, shrink, worker = job
    done = [0, 0]

    def progress(n, failure=None, shrinking=False):
        done[0] += n
        if shrinking:  # found now; reported again, minimised, when the shrinking ends
            print(f"  [{worker}] {failure.kind} found, shrinking it (--no-shrink skips this): "
                  f"{failure.message.splitlines()[0][:160]}", file=sys.stderr, flush=True)
        elif failure is not None:
            done[1] += 1
            print(f"  [{worker}] {failure.kind}: {failure.message.splitlines()[0][:160]}", file=sys.stderr, flush=True)
        elif done[0] % 100 == 0:
            print(f"  [{worker}] {done[0]}/{count} programs, {done[1]} failures", file=sys.stderr, flush=True)
    return fuzz(count, seed, target, shrink, progress)


def summary_line(n: int, mismatches: int, internal: int) -> str:
    return f"fuzz: {n} programs, {mismatches} mismatches, {internal} internal errors"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tritonc-fuzz", description="Differential testing of tritonc with "
                                 "generated Triton-C programs (docs/testing.md, 'Differential testing').")
    ap.add_argument("-n", "--count", type=int, default=100, help="programs to run (default 100)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    ap.add_argument("--seed", type=int, default=None, help="first seed (default: fresh from the clock)")
    ap.add_argument("--target", choices=TARGETS, default="sim",
                    help="sim: interpreter vs SIMT simulator; gpu: interpreter vs GPU (sm_90, sm_90a)")
    ap.add_argument("--no-shrink", action="store_true", help="report failures without minimising them")
    args = ap.parse_args(argv)
    base = args.seed if args.seed is not None else int(time.time() * 1000) % (2 ** 31)
    jobs = max(1, min(args.jobs, args.count))
    per = [args.count // jobs + (1 if k < args.count % jobs else 0) for k in range(jobs)]
    print(f"tritonc-fuzz: {args.count} programs, target {args.target}, {jobs} processes, seeds from {base}",
          flush=True)
    start = time.time()
    work = [(c, base + 7919 * k, args.target, not args.no_shrink, k) for k, c in enumerate(per) if c]
    if jobs == 1:
        results = [_worker(w) for w in work]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_worker, work))
    total = Stats()
    for r in results:
        total.programs += r.programs
        total.failures += r.failures
        total.launched += r.launched
    for f in total.failures:
        print(f.report(), flush=True)
    rejected = total.count("rejected")
    if rejected:
        print(f"fuzz: {rejected} generated programs were rejected by the compiler (generator bugs, above)")
    if total.launched:
        print("fuzz: the simulator ran " + ", ".join(f"{k} {n}" for k, n in sorted(total.launched.items())))
    print(f"fuzz: {time.time() - start:.0f} s")
    print(summary_line(total.programs, total.count("mismatch"), total.count("internal error")), flush=True)
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
