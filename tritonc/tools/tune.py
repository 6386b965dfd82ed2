"""``tritonc-tune FILE.tri --sizes sizes.toml [-o table.json]``: measure every variant of a kernel
on a GPU at the sizes a TOML file lists, and write a tuning table (tritonc/tuning/table.py) that
``tritonc FILE.tri --tuning table.json --emit=header,py`` turns into dispatching launchers.

Steps (docs/tuning.md, "Tuning on a GPU"):

1. The variant space is every combination of the free ``const tunable`` candidates (those not
   fixed by ``-D`` or a one-value ``--tune``), the ``--tune`` lists and the ``--num-warps`` /
   ``--num-stages`` lists; the variants are compiled in parallel (``-j``), pruned and linked by
   :class:`tritonc.variants.VariantBuild`, through the compile cache, into one Python launcher
   module, which is then imported.
2. For each size, the arguments are built from the sizes file (each pointer parameter: shape,
   dtype, strides, initial values; each scalar: a number or an expression over the sizes), or
   by ``make_inputs(size)`` of the ``--inputs`` file; they are copied to the GPU with the CUDA
   driver API (cuda-python; torch is not needed).
3. Each variant runs once, and its outputs (every pointer parameter not marked ``__readonly``)
   are compared with the first variant's (tolerance by element type, :data:`RTOL`).
4. Each variant is timed: its launch is captured in a CUDA graph; each repetition restores
   every pointer argument not marked ``__readonly`` from a saved copy, writes a 256 MiB buffer
   to evict the L2 cache, then launches the graph between two CUDA events; warm-up
   repetitions first, then the median of the timed ones (microseconds).
5. The table's key is the kernel's ``__retune`` parameters (or the sizes file's ``key``); each
   size's key values fall into a bucket (powers of two, or the file's ranges).

Errors in the inputs (the sizes file, the ``--inputs`` file, the table path) are
``file:line:col: error:`` / ``tritonc-tune: error:`` messages with exit status 1 and no table
written; bad usage exits with 2.
"""
from __future__ import annotations

import ast
import math
import os
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from ..diagnostics import CompileError, SourceLoc, SourceManager, UsageError

#: Relative tolerance of the output check per element type; the absolute tolerance is
#: ``rtol * max(1, max |reference|)``. Integers and bools must match exactly.
RTOL = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-3, "float64": 1e-9}

#: Bytes written between repetitions to evict the L2 cache (50 MiB on H100; 4x that).
L2_FLUSH_BYTES = 256 << 20

#: Driver errors after which the context cannot run anything more.
_STICKY = ("ILLEGAL_ADDRESS", "ILLEGAL_INSTRUCTION", "LAUNCH_FAILED", "MISALIGNED_ADDRESS", "HARDWARE_STACK_ERROR",
           "ASSERT")


class TuneError(CompileError):
    """A defect in the tuner's inputs: reported as a diagnostic, exit status 1."""


