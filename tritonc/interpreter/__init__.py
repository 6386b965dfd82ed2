"""The numpy interpreter of the tile IR: the semantic reference of tritonc.

It executes a kernel's tile IR (the ``tt`` level, before layouts; ``ttg.convert_layout`` is
accepted as the identity, and the ttg shared-memory ops run as numpy buffers with synchronous
copies, so pipelined loops can be checked too) for a grid of program instances on numpy arrays. Every example and
test kernel is checked against a plain numpy computation through it, and GPU runs are checked
against it.

API::

    run_function(module, "matmul", (4, 4), [A, B, C, M, N, K, lda, ldb, ldc])

and, from source text (compiling it first, in the driver layer): ``tritonc.interpret(
"examples/matmul.tri", "matmul", (4, 4), A, B, C, ..., defines={"TM": 64})``

Arguments: a pointer parameter takes a contiguous numpy array of any shape and dtype (or
``None``, the null pointer); the kernel reads and writes it in place. A scalar parameter
takes a Python or numpy scalar, converted to the parameter type (integers wrap around; a
parameter with the ``unsigned`` attribute reads its bits as unsigned, as every unsigned op
does).

Promises (spec section 7): as the generated launchers do, every launch first checks the
kernel's ``__multipleof(n)`` / ``__aligned(n)`` promises on its arguments and refuses one that
breaks a promise with an :class:`InterpreterError` naming the parameter (the compiler may have
specialised the kernel on them). An integer argument's value must be a multiple of ``n``. A
pointer argument's address is taken as a GPU allocator gives it: an array that owns its memory
(or the root array of a chain of numpy views) starts an allocation, and an allocation keeps
every alignment promise (``cudaMalloc`` aligns to 256 bytes); a view starts as many bytes after
its root's start as it does in host memory, so ``x[1:]`` of a ``float32`` array breaks
``__aligned(8)`` here as it would on the GPU (:func:`allocation_offset`).
``None`` (the null pointer) keeps every promise.

Value model (``numerics.py``): scalars are numpy scalars and tiles numpy arrays of the
element dtype (``i1`` bool, ``iN`` signed intN with C wrap-around, ``f16``, ``bf16``
(ml_dtypes), ``f32``, ``f64``); float arithmetic rounds to the element type after every op;
``tt.dot`` accumulates exactly (f64 or int64) and rounds once to the accumulator type.

Memory model (``memory.py``): pointer argument ``k`` lives at the fake address
``(k + 1) << 40``; pointers are int64 addresses. Every load, store and atomic checks each
enabled lane for bounds and alignment and raises :class:`InterpreterError` naming the op,
its source location, the program id and the element index. Masked-off lanes are never
touched; a masked load without ``other`` fills them with poison (NaN, or ``0x5A`` bytes).
Duplicate addresses in one store: the last lane in row-major order wins; in one atomic: the
lanes apply one by one in row-major order.

Scheduling model (``scheduler.py``): each program instance is a generator that yields at
atomics and loop back-edges. By default instances start in row-major order of the grid
(last axis fastest) and run one after another; a spinning instance (a loop that repeats its
state with no memory change) is parked until memory changes, so spin locks and
wait-for-counter patterns make progress, and a situation where every instance is parked is
reported as a deadlock. ``order_seed`` shuffles the start order and interleaves instances
at random at their scheduling points. ``gpu.barrier`` is a no-op: an instance executes each
tile op as a whole. ``num_warps`` does not affect results at this level.
"""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from ..ir.core import Function, Module
from ..ir.types import PointerType, ScalarType
from ..ir.verifier import verify_module
from . import numerics as nx
from .errors import InterpreterError
from .evaluator import Evaluator, LaunchContext
from .memory import Memory
from .scheduler import RunReport, run_instances

__all__ = ["run_function", "interpret", "InterpreterError", "RunReport"]

DEFAULT_MAX_QUIET_STEPS = 200_000


