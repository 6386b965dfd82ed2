"""Render a kernel's declared grid (``tritonc.frontend.grid``'s nested tuples) as text, C and
Python, and evaluate it (the reference the launchers must agree with).

Semantics: C arithmetic on 64-bit signed integers, division and ``%`` truncating toward zero,
``cdiv(a, b) = (a + b - 1) / b``, comparisons and ``&& || !`` giving 0 or 1. A division by
zero, or a shift by a negative count or by 64 or more, makes the grid invalid: the C launcher
refuses the launch (``CUDA_ERROR_INVALID_VALUE``, ``<kernel>_last_error()`` says why), the
Python launcher raises ``ValueError``, :func:`evaluate_grid` raises ``ValueError``.
"""
from __future__ import annotations

from collections.abc import Mapping

_PRECEDENCE_FREE = ("int", "arg", "cdiv", "min", "max")

#: C helper functions the rendered C expressions call, with the names of the rendered code.
C_HELPERS = {"/": "tritonc_grid_div", "%": "tritonc_grid_mod", "cdiv": "tritonc_grid_cdiv",
             "<<": "tritonc_grid_shl", ">>": "tritonc_grid_shr", "min": "tritonc_grid_min", "max": "tritonc_grid_max"}

#: Python helpers of the launch runtime (``_launch_runtime.py``) for the same operations.
PY_HELPERS = {"/": "_grid_div", "%": "_grid_mod", "cdiv": "_grid_cdiv", "<<": "_grid_shl", ">>": "_grid_shr",
              "min": "_grid_min", "max": "_grid_max"}


def grid_text(grid: tuple) -> str:
    """``cdiv(M, 128), cdiv(N, 256)``: the grid in Triton-C syntax (tunables as their values)."""
    return ", ".join(_text(d) for d in grid)


def _text(e: tuple) -> str:
    op = e[0]
    if op == "int":
        return str(e[1])
    if op == "arg":
        return e[1]
    if op in ("cdiv", "min", "max"):
        return f"{op}({_text(e[1])}, {_text(e[2])})"
    if op in ("neg", "not", "inv"):
        return {"neg": "-", "not": "!", "inv": "~"}[op] + _paren(_text, e[1])
    if op == "?:":
        return f"{_paren(_text, e[1])} ? {_paren(_text, e[2])} : {_paren(_text, e[3])}"
    return f"{_paren(_text, e[1])} {op} {_paren(_text, e[2])}"


def _paren(render, e: tuple) -> str:
    s = render(e)
    return s if e[0] in _PRECEDENCE_FREE else f"({s})"


def grid_c(e: tuple, cnames: Mapping[str, str], bad: str = "&tritonc_bad") -> str:
    """One grid dimension as a C ``long long`` expression; parameters by their C names
    (``cnames``); helpers from :data:`C_HELPERS` get ``bad`` (an ``int *``) to flag an invalid
    grid."""
    op = e[0]
    if op == "int":
        return f"{e[1]}LL"
    if op == "arg":
        return f"(long long){cnames[e[1]]}"
    if op in ("min", "max"):
        return f"{C_HELPERS[op]}({grid_c(e[1], cnames, bad)}, {grid_c(e[2], cnames, bad)})"
    if op in C_HELPERS:
        return f"{C_HELPERS[op]}({grid_c(e[1], cnames, bad)}, {grid_c(e[2], cnames, bad)}, {bad})"
    if op in ("neg", "not", "inv"):
        return "(" + {"neg": "-", "not": "(long long)!", "inv": "~"}[op] + f"({grid_c(e[1], cnames, bad)}))"
    if op == "?:":
        return f"(({grid_c(e[1], cnames, bad)}) ? ({grid_c(e[2], cnames, bad)}) : ({grid_c(e[3], cnames, bad)}))"
    if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        return f"(long long)(({grid_c(e[1], cnames, bad)}) {op} ({grid_c(e[2], cnames, bad)}))"
    return f"(({grid_c(e[1], cnames, bad)}) {op} ({grid_c(e[2], cnames, bad)}))"


