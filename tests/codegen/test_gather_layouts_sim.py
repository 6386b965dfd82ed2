"""Coalesced default layouts for gathers (``transforms/coalesce.py``, issue 16 item 2): the
generic kernels of ``examples/permute.tri`` (all strides run-time ints, so no contiguity is
proven) put consecutive lanes along each access's innermost axis, and give the same results as
the interpreter in the SIMT simulator, with unit and with other strides."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel
from tritonc.tools.examples import by_name

T = (2, 16, 16)


def generic(kernel: str) -> Compilation:
    example = by_name("permute")
    return Compilation(example.path, CompileOptions(arch="sm_90", kernel=kernel, defines=example.defines,
                                                    specialize=False, num_warps=4))


def memory_layouts(comp: Compilation) -> list:
    (f,) = comp.ttgir.functions
    return [(op.name, op.operands[0].type.layout) for op in f.walk() if op.name in ("tt.load", "tt.store")]


@pytest.mark.parametrize("kernel", ["copy3d", "permute_201"])
def test_gathers_put_lanes_along_the_innermost_axis(kernel):
    for name, layout in memory_layouts(generic(kernel)):
        assert layout.order[0] == 2, (name, layout)
        assert layout.size_per_thread == (1, 1, 1) and layout.threads_per_warp[2] == 16, (name, layout)


def run_both(comp, kernel, shape, sx, sy_shape, sy):
    rng = np.random.default_rng(1)
    size_x = 1 + sum((n - 1) * s for n, s in zip(shape, sx))
    size_y = 1 + sum((n - 1) * s for n, s in zip(sy_shape, sy))
    args = [np.full(size_y, -3.0, np.float32), rng.standard_normal(size_x).astype(np.float32),
            *[np.int32(n) for n in shape], *[np.int32(s) for s in sx], *[np.int32(s) for s in sy]]
    grid = tuple(-(-n // t) for n, t in zip(shape, T))
    sim = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_kernel(comp.ttgir, kernel, grid, sim, arch="sm_90")
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    run_function(comp.frontend_module, kernel, grid, ref)
    np.testing.assert_array_equal(sim[0], ref[0])
    return ref


@pytest.mark.parametrize("shape,sx,sy", [
    ((3, 17, 20), (340, 20, 1), (340, 20, 1)),     # contiguous, unit strides at run time
    ((3, 17, 20), (1, 3, 51), (680, 40, 2)),       # axes permuted in memory, gaps
])
def test_copy3d_generic_in_the_simulator(shape, sx, sy):
    ref = run_both(generic("copy3d"), "copy3d", shape, sx, shape, sy)
    idx = np.indices(shape).reshape(3, -1)
    np.testing.assert_array_equal(ref[0][np.dot(sy, idx)], ref[1][np.dot(sx, idx)])


@pytest.mark.parametrize("shape,sx", [((3, 17, 20), (340, 20, 1)), ((4, 5, 33), (1, 4, 20))])
def test_permute_201_generic_in_the_simulator(shape, sx):
    d0, d1, d2 = shape
    sy = (d0 * d1, d1, 1)  # Y[d2, d0, d1], contiguous
    ref = run_both(generic("permute_201"), "permute_201", shape, sx, (d2, d0, d1), sy)
    x = np.lib.stride_tricks.as_strided(ref[1], shape, [s * 4 for s in sx])
    np.testing.assert_array_equal(ref[0][:d0 * d1 * d2].reshape(d2, d0, d1), x.transpose(2, 0, 1))