# ---------------------------------------------------------------------------------------------
# expressions over the sizes


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}
_CALLS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def evaluate(expr, names: dict[str, int | float], where: str) -> int | float:
    """The value of ``expr``: a TOML number, or a string of integers, names from ``names``,
    ``+ - * // %``, unary minus, parentheses and ``cdiv(a, b)``, ``min``, ``max`` (read with
    :mod:`ast`; nothing else is evaluated).

    Raises:
        TuneError: another construct, an unknown name, a division by zero (``where`` says which
            value of the sizes file it was).
    """
    if isinstance(expr, bool):
        raise TuneError(f"{where}: expected a number or an expression, got {expr!r}")
    if isinstance(expr, (int, float)):
        return expr
    if not isinstance(expr, str):
        raise TuneError(f"{where}: expected a number or an expression string, got {expr!r}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise TuneError(f"{where}: '{expr}' is not an expression") from None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                known = ", ".join(sorted(names)) or "none"
                raise TuneError(f"{where}: '{expr}' uses '{node.id}', which is not a size (sizes: {known})")
            return names[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
                raise TuneError(f"{where}: '{expr}' divides by zero")
            return _BINOPS[type(node.op)](a, b)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS
                and not node.keywords and len(node.args) == 2):
            a, b = (ev(x) for x in node.args)
            if node.func.id == "cdiv" and b == 0:
                raise TuneError(f"{where}: '{expr}' divides by zero")
            return _CALLS[node.func.id](a, b)
        raise TuneError(f"{where}: '{expr}': only numbers, sizes, + - * // %, parentheses and cdiv/min/max "
                        "are allowed")

    return ev(tree)


# ---------------------------------------------------------------------------------------------
# the sizes file


@dataclass
class PointerArg:
    shape: list
    dtype: str | None = None
    strides: list | None = None
    init: str = "random"


@dataclass
class SizesFile:
    """A parsed sizes file (docs/tuning.md shows one)."""

    path: str
    sizes: list[dict[str, int]]
    args: dict[str, object] = field(default_factory=dict)  # parameter -> PointerArg or number/expression
    kernel: str | None = None
    key: list[str] | None = None
    buckets: dict = field(default_factory=dict)
    grid: list | None = None


def parse_sizes(text: str, path: str) -> SizesFile:
    """Read a sizes file (TOML).

    Raises:
        TuneError: a TOML syntax error (at its line and column), or a field of the wrong shape.
    """
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e)) or "invalid TOML"
        loc = SourceLoc(path, int(m.group(1)), int(m.group(2))) if m else None
        raise TuneError(f"not a sizes file: {msg}" if loc else f"{path}: not a sizes file: {msg}", loc) from None

    def bad(message):
        return TuneError(f"{path}: {message}")

    known = {"sizes", "args", "kernel", "key", "buckets", "grid"}
    extra = sorted(set(data) - known)
    if extra:
        raise bad(f"unknown field '{extra[0]}' (expected {', '.join(sorted(known))})")
    sizes = data.get("sizes")
    if not isinstance(sizes, list) or not sizes or not all(isinstance(s, dict) for s in sizes):
        raise bad("needs at least one [[sizes]] table of NAME = integer")
    for i, s in enumerate(sizes):
        for name, v in s.items():
            if type(v) is not int:
                raise bad(f"size {i + 1}: {name} = {v!r} is not an integer")
    kernel = data.get("kernel")
    if kernel is not None and not isinstance(kernel, str):
        raise bad("'kernel' must be a kernel name")
    key = data.get("key")
    if key is not None and (not isinstance(key, list) or not key or not all(isinstance(k, str) for k in key)):
        raise bad("'key' must be a list of parameter names")
    buckets = data.get("buckets", {})
    if not isinstance(buckets, dict):
        raise bad("[buckets] must map key parameters to \"pow2\" or a list of ascending integer bounds")
    for name, rule in buckets.items():
        if rule != "pow2" and not (isinstance(rule, list) and rule and all(type(b) is int for b in rule)
                                   and all(a < b for a, b in zip(rule, rule[1:]))):
            raise bad(f"[buckets] {name}: expected \"pow2\" or a list of strictly ascending integers")
    grid = data.get("grid")
    if grid is not None and (not isinstance(grid, list) or not 1 <= len(grid) <= 3):
        raise bad("'grid' must list 1 to 3 expressions")
    args: dict[str, object] = {}
    raw = data.get("args", {})
    if not isinstance(raw, dict):
        raise bad("[args] must map parameter names to a value or a pointer description")
    for name, value in raw.items():
        if isinstance(value, dict):
            unknown = sorted(set(value) - {"shape", "dtype", "strides", "init"})
            if unknown:
                raise bad(f"[args.{name}]: unknown field '{unknown[0]}' (expected shape, dtype, strides, init)")
            shape = value.get("shape")
            if not isinstance(shape, list) or not shape:
                raise bad(f"[args.{name}]: 'shape' must list the extents")
            strides = value.get("strides")
            if strides is not None and (not isinstance(strides, list) or len(strides) != len(shape)):
                raise bad(f"[args.{name}]: 'strides' must list one stride per extent")
            init = value.get("init", "random")
            if init not in ("random", "zeros", "ones"):
                raise bad(f"[args.{name}]: init must be \"random\", \"zeros\" or \"ones\", got {init!r}")
            dtype = value.get("dtype")
            if dtype is not None and not isinstance(dtype, str):
                raise bad(f"[args.{name}]: 'dtype' must be a type name such as \"float16\"")
            args[name] = PointerArg(shape, dtype, strides, init)
        else:
            args[name] = value
    return SizesFile(path, [dict(s) for s in sizes], args, kernel, key, dict(buckets), grid)


