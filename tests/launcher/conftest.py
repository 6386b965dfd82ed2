"""Session fixtures for the launcher tests: the fixture kernels, compiled once."""
from __future__ import annotations

import pytest

from fixture_kernels import SCALAR_ARGS_PARAMS, VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.signature import CompiledKernel


@pytest.fixture(scope="session")
def vector_add_kernel() -> CompiledKernel:
    return make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})


@pytest.fixture(scope="session")
def scalar_args_kernel() -> CompiledKernel:
    return make_kernel("scalar_args", SCALAR_ARGS_PARAMS, num_warps=1)