def c_helper_definitions() -> list[str]:
    """The C helpers of :data:`C_HELPERS`, guarded so several headers can define them once."""
    return [
        "#ifndef TRITONC_GRID_V1",
        "#define TRITONC_GRID_V1",
        "/* Grid arithmetic of declared grids: C's on long long; *bad is set for a division by zero",
        " * or a shift count outside 0..63 (the launch is then refused). */",
        "static inline long long tritonc_grid_div(long long a, long long b, int *bad)",
        "{ if (b == 0) { *bad = 1; return 0; } return a / b; }",
        "static inline long long tritonc_grid_mod(long long a, long long b, int *bad)",
        "{ if (b == 0) { *bad = 1; return 0; } return a % b; }",
        "static inline long long tritonc_grid_cdiv(long long a, long long b, int *bad)",
        "{ if (b == 0) { *bad = 1; return 0; } return (a + b - 1) / b; }",
        "static inline long long tritonc_grid_shl(long long a, long long n, int *bad)",
        "{ if (n < 0 || n > 63) { *bad = 1; return 0; } return (long long)((unsigned long long)a << n); }",
        "static inline long long tritonc_grid_shr(long long a, long long n, int *bad)",
        "{ if (n < 0 || n > 63) { *bad = 1; return 0; } return a >> n; }",
        "static inline long long tritonc_grid_min(long long a, long long b) { return a < b ? a : b; }",
        "static inline long long tritonc_grid_max(long long a, long long b) { return a > b ? a : b; }",
        "#endif",
    ]


def grid_py(e: tuple, names: Mapping[str, str]) -> str:
    """One grid dimension as a Python expression over ``int(<argument>)``; helpers are the
    launch runtime's (:data:`PY_HELPERS`)."""
    op = e[0]
    if op == "int":
        return str(e[1])
    if op == "arg":
        return f"int({names[e[1]]})"
    if op in PY_HELPERS:
        return f"{PY_HELPERS[op]}({grid_py(e[1], names)}, {grid_py(e[2], names)})"
    if op == "neg":
        return f"(-{grid_py(e[1], names)})"
    if op == "inv":
        return f"(~{grid_py(e[1], names)})"
    if op == "not":
        return f"int(not {grid_py(e[1], names)})"
    if op == "?:":
        return f"({grid_py(e[2], names)} if {grid_py(e[1], names)} else {grid_py(e[3], names)})"
    if op == "&&":
        return f"int(bool({grid_py(e[1], names)}) and bool({grid_py(e[2], names)}))"
    if op == "||":
        return f"int(bool({grid_py(e[1], names)}) or bool({grid_py(e[2], names)}))"
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return f"int({grid_py(e[1], names)} {op} {grid_py(e[2], names)})"
    return f"({grid_py(e[1], names)} {op} {grid_py(e[2], names)})"


def _div(a: int, b: int) -> int:
    if b == 0:
        raise ValueError("the grid divides by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _shift_count(n: int) -> int:
    if not 0 <= n <= 63:
        raise ValueError(f"the grid shifts by {n} (0..63 allowed)")
    return n


def _wrap(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def evaluate_grid(grid: tuple, args: Mapping[str, int]) -> tuple[int, ...]:
    """The grid's value for the kernel arguments ``args`` (by parameter name), C semantics.

    Raises:
        ValueError: a division by zero or a shift count outside 0..63.
    """
    return tuple(_eval(d, args) for d in grid)


def _eval(e: tuple, args: Mapping[str, int]) -> int:
    op = e[0]
    if op == "int":
        return e[1]
    if op == "arg":
        return int(args[e[1]])
    if op == "?:":
        return _eval(e[2], args) if _eval(e[1], args) else _eval(e[3], args)
    if op == "&&":
        return int(bool(_eval(e[1], args)) and bool(_eval(e[2], args)))
    if op == "||":
        return int(bool(_eval(e[1], args)) or bool(_eval(e[2], args)))
    if op in ("neg", "not", "inv"):
        v = _eval(e[1], args)
        return _wrap({"neg": -v, "not": int(not v), "inv": ~v}[op])
    a, b = _eval(e[1], args), _eval(e[2], args)
    if op == "/":
        return _wrap(_div(a, b))
    if op == "%":
        return _wrap(a - b * _div(a, b))
    if op == "cdiv":
        return _wrap(_div(a + b - 1, b))
    if op == "<<":
        return _wrap(a << _shift_count(b))
    if op == ">>":
        return a >> _shift_count(b)
    binary = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "&": lambda: a & b, "|": lambda: a | b,
              "^": lambda: a ^ b, "<": lambda: int(a < b), "<=": lambda: int(a <= b), ">": lambda: int(a > b),
              ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
              "min": lambda: min(a, b), "max": lambda: max(a, b)}
    return _wrap(binary[op]())