def _numpy_dtype(name: str):
    import numpy as np

    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype("bool" if name == "bool" else name)


def host_arguments(params, spec: SizesFile, size: dict[str, int], rng) -> list:
    """The host arguments of one size: a numpy array per pointer parameter (its elements cover
    every address the shape and strides reach, ``1 + sum((extent - 1) * stride)``), and a number
    per scalar (its expression's value; a parameter missing from ``[args]`` takes the size of the
    same name).

    Raises:
        TuneError: a parameter described nowhere, a pointer described as a scalar or the
            reverse, a dtype that is not the parameter's, a negative extent.
    """
    import numpy as np

    where = f"{spec.path}: size {spec.sizes.index(size) + 1 if size in spec.sizes else '?'}"
    names: dict[str, int | float] = dict(size)
    values: dict[str, object] = {}
    for p in params:
        if p.is_pointer:
            continue
        expr = spec.args.get(p.name, p.name if p.name in size else None)
        if expr is None:
            raise TuneError(f"{where}: no value for scalar parameter '{p.name}' (add {p.name} = ... to [args] "
                            "or to the sizes)")
        if isinstance(expr, PointerArg):
            raise TuneError(f"{where}: '{p.name}' is a {p.dtype} scalar, but [args.{p.name}] describes an array")
        v = evaluate(expr, size, f"{where}: [args] {p.name}")
        if p.scalar_type.is_integer and p.dtype != "bool":
            if isinstance(v, float):
                raise TuneError(f"{where}: [args] {p.name} is an integer parameter, but its value is {v}")
        values[p.name] = v
        names.setdefault(p.name, v)
    out = []
    for p in params:
        if not p.is_pointer:
            out.append(values[p.name])
            continue
        d = spec.args.get(p.name)
        if not isinstance(d, PointerArg):
            raise TuneError(f"{where}: pointer parameter '{p.name}' needs [args.{p.name}] with a shape "
                            "(or use --inputs)")
        if d.dtype is not None and d.dtype != p.dtype:
            raise TuneError(f"{where}: [args.{p.name}] has dtype {d.dtype}, but '{p.name}' points to {p.dtype}")
        shape = [evaluate(e, names, f"{where}: [args.{p.name}] shape") for e in d.shape]
        if d.strides is None:
            strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
        else:
            strides = [evaluate(e, names, f"{where}: [args.{p.name}] strides") for e in d.strides]
        if any(not isinstance(x, int) or x < 0 for x in shape + strides):
            raise TuneError(f"{where}: [args.{p.name}] needs non-negative integer extents and strides, "
                            f"got shape {shape}, strides {strides}")
        count = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
        dt = _numpy_dtype(p.dtype)
        if d.init == "zeros":
            a = np.zeros(count, dtype=dt)
        elif d.init == "ones":
            a = np.ones(count, dtype=dt)
        elif dt.kind == "f" or p.dtype == "bfloat16":
            a = rng.uniform(-1.0, 1.0, count).astype(dt)
        elif dt.kind == "b":
            a = rng.integers(0, 2, count).astype(dt)
        else:
            a = rng.integers(0, 16, count).astype(dt)
        out.append(a)
    return out