def run_function(module: Module, kernel_name: str, grid, args: Sequence[Any], *, num_warps: int = 4,
                 order_seed: int | None = None, max_quiet_steps: int = DEFAULT_MAX_QUIET_STEPS,
                 verify: bool = True) -> RunReport:
    """Execute kernel ``kernel_name`` of ``module`` over ``grid``; arrays in ``args`` are updated in place.

    Args:
        module: tile IR (tt level); verified first unless ``verify`` is false.
        kernel_name: the kernel's function name.
        grid: an int or a tuple of 1 to 3 non-negative ints (programs per axis).
        args: one value per kernel parameter (arrays for pointers, scalars for scalars).
        num_warps: accepted for symmetry with the GPU launch; it does not change results.
        order_seed: ``None`` runs instances in row-major order, one after another; an int
            shuffles the order and interleaves instances at atomics and loop back-edges.
        max_quiet_steps: scheduling points without any memory change or finished instance
            after which the launch is reported as a livelock.

    Returns:
        A :class:`RunReport` (start order, scheduler switches, scheduling points).

    Raises:
        InterpreterError: a bad argument (one that breaks the kernel's ``__multipleof`` /
            ``__aligned`` promise included, checked before anything runs), an invalid memory
            access, a deadlock or livelock, or an op the interpreter does not know; messages name
            op, location and program id.
    """
    f = module.get_function(kernel_name)
    if f is None or f.kind != "kernel":
        names = ", ".join(g.name for g in module.functions if g.kind == "kernel") or "none"
        raise InterpreterError(f"no kernel named '{kernel_name}' in the module (kernels: {names})")
    if verify:
        verify_module(module)
    grid = _normalise_grid(grid)
    memory = Memory()
    values = _bind_arguments(f, args, memory)
    ctx = LaunchContext(module, memory, grid)
    pids = list(itertools.product(*(range(g) for g in grid)))
    rng = None
    if order_seed is not None:
        rng = np.random.default_rng(order_seed)
        pids = [pids[i] for i in rng.permutation(len(pids))]
    report = RunReport(grid)

    def start(pid: tuple[int, ...]):
        return Evaluator(ctx, pid).run(f, values)

    with np.errstate(all="ignore"):
        run_instances(pids, start, memory, rng, max_quiet_steps, report)
    return report


def _normalise_grid(grid) -> tuple[int, ...]:
    if isinstance(grid, (int, np.integer)):
        grid = (grid,)
    grid = tuple(grid)
    if not 1 <= len(grid) <= 3 or not all(isinstance(g, (int, np.integer)) and g >= 0 for g in grid):
        raise InterpreterError(f"grid must be 1 to 3 non-negative ints, got {grid!r}")
    return tuple(int(g) for g in grid)


def _bind_arguments(f: Function, args: Sequence[Any], memory: Memory) -> list:
    if len(args) != len(f.args):
        raise InterpreterError(f"@{f.name} takes {len(f.args)} arguments, got {len(args)}")
    values = []
    attrs = list(f.arg_attrs) + [{}] * (len(f.args) - len(f.arg_attrs))
    for k, (param, value, promises) in enumerate(zip(f.args, args, attrs)):
        name = param.name or f"arg{k}"
        what = f"argument {k} (%{name}: {param.type}) of @{f.name}"
        t = param.type
        if isinstance(t, PointerType):
            if value is None:
                values.append(np.int64(0))
                continue
            if not isinstance(value, np.ndarray):
                raise InterpreterError(f"{what} expects a numpy array, got {type(value).__name__}")
            try:
                values.append(np.int64(memory.add(value, name)))
            except ValueError as e:
                raise InterpreterError(f"{what} {e}") from None
            _check_address_promises(value, promises, what)
        elif isinstance(t, ScalarType):
            values.append(_scalar_argument(value, t, what))
            m = promises.get("multipleof")
            if m and t.is_int and int(values[-1]) % m:
                raise InterpreterError(f"{what} = {int(values[-1])} breaks its __multipleof({m}) promise; "
                                       f"pass a multiple of {m} (the kernel may have been specialised on it)")
            bound = promises.get("at_most")  # a specialised variant's bound fact (transforms/specialize.py)
            if bound is not None and t.is_int and int(values[-1]) > bound:
                raise InterpreterError(f"{what} = {int(values[-1])} is above {bound}, the bound this specialised "
                                       f"variant assumes; run the kernel itself or a variant whose facts hold")
        else:
            raise InterpreterError(f"{what}: a kernel parameter must be a pointer or a scalar")
    return values


def allocation_offset(a: np.ndarray) -> int:
    """Bytes from the start of ``a``'s allocation to its first element: 0 for an array that
    owns its memory (or is the root of a chain of numpy views), else its offset from that root."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return a.__array_interface__["data"][0] - root.__array_interface__["data"][0]


def _check_address_promises(a: np.ndarray, promises: dict, what: str) -> None:
    """Refuse a pointer argument whose address breaks ``__aligned(n)`` or ``__multipleof(n)``."""
    offset = allocation_offset(a)
    for promise, m in (("__aligned", promises.get("aligned")), ("__multipleof", promises.get("multipleof"))):
        if m and offset % m:
            raise InterpreterError(
                f"{what} starts {offset} bytes into its allocation, which breaks its {promise}({m}) promise "
                f"(the address must be a multiple of {m} bytes); pass an array that starts at a multiple "
                f"of {m} bytes (the kernel may have been specialised on it)")


def _scalar_argument(value, t: ScalarType, what: str):
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise InterpreterError(f"{what} expects a scalar, got an array of shape {value.shape}")
        value = value[()]
    if t.is_int:
        if isinstance(value, (bool, np.bool_, int, np.integer)):
            return nx.wrap_python_int(int(value), t)
        raise InterpreterError(f"{what} expects an integer, got {value!r}")
    try:
        x = np.asarray(value).astype(np.float64)
    except (TypeError, ValueError):
        x = None
    if x is None or x.ndim != 0 or isinstance(value, (str, bytes)):
        raise InterpreterError(f"{what} expects a number, got {value!r}")
    return nx.round_float(x, t)[()]
