"""The inputs of ``tritonc-tune`` (:mod:`tritonc.tools.tune`): the sizes file, the arguments
each size is measured with, and the check of each variant's outputs.

* :func:`parse_sizes` reads a sizes file (TOML; the format is in docs/tuning.md, "Tuning on a
  GPU") into a :class:`SizesFile`: the sizes (``NAME = integer``), each parameter's value or
  pointer description (:class:`PointerArg`), the key, its buckets and the grid.
* :func:`evaluate` computes the expressions of the sizes file (integers, sizes, ``+ - * // %``,
  ``cdiv``, ``min``, ``max``) with :mod:`ast`; nothing else is evaluated.
* :func:`host_arguments` builds one size's host arguments from the sizes file (a numpy array per
  pointer parameter, its element count covering every address its shape and strides reach; a
  number per scalar); :func:`load_make_inputs` and :func:`check_inputs` take them from the
  ``make_inputs(size)`` of an ``--inputs`` file instead.
* :func:`outputs_match` compares a variant's output with the reference variant's (relative
  tolerance by element type, :data:`RTOL`; integers and bools exactly).

numpy (and ml_dtypes, for bfloat16) is imported when arguments are built, not with the module.

Errors: every defect of the inputs (a TOML syntax error at its line and column, a field of the
wrong shape, an expression that is not allowed, a parameter described nowhere or as the wrong
kind, an ``--inputs`` file that cannot run or returns the wrong arguments) raises
:class:`TuneError`, which ``tritonc-tune`` reports as a diagnostic with exit status 1.
"""
from __future__ import annotations

import ast
import math
import os
import re
from dataclasses import dataclass, field

from ..diagnostics import CompileError, SourceLoc

#: Relative tolerance of the output check per element type; the absolute tolerance is
#: ``rtol * max(1, max |reference|)``. Integers and bools must match exactly.
RTOL = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-3, "float64": 1e-9}


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


def numpy_dtype(name: str):
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
        dt = numpy_dtype(p.dtype)
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
            if not isinstance(v, np.ndarray) or v.dtype != numpy_dtype(p.dtype):
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