def load_make_inputs(path: str):
    """The ``make_inputs(size: dict) -> list`` function of the Python file ``path``.

    Raises:
        TuneError: the file cannot be run, or defines no such function.
    """
    import importlib.util

    spec = importlib.util.spec_from_file_location("tritonc_tune_inputs", path)
    if spec is None or not os.path.isfile(path):
        raise TuneError(f"{path}: cannot read the --inputs file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the user's file: report it, without a traceback
        raise TuneError(f"{path}: running the --inputs file raised {type(e).__name__}: {e}") from None
    fn = getattr(module, "make_inputs", None)
    if not callable(fn):
        raise TuneError(f"{path}: the --inputs file defines no function make_inputs(size)")
    return fn


def check_inputs(params, values, path: str, size: dict) -> list:
    """``make_inputs``' result for ``size``: one entry per parameter, numpy arrays of the
    pointee type for pointers, numbers for scalars.

    Raises:
        TuneError: naming the parameter that does not fit.
    """
    import numpy as np

    where = f"{path}: make_inputs({size})"
    if not isinstance(values, (list, tuple)) or len(values) != len(params):
        n = len(values) if isinstance(values, (list, tuple)) else type(values).__name__
        raise TuneError(f"{where} must return a list of {len(params)} arguments, got {n}")
    out = []
    for p, v in zip(params, values):
        if p.is_pointer:
            if not isinstance(v, np.ndarray) or v.dtype != _numpy_dtype(p.dtype):
                got = f"a {v.dtype} array" if isinstance(v, np.ndarray) else type(v).__name__
                raise TuneError(f"{where}: '{p.name}' needs a numpy array of {p.dtype}, got {got}")
            out.append(np.ascontiguousarray(v).reshape(-1))
        else:
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise TuneError(f"{where}: '{p.name}' needs a number, got {type(v).__name__}")
            out.append(v.item() if isinstance(v, np.generic) else v)
    return out


def outputs_match(ref, got, dtype: str) -> tuple[bool, str]:
    """Whether ``got`` equals ``ref`` within :data:`RTOL` (exactly for integers); the reason if not."""
    import numpy as np

    if dtype not in RTOL:
        same = np.array_equal(ref, got)
        return bool(same), "" if same else f"{int(np.sum(ref != got))} elements differ"
    r, g = ref.astype(np.float64), got.astype(np.float64)
    finite = np.isfinite(r)
    scale = float(np.max(np.abs(r[finite]))) if finite.any() else 1.0
    tol = RTOL[dtype] * (max(1.0, scale) + np.abs(r))
    bad = ~((np.abs(r - g) <= tol) | (np.isnan(r) & np.isnan(g)) | (np.isinf(r) & (r == g)))
    if not bad.any():
        return True, ""
    i = int(np.argmax(bad))
    return False, f"{int(bad.sum())} of {r.size} elements differ (first at {i}: {g[i]} vs {r[i]})"


# ---------------------------------------------------------------------------------------------
# the GPU


class Gpu:
    """Device memory, streams, events and graphs through the CUDA driver API (cuda-python)."""

    def __init__(self):
        from cuda.bindings import driver

        self.d = driver
        self.call(driver.cuInit(0), "cuInit")
        dev = self.call(driver.cuDeviceGet(0), "cuDeviceGet")
        self.ctx = self.call(driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        self.call(driver.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.stream = self.call(driver.cuStreamCreate(1), "cuStreamCreate")  # non-blocking
        self.start = self.call(driver.cuEventCreate(0), "cuEventCreate")
        self.flush = self.alloc(L2_FLUSH_BYTES)
        self.allocations: list[int] = []

    def call(self, result, what: str):
        err, *rest = result if isinstance(result, tuple) else (result,)
        if int(err) != 0:
            _, text = self.d.cuGetErrorString(err)
            raise RuntimeError(f"{what} failed: {err.name if hasattr(err, 'name') else err} "
                               f"({text.decode() if text else ''})")
        return rest[0] if len(rest) == 1 else (tuple(rest) if rest else None)

    def alloc(self, nbytes: int) -> int:
        return int(self.call(self.d.cuMemAlloc(max(nbytes, 16)), "cuMemAlloc"))

    def upload(self, array) -> int:
        ptr = self.alloc(array.nbytes)
        self.allocations.append(ptr)
        if array.nbytes:
            self.call(self.d.cuMemcpyHtoD(ptr, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")
        return ptr

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        if nbytes:
            self.call(self.d.cuMemcpyDtoDAsync(dst, src, nbytes, self.stream), "cuMemcpyDtoDAsync")

    def download(self, array, ptr: int) -> None:
        self.sync()
        if array.nbytes:
            self.call(self.d.cuMemcpyDtoH(array.ctypes.data, ptr, array.nbytes), "cuMemcpyDtoH")

    def sync(self) -> None:
        self.call(self.d.cuStreamSynchronize(self.stream), "cuStreamSynchronize")

    def free_all(self) -> None:
        self.sync()
        for ptr in self.allocations:
            self.d.cuMemFree(ptr)
        self.allocations = []

    def capture(self, launch):
        """A CUDA graph of what ``launch(stream handle)`` enqueues, or None when the launch
        cannot be captured (then each repetition launches directly)."""
        d = self.d
        mode = d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED
        try:
            self.call(d.cuStreamBeginCapture(self.stream, mode), "cuStreamBeginCapture")
        except RuntimeError:
            return None
        try:
            launch(int(self.stream))
        except Exception:
            d.cuStreamEndCapture(self.stream)
            return None
        err, graph = d.cuStreamEndCapture(self.stream)
        if int(err) != 0:
            return None
        err, exe = d.cuGraphInstantiate(graph, 0)
        d.cuGraphDestroy(graph)
        return exe if int(err) == 0 else None

    def time(self, launch, restore, warmup: int, reps: int) -> float:
        """Median microseconds of one launch: per repetition ``restore()`` (enqueues the copies
        that reset the outputs), an L2 flush, then the launch between two events."""
        d = self.d
        graph = self.capture(launch)
        ends = [self.call(d.cuEventCreate(0), "cuEventCreate") for _ in range(reps)]
        starts = [self.call(d.cuEventCreate(0), "cuEventCreate") for _ in range(reps)]
        try:
            for i in range(warmup + reps):
                restore()
                self.call(d.cuMemsetD32Async(self.flush, i, L2_FLUSH_BYTES // 4, self.stream), "cuMemsetD32Async")
                timed = i >= warmup
                if timed:
                    self.call(d.cuEventRecord(starts[i - warmup], self.stream), "cuEventRecord")
                if graph is not None:
                    self.call(d.cuGraphLaunch(graph, self.stream), "cuGraphLaunch")
                else:
                    launch(int(self.stream))
                if timed:
                    self.call(d.cuEventRecord(ends[i - warmup], self.stream), "cuEventRecord")
            self.sync()
            times = [self.call(d.cuEventElapsedTime(s, e), "cuEventElapsedTime") * 1000.0
                     for s, e in zip(starts, ends)]
        finally:
            if graph is not None:
                d.cuGraphExecDestroy(graph)
            for ev in starts + ends:
                d.cuEventDestroy(ev)
        return statistics.median(times)


# ---------------------------------------------------------------------------------------------
# compiling and loading the variants


def build_variants(text: str, path: str, options, warps, stages, jobs: int | None, use_cache: bool):
    """Compile the variant space (see the module docstring) into a Python module's source;
    returns ``(source, the build's -v explanation)``, through the compile cache."""
    from dataclasses import replace

    from ..cache import CompileCache, cache_key
    from ..diagnostics import DiagnosticSink
    from ..frontend.preprocess import preprocess
    from ..variants import VariantBuild, tunable_space

    tune = dict(options.tune)
    for name, values in tunable_space(text, path, options).items():
        if name not in tune and values and len(values) > 1:
            tune[name] = values
    options = replace(options, tune=tune, specialize=True)
    key = None
    if use_cache:
        pre = preprocess(text, path, dict(options.defines), list(options.include_dirs), SourceManager(),
                         DiagnosticSink()).text
        key = cache_key(text, pre, options, {"num_warps": warps, "num_stages": stages, "tool": "tritonc-tune"})
        hit = CompileCache().get(key, ["py"])
        if hit is not None:
            return hit[0]["py"].decode("utf-8"), hit[1]
    build = VariantBuild(text, path, options, warps, stages, jobs).build()
    source, explain = build.emit("py"), build.explain() + "\n"
    if key is not None:
        CompileCache().put(key, {"py": source}, explain)
    return source, explain


def import_module(source: str, folder: str, name: str = "tritonc_tuned_variants"):
    import importlib.util

    path = os.path.join(folder, f"{name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_facts(text: str, path: str, options, kernel: str | None):
    """``(kernel name, its KernelParams, its __retune parameter names, has a declared grid)``."""
    from ..driver import Compilation
    from ..launcher.build import kernel_signature

    comp = Compilation(text, options, path=path)
    kernels = [f for f in comp.frontend_module.functions if f.kind == "kernel"]
    if kernel is not None:
        kernels = [f for f in kernels if f.name == kernel]
        if not kernels:
            raise TuneError(f"{path}: no kernel named '{kernel}'")
    if len(kernels) > 1:
        names = ", ".join(f.name for f in kernels)
        raise TuneError(f"{path} has several kernels ({names}); name one with --kernel or kernel = in the sizes file")
    f = kernels[0]
    sig = kernel_signature(f)
    retune = [a.name for a, attrs in zip(f.args, f.arg_attrs) if attrs.get("retune")]
    return f.name, list(sig.params), retune, f.name in comp.grids


# ---------------------------------------------------------------------------------------------
# the run


@dataclass
class Measurement:
    """One size: per variant the median microseconds, or None and why (``errors``)."""

    size: dict
    key: dict
    us: list
    errors: dict = field(default_factory=dict)


def measure(module, name: str, params, variants: list[dict], sizes: list[dict], make_args, grid_exprs,
            gpu: Gpu, warmup: int, reps: int, progress=None) -> list[Measurement]:
    """Run and time every variant at every size (steps 2-4 of the module docstring)."""
    import numpy as np

    launcher = getattr(module, name)
    out = []
    for size in sizes:
        host = make_args(size)
        ptrs = {i: gpu.upload(a) for i, (p, a) in enumerate(zip(params, host)) if p.is_pointer}
        saved = {i: gpu.upload(host[i]) for i, p in enumerate(params) if p.is_pointer and not p.readonly}
        args = [ptrs.get(i, v) for i, v in enumerate(host)]
        key = {}

        def restore():
            for i, src in saved.items():
                gpu.copy(ptrs[i], src, host[i].nbytes)

        m = Measurement(size, key, [None] * len(variants))
        reference, reference_index = None, None
        for vi, meta in enumerate(variants):
            grid = None
            if grid_exprs is not None:
                names = dict(size, **meta)
                grid = tuple(int(evaluate(e, names, "grid")) for e in grid_exprs)

            def launch(stream, vi=vi, grid=grid):
                launcher(*args, grid=grid, stream=stream, variant=vi)

            try:
                restore()
                launch(int(gpu.stream))
                gpu.sync()
                results = {}
                for i in saved:
                    a = np.empty_like(host[i])
                    gpu.download(a, ptrs[i])
                    results[i] = a
                if reference is None:
                    reference, reference_index = results, vi
                else:
                    for i, a in results.items():
                        ok, why = outputs_match(reference[i], a, params[i].dtype)
                        if not ok:
                            raise ValueError(f"'{params[i].name}' differs from variant {reference_index}'s: {why}")
                m.us[vi] = gpu.time(launch, restore, warmup, reps)
            except Exception as e:  # a wrong output, or a launch the driver or the launcher refused
                m.errors[vi] = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                if any(w in str(e) for w in _STICKY):  # the context is lost: nothing more can run
                    raise TuneError(f"variant {vi} ({_meta(meta)}) at {size} broke the CUDA context: "
                                    f"{m.errors[vi]}") from None
            if progress is not None:
                progress()
        gpu.free_all()
        out.append(m)
    return out


def table_for(name: str, key: list[str], buckets: dict, variants: list[dict], measurements, text: str,
              source: str, arch: str):
    from ..tuning.table import KernelTable, Table, source_sha256

    kt = KernelTable(list(key), {k: buckets.get(k, "pow2") for k in key}, variants)
    for m in measurements:
        kt.add(m.key, m.us)
    return Table(os.path.basename(source), source_sha256(text), arch, {name: kt})


def run_tuner(source: str, sizes_path: str, output: str, inputs: str | None, options, warps, stages,
              jobs: int | None, use_cache: bool, warmup: int, reps: int, verbose: bool, echo) -> None:
    """The whole ``tritonc-tune`` run; raises TuneError / CompileError / UsageError."""
    import tempfile

    import numpy as np

    from ..driver import read_source
    from ..files import write_atomically

    text, path = read_source(source)
    try:
        sizes_text = Path(sizes_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TuneError(f"{sizes_path}: cannot read the sizes file: {getattr(e, 'strerror', None) or e}") from None
    spec = parse_sizes(sizes_text, sizes_path)
    name, params, retune, has_grid = kernel_facts(text, path, options, options.kernel or spec.kernel)
    key = resolve_key(spec, params, retune, name)
    if not has_grid and spec.grid is None:
        raise TuneError(f"{sizes_path}: kernel '{name}' declares no __grid; give grid = [\"cdiv(N, BLOCK)\", ...] "
                        "in the sizes file")
    make_inputs = load_make_inputs(inputs) if inputs else None
    rng = np.random.default_rng(0)

    def make_args(size):
        if make_inputs is None:
            return host_arguments(params, spec, size, rng)
        try:
            values = make_inputs(dict(size))
        except Exception as e:
            raise TuneError(f"{inputs}: make_inputs({size}) raised {type(e).__name__}: {e}") from None
        return check_inputs(params, values, inputs, size)

    keyed = []
    for size in spec.sizes:  # every size's arguments are checked before anything compiles
        host = make_args(size)
        k = {}
        for kname in key:
            i = next(i for i, p in enumerate(params) if p.name == kname)
            k[kname] = int(host[i])
        keyed.append(k)
    from dataclasses import replace

    module_source, explain = build_variants(text, path, replace(options, kernel=name), warps, stages, jobs,
                                            use_cache)
    if verbose:
        echo(explain.rstrip("\n"))
    try:
        gpu = Gpu()
    except Exception as e:  # no driver library, no GPU
        raise TuneError(f"no usable CUDA GPU here ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                        "tritonc-tune measures on a GPU") from None
    with tempfile.TemporaryDirectory(prefix="tritonc-tune-") as folder:
        module = import_module(module_source, folder)
        variants = [dict(v) for v in getattr(module, name).variants]
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(stderr=True), transient=not sys.stderr.isatty()) as bar:
            task = bar.add_task(f"tuning {name}", total=len(variants) * len(spec.sizes))
            ms = measure(module, name, params, variants, spec.sizes, make_args, spec.grid, gpu, warmup, reps,
                         progress=lambda: bar.advance(task))
    for m, k in zip(ms, keyed):
        m.key = k
        for vi, why in sorted(m.errors.items()):
            echo(f"tritonc-tune: warning: {name} at {m.size}: variant {vi} ({_meta(variants[vi])}) is left out: {why}")
        timed = [(t, i) for i, t in enumerate(m.us) if t is not None]
        if timed:
            t, i = min(timed)
            echo(f"tritonc-tune: {name} at {m.size}: variant id {i} ({_meta(variants[i])}) {t:.1f} us")
    table = table_for(name, key, spec.buckets, variants, ms, text, path, options.arch)
    write_atomically(output, table.dumps())


def _meta(meta: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in meta.items())


def resolve_key(spec: SizesFile, params, retune: list[str], name: str) -> list[str]:
    """The table's key: the kernel's ``__retune`` parameters, else the sizes file's ``key``.

    Raises:
        TuneError: neither, a ``key`` that differs from the ``__retune`` parameters, or a key
            name that is not an integer scalar parameter.
    """
    if retune and spec.key is not None and spec.key != retune:
        raise TuneError(f"{spec.path}: key = {spec.key}, but kernel '{name}' marks {retune} __retune")
    key = retune or spec.key
    if not key:
        raise TuneError(f"{spec.path}: kernel '{name}' has no __retune parameter; name the table's key "
                        "with key = [\"M\", ...] in the sizes file")
    by_name = {p.name: p for p in params}
    for k in key:
        p = by_name.get(k)
        if p is None or p.is_pointer or not p.scalar_type.is_integer or p.dtype == "bool":
            raise TuneError(f"{spec.path}: the key '{k}' is not an integer scalar parameter of '{name}'")
    unknown = sorted(set(spec.buckets) - set(key))
    if unknown:
        raise TuneError(f"{spec.path}: [buckets] names '{unknown[0]}', which is not in the key {key}")
    return list(key)


# ---------------------------------------------------------------------------------------------
# the command line


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--sizes", "sizes", required=True, metavar="SIZES.toml",
              help="The sizes to measure and how to build each argument (docs/tuning.md).")
@click.option("-o", "--output", metavar="TABLE.json", help="The tuning table (default: SOURCE's stem + .tuning.json).")
@click.option("--inputs", metavar="FILE.py", help="A Python file with make_inputs(size: dict) -> list of arguments.")
@click.option("-j", "--jobs", type=int, default=None, metavar="N", help="Processes compiling variants (default: CPUs).")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a preprocessor macro.")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add a directory to the #include path.")
@click.option("--tune", multiple=True, metavar="NAME=a,b,...", help="Candidates of a meta-parameter.")
@click.option("--num-warps", default="auto", metavar="N[,N...]", help="Warps per program instance (a list: variants).")
@click.option("--num-stages", default="auto", metavar="N[,N...]", help="Software-pipelining depths (a list: variants).")
@click.option("--kernel", metavar="NAME", help="The kernel to tune in a file of several.")
@click.option("--arch", default=None, metavar="ARCH", help="Target architecture (default: tritonc's).")
@click.option("--allow-tf32", is_flag=True, help="Let '@' on float operands use TF32 tensor cores.")
@click.option("--warmup", type=int, default=5, show_default=True, help="Untimed repetitions per variant and size.")
@click.option("--reps", type=int, default=30, show_default=True, help="Timed repetitions (the median is kept).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the compile cache.")
@click.option("-v", "--verbose", is_flag=True, help="List the variants and the pruned ones.")
def tune_command(source, sizes, output, inputs, jobs, defines, include_dirs, tune, num_warps, num_stages, kernel,
                 arch, allow_tf32, warmup, reps, no_cache, verbose):
    """Measure every variant of the kernel in SOURCE at the sizes of SIZES.toml on this machine's
    GPU and write a tuning table for `tritonc SOURCE --tuning TABLE.json`."""
    from .. import cli

    options = tune_options(defines, include_dirs, tune, kernel, arch, allow_tf32)
    warps = None if num_warps == "auto" else cli.parse_int_list(num_warps, "--num-warps")
    stages = None if num_stages == "auto" else cli.parse_int_list(num_stages, "--num-stages")
    for w in warps or ():
        if not (1 <= w <= 32 and w & (w - 1) == 0):
            raise click.BadParameter(f"{w} is not a power of two from 1 to 32", param_hint="--num-warps")
    for st in stages or ():
        if st < 1:
            raise click.BadParameter(f"{st} is not a positive number of stages", param_hint="--num-stages")
    if jobs is not None and jobs < 1:
        raise click.BadParameter(f"{jobs} is not a positive number of processes", param_hint="-j")
    if warmup < 0 or reps < 1:
        raise click.BadParameter("--warmup must be >= 0 and --reps >= 1", param_hint="--reps")
    output = output or str(Path(source).with_suffix("").name) + ".tuning.json"
    sources = SourceManager()
    echo = lambda line: click.echo(line, err=True)  # noqa: E731
    try:
        run_tuner(source, sizes, output, inputs, options, warps, stages, jobs, not no_cache, warmup, reps,
                  verbose, echo)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint=e.option) from None
    except CompileError as e:
        click.echo(sources.render(e.diagnostic).replace("tritonc: error", "tritonc-tune: error", 1), err=True)
        sys.exit(1)
    except Exception as e:  # a tritonc bug (or a driver failure outside any variant's run)
        if os.environ.get("TRITONC_TRACEBACK"):
            raise
        click.echo(f"tritonc-tune: internal error: {type(e).__name__}: {e}", err=True)
        click.echo("tritonc-tune: note: TRITONC_TRACEBACK=1 shows the Python traceback", err=True)
        sys.exit(3)


def tune_options(defines, include_dirs, tune, kernel, arch, allow_tf32):
    """The :class:`~tritonc.options.CompileOptions` of a tuner run (click errors for bad values)."""
    from ..options import ARCHS, DEFAULT_ARCH, CompileOptions

    arch = arch or DEFAULT_ARCH
    if arch not in ARCHS:
        raise click.BadParameter(f"'{arch}' is not one of {', '.join(ARCHS)}", param_hint="--arch")
    from .. import cli

    return CompileOptions(defines=dict(cli.parse_define(d) for d in defines), include_dirs=list(include_dirs),
                          tune=dict(cli.parse_tune(t) for t in tune), kernel=kernel, arch=arch,
                          allow_tf32=allow_tf32)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``tritonc-tune``)."""
    try:
        tune_command.main(args=argv, prog_name="tritonc-tune", standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
