"""The LLVM IR -> PTX step for a :class:`~tritonc.target.Target`.

The Target (an ``sm_XX`` architecture and a PTX ISA version, the ``+ptxNN`` LLVM feature)
is defined in the bottom layer, :mod:`tritonc.target`. :func:`llvm_to_ptx` turns LLVM IR
text (from ``tritonc.codegen.llvm``) into PTX text with llvmlite's NVPTX back end.

Conventions (LLVM's "User Guide for NVPTX", the PTX ISA's release notes, and what
ptxas 13.0 and nvJitLink 13.x accept, checked when the back end was written):

* triple ``nvptx64-nvidia-cuda``; ``--nvptx-short-ptr`` so shared/const/local pointers are
  32 bits, which fixes the datalayout to :data:`DATALAYOUT`;
* ``+ptx86`` by default: the lowest PTX version that every intrinsic tritonc may use needs
  (the ``.relaxed`` mbarrier waits), accepted by ptxas 13.0 and nvJitLink 13.x
  (``+ptx80`` .. ``+ptx88`` and ``+ptx90`` all assemble; LLVM 22 does not know ``+ptx89``);
* Hopper-only instructions (wgmma, setmaxnreg) need ``sm_90a``.

Two LLVM failure modes are designed around:

1. An unknown ``llvm.nvvm.*`` name passes ``verify()`` and comes out as ``.extern .func``;
   :func:`llvm_to_ptx` rejects any PTX that calls an external function, naming it.
2. A known intrinsic the target cannot do makes LLVM call ``abort()``. By default the LLVM
   work runs in a persistent worker process (``_llvm_worker.py``); when it dies, its stderr
   (``LLVM ERROR: Cannot select: intrinsic ...``) becomes an ``InternalCompilerError`` and the
   next call starts a fresh worker. A short table of verified minimum targets
   (:data:`INTRINSIC_REQUIREMENTS`) catches the known cases before LLVM is even called.

Every failure here is a tritonc bug (the IR is generated), hence ``InternalCompilerError``;
only a bad target choice (an arch or PTX version tritonc does not support) is the user's,
hence ``CompileError``.
"""
from __future__ import annotations

import atexit
import os
import re
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from tritonc.diagnostics import InternalCompilerError
from tritonc.target import TRIPLE, Target

# --------------------------------------------------------------------------- intrinsic table

@dataclass(frozen=True)
class IntrinsicRequirement:
    """Intrinsics whose name starts with ``prefix`` need ``min_capability`` (x10), the ``a``
    arch when ``arch_specific``, and PTX >= ``min_ptx``; each row was seen to make LLVM 22
    abort below its minimum and compile at it (tests/codegen/test_target.py checks them)."""

    prefix: str
    min_capability: int = 0
    arch_specific: bool = False
    min_ptx: int = 0

    def satisfied_by(self, target: Target) -> bool:
        return (target.capability >= self.min_capability
                and (target.arch_specific or not self.arch_specific)
                and target.ptx_version >= self.min_ptx)

    def describe(self) -> str:
        need = []
        if self.arch_specific:
            need.append(f"sm_{self.min_capability}a")
        elif self.min_capability:
            need.append(f"sm_{self.min_capability} or newer")
        if self.min_ptx:
            need.append(f"PTX {self.min_ptx // 10}.{self.min_ptx % 10}")
        return " and ".join(need)


INTRINSIC_REQUIREMENTS = (
    IntrinsicRequirement("llvm.nvvm.setmaxnreg.", 90, arch_specific=True),
    IntrinsicRequirement("llvm.nvvm.wgmma.", 90, arch_specific=True),
    IntrinsicRequirement("llvm.nvvm.mbarrier.try.wait.parity.relaxed.", 90, min_ptx=86),
    IntrinsicRequirement("llvm.nvvm.elect.sync", 90),
    IntrinsicRequirement("llvm.nvvm.griddepcontrol.", 90),
    IntrinsicRequirement("llvm.nvvm.fence.proxy.async", 90),
    IntrinsicRequirement("llvm.nvvm.cp.async.bulk.", 90),
    IntrinsicRequirement("llvm.nvvm.stmatrix.", 90),
)

_DECLARE_RE = re.compile(r"^\s*declare\b[^@\n]*@\"?([\w.$]+)\"?\s*\(", re.MULTILINE)
_TRIPLE_RE = re.compile(r'^\s*target\s+triple\s*=\s*"([^"]*)"', re.MULTILINE)
_DATALAYOUT_RE = re.compile(r'^\s*target\s+datalayout\s*=\s*"([^"]*)"', re.MULTILINE)
_EXTERN_FUNC_RE = re.compile(r"^\s*\.extern\s+\.func\s*(?:\([^)]*\)\s*)?([\w.$]+)", re.MULTILINE)


