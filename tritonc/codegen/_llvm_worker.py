"""LLVM IR -> PTX with llvmlite's NVPTX back end; importable, and runnable as a worker process.

This file is deliberately self-contained (it imports nothing from ``tritonc``) so that
``tritonc.codegen.target`` can run it as a separate process with ``python -P -S <this file>``:
LLVM calls ``abort()`` on the *whole process* when instruction selection meets an intrinsic
the chosen ``cpu``/PTX version cannot do (``LLVM ERROR: Cannot select: intrinsic ...``;
failure mode 2 of ``tritonc/codegen/target.py``). Run in a worker, such an abort kills only the worker,
and the parent turns LLVM's stderr into an ``InternalCompilerError``.

The recipe: ``initialize_all_targets()`` + ``initialize_all_asmprinters()``
once, ``--nvptx-short-ptr`` set before any target machine is created, a target machine
``cpu=sm_XX features=+ptxNN``, ``parse_assembly`` + ``verify``, the new pass manager's
``default<O{level}>`` module pipeline, ``emit_assembly``.

Worker protocol (one request at a time, over the worker's stdin/stdout): each message is an
8-byte big-endian length followed by that many bytes of UTF-8 JSON.
Request: ``{"ir": str, "cpu": str, "features": str, "opt_level": int, "datalayout": str,
"triple": str}``. Reply: ``{"ptx": str, "timings": {stage: seconds}}`` or
``{"error": {"stage": "parse"|"verify"|"opt"|"emit"|"internal", "message": str}}``.
The worker exits when its stdin closes.
"""
from __future__ import annotations

import json
import os
import struct
import sys
import time

#: The worker's niceness (``os.nice``), added to the parent's: 0.04 s off a 0.78 s cold compile
#: of ``examples/matmul.tri`` on a 2-core machine (``benchmarks/RESULTS.md``, session 15).
NICE = 10

_initialized = False
_target_machines: dict = {}


class LLVMStageError(Exception):
    """LLVM rejected the module at ``stage`` (parse, verify, opt or emit) with ``message``."""

    def __init__(self, stage: str, message: str):
        super().__init__(f"{stage}: {message}")
        self.stage = stage
        self.message = message


def _llvm():
    """Import llvmlite.binding and initialise the NVPTX back end once per process."""
    global _initialized
    import llvmlite.binding as llvm

    if not _initialized:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        # 32-bit shared/const/local pointers; must precede the first target machine.
        llvm.set_option("", "--nvptx-short-ptr")
        _initialized = True
    return llvm


def _target_machine(llvm, triple: str, cpu: str, features: str, opt_level: int):
    key = (triple, cpu, features, opt_level)
    tm = _target_machines.get(key)
    if tm is None:
        target = llvm.Target.from_triple(triple)
        tm = target.create_target_machine(cpu=cpu, features=features, opt=opt_level)
        _target_machines[key] = tm
    return tm


def target_datalayout(triple: str, cpu: str, features: str) -> str:
    """The datalayout string LLVM uses for this target (with ``--nvptx-short-ptr``)."""
    llvm = _llvm()
    return str(_target_machine(llvm, triple, cpu, features, 3).target_data)


def compile_llvm(ir: str, cpu: str, features: str, opt_level: int, datalayout: str,
                 triple: str) -> tuple[str, dict[str, float]]:
    """Parse, verify, optimise and emit ``ir`` as PTX text.

    The module's triple and datalayout are set to ``triple``/``datalayout`` (the caller has
    already checked that the module does not ask for different ones).

    Returns:
        ``(ptx, timings)`` where ``timings`` maps ``parse``, ``verify``, ``opt``, ``emit`` to
        seconds.
    Raises:
        LLVMStageError: LLVM rejected the module (bad IR is a tritonc bug, reported by the
        caller as an internal compiler error).
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    llvm = _llvm()
    tm = _target_machine(llvm, triple, cpu, features, opt_level)
    timings["init"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    try:
        mod = llvm.parse_assembly(ir)
    except RuntimeError as e:
        raise LLVMStageError("parse", str(e).strip()) from None
    mod.triple = triple
    mod.data_layout = datalayout
    timings["parse"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    try:
        mod.verify()
    except RuntimeError as e:
        raise LLVMStageError("verify", str(e).strip()) from None
    timings["verify"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    if opt_level > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
    timings["opt"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    try:
        ptx = tm.emit_assembly(mod)
    except RuntimeError as e:
        raise LLVMStageError("emit", str(e).strip()) from None
    timings["emit"] = time.perf_counter() - t0
    return ptx, timings


def read_message(stream) -> dict | None:
    """Read one length-prefixed JSON message; ``None`` at end of stream."""
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack(">Q", header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return json.loads(body.decode("utf-8"))


def write_message(stream, message: dict) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(struct.pack(">Q", len(body)) + body)
    stream.flush()


def serve() -> None:
    """Answer requests from stdin until it closes."""
    # The protocol owns the original stdout; anything else written to fd 1 (by LLVM, say)
    # goes to stderr so it cannot corrupt a message.
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    proto_in = sys.stdin.buffer
    # Below the parent's priority: started early, a worker loads LLVM on a core the front end
    # does not use rather than sharing the front end's (on 2 cores, the parent and two workers
    # starting); once the parent waits for it, it has the cores to itself.
    os.nice(NICE)
    _llvm()  # initialise while the parent is still busy with the front end
    while True:
        request = read_message(proto_in)
        if request is None:
            return
        try:
            ptx, timings = compile_llvm(request["ir"], request["cpu"], request["features"],
                                        request["opt_level"], request["datalayout"],
                                        request["triple"])
            reply = {"ptx": ptx, "timings": timings}
        except LLVMStageError as e:
            reply = {"error": {"stage": e.stage, "message": e.message}}
        except Exception as e:  # a bug in this file or in llvmlite: report, keep serving
            reply = {"error": {"stage": "internal", "message": f"{type(e).__name__}: {e}"}}
        write_message(proto_out, reply)


if __name__ == "__main__":
    serve()
