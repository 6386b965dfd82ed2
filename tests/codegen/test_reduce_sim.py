"""Reductions along every axis, at 4, 8 and 16 warps, through the whole compiler and the SIMT
simulator (``reduction_cases.py``), against numpy and against the interpreter.

At 8 and 16 warps the cross-warp combine used a lane butterfly whose partners held different
result elements when the result was spread over lanes (column reductions): 26 of 27 column
results were wrong on the GPU and here (issue 10)."""
from __future__ import annotations

import numpy as np
import pytest

import reduction_cases as R  # tests/codegen is on sys.path
from tritonc.simt import run_kernel
from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions


@pytest.mark.parametrize("num_warps", R.NUM_WARPS)
@pytest.mark.parametrize("case", sorted(R.SHAPES))
def test_reductions_along_every_axis(case, num_warps):
    shape, extent = R.SHAPES[case]
    comp = Compilation(R.source(shape), CompileOptions(num_warps=num_warps, arch="sm_90"))
    args = R.arguments(shape, extent, seed=num_warps)
    run_kernel(comp.ttgir, "red", (1,), args)
    R.check(shape, extent, args)
    interp = R.arguments(shape, extent, seed=num_warps)
    run_function(comp.ttir, "red", (1,), interp)
    for got, want in zip(args[1:], interp[1:]):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