def declared_functions(llvm_ir: str) -> list[str]:
    """Names of the functions ``llvm_ir`` declares (``declare ... @name(``), in order."""
    return _DECLARE_RE.findall(llvm_ir)


def check_intrinsics(llvm_ir: str, target: Target) -> None:
    """Raise ``InternalCompilerError`` if ``llvm_ir`` declares an intrinsic ``target`` cannot do.

    Only the intrinsics of :data:`INTRINSIC_REQUIREMENTS` are known here; the worker process
    catches the rest.
    """
    for name in declared_functions(llvm_ir):
        for req in INTRINSIC_REQUIREMENTS:
            if name.startswith(req.prefix) and not req.satisfied_by(target):
                raise InternalCompilerError(
                    f"LLVM IR uses intrinsic '{name}', which needs {req.describe()}, "
                    f"but the target is {target}")


def _check_module_header(llvm_ir: str, target: Target) -> None:
    m = _TRIPLE_RE.search(llvm_ir)
    if m and m.group(1) not in ("", TRIPLE, "unknown-unknown-unknown"):
        raise InternalCompilerError(f"LLVM IR has target triple '{m.group(1)}', expected '{TRIPLE}'")
    m = _DATALAYOUT_RE.search(llvm_ir)
    if m and m.group(1) not in ("", target.datalayout):
        raise InternalCompilerError(
            f"LLVM IR has datalayout '{m.group(1)}', expected '{target.datalayout}' "
            "(NVPTX with --nvptx-short-ptr)")


def external_functions(ptx: str) -> list[str]:
    """Functions that ``ptx`` declares ``.extern .func`` (calls nothing can resolve)."""
    return _EXTERN_FUNC_RE.findall(ptx)


# --------------------------------------------------------------------------- worker process

_WORKER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_llvm_worker.py")


