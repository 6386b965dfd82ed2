"""What every ``make gpu-check`` case is made of: :class:`Case` (inputs, launch, reference,
work), ``cdiv``, ``poison`` (poisoned outputs with a guard region) and the small helpers the
case tables share. The Triton versions come from ``benchmarks/triton_ref.py``, hence the
``sys.path`` entry below (the cases import it when they run Triton's side)."""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Callable

from tritonc.tools.examples import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


@dataclass
class Case:
    """One kernel checked at ``check_sizes`` and timed at ``bench_size``.

    ``run(mod, torch, size, which)`` launches the kernel (``which="tritonc"``), the torch
    reference (``"torch"``) or the Triton version (``"triton"``) and returns the output tensors;
    ``inputs(torch, size)`` makes the inputs and poisoned outputs; ``reference`` computes the
    expected outputs; ``work(size)`` is ``(bytes moved, flops)`` for the rate column.
    Kernels that declare a ``__grid`` are launched on it (the launcher computes it from the
    arguments), and every case compiles with the CLI's own warps and stages unless it names them.
    """

    name: str
    example: str
    defines: dict[str, str]
    check_sizes: list[tuple]
    bench_size: tuple
    inputs: Callable
    run: Callable
    reference: Callable
    work: Callable
    tol: float = 1e-5
    tune: dict[str, list[int]] = field(default_factory=dict)
    #: None: the CLI's own choice (``--num-warps auto``: the cost model or the tile rule)
    num_warps: int | None = None
    #: compile with ``--allow-tf32`` (f32 dots on tensor cores with TF32 inputs)
    allow_tf32: bool = False
    #: ``--hint`` problem sizes for the cost model (``M``, ``N``, ``K`` of the bench size's
    #: product), as a user compiling for one problem shape would pass them
    hint: dict[str, int] = field(default_factory=dict)


def poison(torch, shape, dtype, guard=64):
    """A tensor of ``shape`` filled with NaN (float) or -7 (int), with ``guard`` more poisoned
    elements after it in the same allocation; returns (view, whole buffer)."""
    numel = math.prod(shape)
    buf = torch.empty(numel + guard, dtype=dtype, device="cuda")
    buf.fill_(float("nan") if dtype.is_floating_point else -7)
    return buf[:numel].view(shape), buf


def no_triton(name: str):
    raise NotImplementedError(f"no OpenAI Triton version of {name} in benchmarks/triton_ref.py")


def _round_up(x: int, m: int) -> int:
    return cdiv(x, m) * m


def padded(torch, rows: int, cols: int, dtype, mult: int = 8):
    """A random [rows, cols] matrix whose leading dimension is rounded up to ``mult`` (a view)."""
    return torch.randn(rows, _round_up(cols, mult), device="cuda", dtype=dtype)[:, :cols]
