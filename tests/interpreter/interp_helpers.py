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


def _ptrs(names_types: list[tuple[str, str]], n: int | None) -> str:
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
    return "\n".join(lines)


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
    setup = _ptrs([(f"x{i}", t) for i, t in enumerate(ts)] + [("o", rt)], None if scalar else n)
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


def tile_type(el: str, shape) -> str:
    return f"{el}[{','.join(map(str, shape))}]"


def offsets(shape, prefix: str = "o") -> tuple[str, str]:
    """IR lines computing the row-major element offsets of a tile of ``shape`` (an i32 tile)
    with make_range, expand_dims, broadcast and arithmetic; returns ``(lines, value name)``."""
    shape = list(shape)
    full = tile_type("i32", shape)
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    lines, acc = [], None
    for i, n in enumerate(shape):
        cur, cur_shape = f"%{prefix}r{i}", [n]
        lines.append(f"    {cur} = tt.make_range {{end = {n}, start = 0}} : i32[{n}]")
        for ax in range(len(shape)):
            if ax == i:
                continue
            cur_shape.insert(ax, 1)
            nxt = f"%{prefix}e{i}_{ax}"
            lines.append(f"    {nxt} = tt.expand_dims {cur} {{axis = {ax}}} : {tile_type('i32', cur_shape)}")
            cur = nxt
        if cur_shape != shape:
            lines.append(f"    %{prefix}b{i} = tt.broadcast {cur} : {full}")
            cur = f"%{prefix}b{i}"
        lines.append(f"    %{prefix}s{i} = arith.constant {{value = {strides[i]}}} : {full}")
        lines.append(f"    %{prefix}m{i} = arith.muli {cur}, %{prefix}s{i} : {full}")
        if acc is None:
            acc = f"%{prefix}m{i}"
        else:
            lines.append(f"    %{prefix}a{i} = arith.addi {acc}, %{prefix}m{i} : {full}")
            acc = f"%{prefix}a{i}"
    return "\n".join(lines), acc


def pointers(ptr: str, el: str, shape, prefix: str) -> tuple[str, str]:
    """IR lines for the pointer tile ``ptr + row-major offsets`` of ``shape``; returns ``(lines, name)``."""
    lines, off = offsets(shape, prefix)
    pt = tile_type(f"ptr<{el}>", shape)
    lines += f"\n    %{prefix}p0 = tt.splat {ptr} : {pt}\n    %{prefix}p = tt.addptr %{prefix}p0, {off} : {pt}"
    return lines, f"%{prefix}p"


def load_tile(ptr: str, el: str, shape, name: str) -> str:
    """IR lines loading a contiguous row-major tile ``%name`` of ``shape`` from ``ptr``."""
    lines, p = pointers(ptr, el, shape, f"{name}_")
    return lines + f"\n    %{name} = tt.load {p} : {tile_type(el, shape)}"


def store_tile(ptr: str, el: str, shape, value: str) -> str:
    """IR lines storing tile ``value`` of ``shape`` contiguously (row-major) at ``ptr``."""
    prefix = value.lstrip("%").replace("#", "_") + "_st"
    lines, p = pointers(ptr, el, shape, prefix)
    return lines + f"\n    tt.store {p}, {value}"