class _Worker:
    """A persistent ``python -P -S _llvm_worker.py`` process; restarted after it dies.

    Its stderr goes to an anonymous temporary file, so what LLVM prints before ``abort()``
    can be read back; requests are serialised by a lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._stderr = None
        self._owner = os.getpid()

    def _alive(self) -> bool:
        # A forked child must not talk to its parent's worker through the inherited pipes.
        return (self._proc is not None and self._owner == os.getpid()
                and self._proc.poll() is None)

    def _discard(self) -> None:
        """Forget the current worker (dead, or inherited through fork) and its files."""
        if self._proc is not None and self._owner == os.getpid():
            for pipe in (self._proc.stdin, self._proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
        if self._stderr is not None and self._owner == os.getpid():
            self._stderr.close()
        self._proc = None
        self._stderr = None

    def _start(self) -> None:
        self._discard()
        self._owner = os.getpid()
        self._stderr = tempfile.TemporaryFile()
        # The worker sees this process's sys.path, so it finds llvmlite wherever we did; that path
        # already holds what site and its .pth files add, so -S skips them (~10 ms of start-up).
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self._proc = subprocess.Popen(
            [sys.executable, "-P", "-S", _WORKER_PATH],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            close_fds=True, env=env)

    def _stderr_since(self, offset: int) -> str:
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        return os.pread(fd, max(size - offset, 0), offset).decode("utf-8", errors="replace")

    def prestart(self) -> None:
        with self._lock:
            if not self._alive():
                self._start()

    def request(self, message: dict) -> dict:
        from tritonc.codegen import _llvm_worker as proto

        with self._lock:
            if not self._alive():
                self._start()
            proc = self._proc
            offset = os.lseek(self._stderr.fileno(), 0, os.SEEK_CUR)
            try:
                proto.write_message(proc.stdin, message)
                reply = proto.read_message(proc.stdout)
            except (BrokenPipeError, OSError):
                reply = None
            if reply is not None:
                return reply
            # The worker died: most likely LLVM called abort().
            status = proc.wait()
            stderr = self._stderr_since(offset).strip()
            self._discard()
            raise _WorkerDied(status, stderr)

    def close(self) -> None:
        with self._lock:
            if self._proc is not None and self._owner == os.getpid():
                try:
                    self._proc.stdin.close()
                    self._proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    self._proc.kill()
                    self._proc.wait()
            self._discard()


class _WorkerDied(Exception):
    def __init__(self, status: int, stderr: str):
        super().__init__(status, stderr)
        self.status = status
        self.stderr = stderr


class _WorkerPool:
    """The LLVM worker processes of this process: one per request in flight, each reused
    (most recently used first, its target machines already made) and stopped at exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []

    def acquire(self) -> _Worker:
        """An idle worker, or a new one (started on its first request)."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
            worker = _Worker()
            self._all.append(worker)
            return worker

    def release(self, worker: _Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def prestart(self, count: int) -> None:
        """Have at least ``count`` idle workers and start their processes now."""
        with self._lock:
            while len(self._idle) < count:
                worker = _Worker()
                self._all.append(worker)
                self._idle.append(worker)
            idle = list(self._idle)
        for worker in idle:
            worker.prestart()

    def close(self) -> None:
        with self._lock:
            workers, self._all, self._idle = self._all, [], []
        for worker in workers:
            worker.close()


_workers = _WorkerPool()
atexit.register(_workers.close)


def _describe_status(status: int) -> str:
    if status < 0:
        import signal
        try:
            return f"signal {signal.Signals(-status).name}"
        except ValueError:
            return f"signal {-status}"
    return f"exit status {status}"


# --------------------------------------------------------------------------- llvm_to_ptx

def llvm_to_ptx(llvm_ir: str, target: Target, opt_level: int = 3, *, isolate: bool = True,
                timings: dict[str, float] | None = None) -> str:
    """Compile LLVM IR text to PTX text for ``target``.

    Args:
        llvm_ir: one LLVM module; ``target triple`` and ``target datalayout`` may be omitted
            (they are set from ``target``), but must not name another target.
        target: the GPU target.
        opt_level: LLVM's ``default<O{opt_level}>`` module pipeline, 0..3 (0 runs no passes).
        isolate: run LLVM in the worker process (default), so an LLVM ``abort()`` becomes an
            ``InternalCompilerError`` instead of killing tritonc. ``False`` runs in this process
            (faster only for the very first call; for debugging and profiling). Without a
            ``sys.executable`` (an embedded interpreter) LLVM always runs in this process.
        timings: if given, receives seconds per stage: ``parse``, ``verify``, ``opt``, ``emit``
            (and ``init``, the one-time target set-up, ~0 after the first call).

    Returns:
        PTX text with a ``.version`` and ``.target`` matching ``target``.

    Raises:
        InternalCompilerError: the IR does not parse or verify, uses an intrinsic the target
            cannot do, calls an unresolvable function (``.extern .func``), or LLVM aborted.
    """
    if not 0 <= opt_level <= 3:
        raise ValueError(f"opt_level must be 0..3, got {opt_level}")
    _check_module_header(llvm_ir, target)
    check_intrinsics(llvm_ir, target)

    request = {"ir": llvm_ir, "cpu": target.cpu, "features": target.features,
               "opt_level": opt_level, "datalayout": target.datalayout, "triple": target.triple}
    if isolate and sys.executable:
        worker = _workers.acquire()
        try:
            reply = worker.request(request)
        except _WorkerDied as died:
            detail = died.stderr or "(nothing on stderr)"
            what = (f"LLVM crashed ({_describe_status(died.status)})" if died.status < 0 else
                    f"the LLVM worker process exited ({_describe_status(died.status)})")
            raise InternalCompilerError(
                f"{what} while compiling LLVM IR to PTX for {target}:\n{_first_lines(detail, 40)}") from None
        finally:
            _workers.release(worker)
        if "error" in reply:
            err = reply["error"]
            raise InternalCompilerError(_stage_message(err["stage"], err["message"], target))
        ptx, stage_times = reply["ptx"], reply["timings"]
    else:
        from tritonc.codegen import _llvm_worker

        try:
            ptx, stage_times = _llvm_worker.compile_llvm(**request)
        except _llvm_worker.LLVMStageError as e:
            raise InternalCompilerError(_stage_message(e.stage, e.message, target)) from None

    externs = external_functions(ptx)
    if externs:
        raise InternalCompilerError(
            "the PTX calls function(s) that nothing defines: "
            + ", ".join(f"'{name}'" for name in externs)
            + " (an 'llvm.nvvm.*' name LLVM does not know becomes an external call; "
              "check the intrinsic's spelling)")
    if timings is not None:
        timings.update(stage_times)
    return ptx


def _stage_message(stage: str, message: str, target: Target) -> str:
    what = {"parse": "LLVM IR does not parse", "verify": "LLVM IR fails verification",
            "opt": "LLVM's optimizer failed", "emit": "the NVPTX back end failed",
            "internal": "the LLVM worker failed"}.get(stage, stage)
    return f"{what} (target {target}):\n{_first_lines(message, 40)}"


def _first_lines(text: str, n: int) -> str:
    lines = text.splitlines()
    if len(lines) <= n:
        return text
    return "\n".join(lines[:n] + [f"... ({len(lines) - n} more lines)"])


def prestart_worker(count: int = 1) -> None:
    """Start ``count`` LLVM workers now, so that they load and initialise LLVM (~0.1 s each)
    while the caller does other work (parsing, IR passes); :func:`llvm_to_ptx` and
    :class:`PTXJobs` then find them ready."""
    _workers.prestart(count)


def shutdown_worker() -> None:
    """Stop the LLVM worker processes now (they are restarted on the next isolated call)."""
    _workers.close()


# --------------------------------------------------------------------------- several modules at once

class PTXJobs:
    """LLVM modules compiled to PTX in the background, at most ``jobs`` at a time, each in a
    worker process of its own (:func:`llvm_to_ptx` with ``isolate=True``), so that the kernels
    of one compilation use several cores and the caller can go on (lowering the next kernel)
    meanwhile. With ``jobs == 1``, or no ``sys.executable`` to start workers with, each
    :meth:`submit` compiles at once in the caller's thread.

    Use as a context manager; :meth:`submit` returns a ``concurrent.futures.Future`` whose
    result is ``(ptx, timings)`` (as :func:`llvm_to_ptx` returns and fills them) or whose
    exception is the ``InternalCompilerError`` :func:`llvm_to_ptx` raised.
    """

    def __init__(self, target: Target, jobs: int, opt_level: int = 3):
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        self.target = target
        self.opt_level = opt_level
        self.jobs = jobs if sys.executable else 1
        self._pool = None
        if self.jobs > 1:
            from concurrent.futures import ThreadPoolExecutor

            # the threads only wait for the workers' replies (the GIL is free meanwhile)
            self._pool = ThreadPoolExecutor(self.jobs, thread_name_prefix="tritonc-llvm")

    def _compile(self, llvm_ir: str) -> tuple[str, dict[str, float]]:
        timings: dict[str, float] = {}
        ptx = llvm_to_ptx(llvm_ir, self.target, self.opt_level, timings=timings)
        return ptx, timings

    def submit(self, llvm_ir: str):
        """Start compiling ``llvm_ir`` (one LLVM module); a future of ``(ptx, timings)``."""
        if self._pool is not None:
            return self._pool.submit(self._compile, llvm_ir)
        from concurrent.futures import Future

        future: Future = Future()
        try:
            future.set_result(self._compile(llvm_ir))
        except BaseException as e:  # reported by future.result(), as from a thread
            future.set_exception(e)
        return future

    def close(self) -> None:
        """Wait for the modules in flight and stop the threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self) -> "PTXJobs":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_PTX_ENTRY_RE = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+[\w$]+", re.MULTILINE)
