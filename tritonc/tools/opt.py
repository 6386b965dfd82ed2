"""``tritonc-opt``: run passes over IR text, the ``RUN:`` tool of the pass tests.

::

    tritonc-opt FILE.ttir --passes=canonicalize,cse [-o OUT] [--emit=ir|llir|ptx] [--arch=ARCH]
        [--print-ir-after=NAME[,NAME...]] [--print-ir-after-all] [--time-passes] [--no-verify-each]
        [--print-analysis=NAME]

(an installed console script; also ``python -m tritonc.tools.opt``). Reads a module (``-``
for stdin), verifies it, runs the passes through a :class:`~tritonc.passes.PassManager`
(verifying after each one unless ``--no-verify-each``) and prints the result (to stdout, or
atomically to ``-o FILE``): the IR (``--emit=ir``, the default), or, for a ttg module whose
layouts and shared-memory plan are in place, its LLVM IR (``--emit=llir``) or PTX
(``--emit=ptx``) for ``--arch`` (default :data:`~tritonc.target.DEFAULT_ARCH`), with the code
generator's default switches. The lowering tests (``tests/lowering/``) run on it. IR dumps and the timing
table go to stderr. ``--list-passes`` prints the registered passes. ``--print-analysis=NAME``
(``axis-info``) prints the result with the facts of that analysis as a comment after each op
(``tritonc.analysis.PRINTABLE_ANALYSES``), for the analysis FileCheck tests.

Exit status: 0 success; 1 bad input (IR that does not parse or verify, printed as
``FILE:line:col: error: ...``); 2 bad usage (unknown pass or option); 3 internal compiler error.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TextIO

from ..diagnostics import InternalCompilerError
from ..files import write_atomically
from ..ir.ops import VerifyError
from ..ir.parser import IRParseError, parse_module
from ..ir.printer import print_module
from ..ir.verifier import verify_module
from ..passes import PassManager, all_passes, parse_pipeline
from ..target import ARCHS, DEFAULT_ARCH


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors exit 2 without a traceback
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _argument_parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog="tritonc-opt", description="Run tritonc passes over tile IR text.")
    p.add_argument("input", nargs="?", default="-", help="IR file ('-' for stdin)")
    p.add_argument("--passes", default="", help="comma-separated pipeline, e.g. canonicalize,cse or name{opt=value}")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument("--print-ir-after", action="append", default=[], metavar="NAME", help="print the IR after pass NAME")
    p.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass")
    p.add_argument("--time-passes", action="store_true", help="print the wall time of each pass")
    p.add_argument("--no-verify-each", dest="verify_each", action="store_false", help="do not verify after each pass")
    p.add_argument("--list-passes", action="store_true", help="list the registered passes and exit")
    p.add_argument("--print-analysis", metavar="NAME", help="print the result annotated with analysis NAME (axis-info)")
    p.add_argument("--emit", choices=("ir", "llir", "ptx"), default="ir",
                   help="print the IR (default), or lower the ttg module to LLVM IR or PTX")
    p.add_argument("--arch", choices=ARCHS, default=DEFAULT_ARCH, help="target of --emit=llir/ptx")
    return p


def run(argv: list[str], stdout: TextIO, stderr: TextIO, stdin: TextIO | None = None) -> int:
    """The tool's work with explicit streams (used in-process by the pass tests); returns the exit status."""
    try:
        args = _argument_parser().parse_args(argv)
        if args.list_passes:
            for name, cls in all_passes().items():
                summary = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
                stdout.write(f"{name:28} {summary}\n")
            return 0
        passes = parse_pipeline(args.passes)
        known = {p.name for p in passes}
        after = {n for item in args.print_ir_after for n in item.split(",") if n}
        if after - known:
            raise _UsageError(f"--print-ir-after names a pass not in the pipeline: {', '.join(sorted(after - known))}")
        if args.print_analysis is not None:
            from ..analysis import analysis_class

            analysis_class(args.print_analysis)  # ValueError for an unknown name
    except (_UsageError, ValueError) as e:
        stderr.write(f"tritonc-opt: error: {e}\n")
        return 2
    source = "<stdin>" if args.input == "-" else args.input
    try:
        text = (stdin or sys.stdin).read() if args.input == "-" else Path(args.input).read_text(encoding="utf-8")
        module = parse_module(text)
        verify_module(module)
    except OSError as e:
        stderr.write(f"tritonc-opt: error: cannot read '{source}': {e.strerror or e}\n")
        return 1
    except IRParseError as e:
        position = re.match(r"(\d+:\d+): (.*)", str(e), re.S)
        where, what = (f"{source}:{position[1]}", position[2]) if position else (source, str(e))
        stderr.write(f"{where}: error: {what}\n")
        return 1
    except VerifyError as e:
        stderr.write(f"{source}: error: input IR does not verify: {e}\n")
        return 1
    manager = PassManager(passes, verify_each=args.verify_each,
                          print_ir_after="all" if args.print_ir_after_all else after,
                          time_passes=args.time_passes, stream=stderr)
    try:
        manager.run(module)
    except InternalCompilerError as e:
        stderr.write(f"tritonc-opt: internal compiler error: {e}\n")
        return 3
    if args.emit != "ir":
        try:
            result = _lower(module, args.emit, args.arch)
        except InternalCompilerError as e:
            stderr.write(f"tritonc-opt: internal compiler error: {e}\n")
            return 3
    elif args.print_analysis is not None:
        from ..analysis import print_with_analysis

        try:
            result = print_with_analysis(module, args.print_analysis)
        except Exception as e:  # a crash in an analysis is a compiler bug
            stderr.write(f"tritonc-opt: internal compiler error: analysis '{args.print_analysis}' failed: "
                         f"{type(e).__name__}: {e}\n")
            return 3
    else:
        result = print_module(module)
    if args.output == "-":
        stdout.write(result)
    else:
        write_atomically(args.output, result)
    return 0


def _lower(module, emit: str, arch: str) -> str:
    """LLVM IR (``emit == "llir"``) or PTX of a lowerable ttg module for ``arch``."""
    from ..codegen.llvm import lower_module
    from ..codegen.target import llvm_to_ptx
    from ..diagnostics import recursion_headroom
    from ..target import Target

    target = Target(arch)
    with recursion_headroom():
        llvm_ir = lower_module(module, target).llvm_ir
    return llvm_ir if emit == "llir" else llvm_to_ptx(llvm_ir, target)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (``tritonc-opt``)."""
    return run(sys.argv[1:] if argv is None else argv, sys.stdout, sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
