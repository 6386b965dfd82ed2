"""Helpers for the interpreter tests: IR text for small kernels and a one-call runner."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from tritonc.interpreter import run_function
from tritonc.ir.parser import parse_module

IR_TYPE = {
    np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64", np.dtype(np.uint8): "i8", np.dtype(np.uint16): "i16", np.dtype(np.uint32): "i32",
    np.dtype(np.uint64): "i64", np.dtype(np.float16): "f16", np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}


def module(functions: str):
    """Parse ``functions`` (one or more ``tt.func``) wrapped in a module."""
    return parse_module("module {\n" + functions + "\n}\n")


def kernel(params: str, body: str, name: str = "k") -> str:
    return f"  tt.func @{name}({params}) attributes {{kernel}} {{\n{body}\n    tt.return\n  }}"


def run(text: str, grid, *args, name: str = "k", **kw):
    """Parse a module made of ``text`` and run kernel ``name``."""
    return run_function(module(text), name, grid, list(args), **kw)


def _ptrs(names_types: list[tuple[str, str]], n: int | None) -> tuple[str, list[str]]:
    """IR lines that turn pointer params into pointer tiles ``%p_<name>`` over ``0..n``."""
    lines = []
    if n is not None:
        lines.append(f"    %r = tt.make_range {{end = {n}, start = 0}} : i32[{n}]")
    for name, t in names_types:
        if n is None:
            lines.append(f"    %p_{name} = tt.addptr %{name}, %zero : ptr<{t}>")
        else:
            lines.append(f"    %s_{name} = tt.splat %{name} : ptr<{t}>[{n}]")
            lines.append(f"    %p_{name} = tt.addptr %s_{name}, %r : ptr<{t}>[{n}]")
    return "\n".join(lines), []


def apply(op: str, *inputs: np.ndarray, out_dtype=None, attrs: str = "", scalar: bool = False) -> np.ndarray:
    """Run ``%z = op %x0, %x1 ... {attrs} : R`` element-wise over equal-length 1-D ``inputs``.

    ``out_dtype`` (default: the first input's dtype) chooses the result type; unsigned numpy
    dtypes are passed to the signless IR type of their width. ``scalar=True`` applies the op
    to element 0 only, with scalar IR values.
    """
    n = inputs[0].size
    out_dtype = np.dtype(out_dtype or inputs[0].dtype)
    ts = [IR_TYPE[np.dtype(x.dtype)] for x in inputs]
    rt = IR_TYPE[out_dtype]
    shape = "" if scalar else f"[{n}]"
    params = ", ".join(f"%x{i}: ptr<{t}>" for i, t in enumerate(ts)) + f", %o: ptr<{rt}>"
    lines = ["    %zero = arith.constant {value = 0} : i32"]
    setup, _ = _ptrs([(f"x{i}", t) for i, t in enumerate(ts)] + [("o", rt)], None if scalar else n)
    lines.append(setup)
    for i, t in enumerate(ts):
        lines.append(f"    %v{i} = tt.load %p_x{i} : {t}{shape}")
    operands = ", ".join(f"%v{i}" for i in range(len(inputs)))
    attr_text = f" {{{attrs}}}" if attrs else ""
    lines.append(f"    %z = {op} {operands}{attr_text} : {rt}{shape}")
    lines.append("    tt.store %p_o, %z")
    out = np.zeros(n, dtype=out_dtype)
    run(kernel(params, "\n".join(lines)), (1,), *[np.ascontiguousarray(x) for x in inputs], out)
    return out[:1] if scalar else out