_PTX_GLOBL_RE = re.compile(r"^\t// \.globl\t[\w$]+\n", re.MULTILINE)
_PTX_BB_LABEL_RE = re.compile(r"\$L__BB0_")


def _split_ptx(text: str, index: int) -> tuple[str, str, str, str]:
    """``(header, globl, declarations, function)`` of the PTX of a one-function module."""
    functions = _PTX_ENTRY_RE.findall(text)
    globl = _PTX_GLOBL_RE.search(text)
    if len(functions) != 1 or globl is None:
        raise InternalCompilerError(f"join_ptx: part {index} has {len(functions)} functions "
                                    f"{'' if globl else 'and no .globl line '}(one kernel expected)")
    entry = _PTX_ENTRY_RE.search(text, globl.end())
    return text[:globl.start()], globl.group(0), text[globl.end():entry.start()], text[entry.start():]


def join_ptx(parts: list[str]) -> str:
    """The PTX of several LLVM modules, each compiled alone from one kernel of the same ttg
    module (:func:`tritonc.codegen.llvm.lower_kernels`), as one PTX module: the text the NVPTX
    back end writes for the whole module, where part ``i``'s kernel is function ``i``.

    The header (``.version`` / ``.target`` / ``.address_size``) must be the same in every part
    and is written once. The module-scope declarations (``.extern .shared ... global_smem``,
    which a part leaves out when its kernel does not use it) are the parts' own, each once, in
    order, after the first ``// .globl`` line, as LLVM puts them. Each function keeps its
    ``// .globl`` line, and part ``i``'s basic-block labels ``$L__BB0_N`` become
    ``$L__BB{i}_N``, as LLVM numbers them by function.

    Raises:
        InternalCompilerError: a part does not hold exactly one ``.visible`` function, or its
            header differs from the first part's.
    """
    if not parts:
        raise InternalCompilerError("join_ptx: no PTX to join")
    split = [_split_ptx(text, i) for i, text in enumerate(parts)]
    head = split[0][0]
    decls: list[str] = []
    for i, (head_i, _, decls_i, _) in enumerate(split):
        if head_i != head:
            raise InternalCompilerError(f"join_ptx: part {i}'s header differs from the first part's")
        decls += [line for line in decls_i.splitlines(keepends=True) if line.strip() and line not in decls]
    out = [head]
    for i, (_, globl, _, function) in enumerate(split):
        out.append(globl)
        if i == 0:
            out += decls + ["\n"]
        out.append(_PTX_BB_LABEL_RE.sub(f"$L__BB{i}_", function) if i else function)
    return "".join(out)
