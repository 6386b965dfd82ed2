"""group-program-order: the grouped order is a bijection of the 2-D grid (every program
instance runs exactly once) for grids that are and are not multiples of the group size, on the
interpreter and in the simulator; and it applies only where it should."""
from __future__ import annotations

import numpy as np
import pytest

from tritonc.driver import Compilation
from tritonc.interpreter import run_function
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

# Each instance marks its (pid0, pid1) cell; the K loop with a dot makes the pass apply.
MARK = """
__global__ void mark(int *Out, half *A, int gn, int k) {
  int r[16] = 0 ... 16;
  float acc[16, 16] = 0;
  for (int i = 0; i < k; i += 1)
    acc += *(A + r[:, newaxis] * 16 + r[newaxis, :]) @ *(A + r[:, newaxis] * 16 + r[newaxis, :]);
  int one[16, 16] = (int[16, 16]) (acc == acc);
  int first[16] = one[:, max];
  int p = get_program_id(0) * gn + get_program_id(1);
  *?(r < 1)(Out + p + r) = first;
}
"""


@pytest.mark.parametrize("grid", [(13, 5), (8, 8), (3, 17), (1, 1), (20, 2), (9, 1)])
def test_every_program_instance_runs_once(grid):
    comp = Compilation(MARK, CompileOptions(num_warps=1, arch="sm_80"))
    assert any(op.name == "tt.get_num_programs" for op in comp.ttir.functions[0].walk())
    gm, gn = grid
    A = np.ones((16, 16), np.float16)
    out = np.zeros(gm * gn, np.int32)
    run_function(comp.ttir, "mark", grid, [out, A, gn, 1])
    np.testing.assert_array_equal(out, 1)
    if gm * gn <= 40:
        sim = np.zeros(gm * gn, np.int32)
        run_kernel(comp.ttgir, "mark", grid, [sim, A, gn, 1], arch="sm_80")
        np.testing.assert_array_equal(sim, 1)



def test_flag_turns_the_order_off():
    """``-fno-group-program-order`` (CodegenOptions.group_program_order) keeps the hardware order."""
    import dataclasses

    from tritonc.options import CodegenOptions

    on = Compilation(MARK, CompileOptions(num_warps=1, arch="sm_80"))
    off = Compilation(MARK, CompileOptions(num_warps=1, arch="sm_80",
                                           codegen=dataclasses.replace(CodegenOptions(), group_program_order=False)))
    names = lambda comp: [op.name for op in comp.ttir.functions[0].walk()]  # noqa: E731
    assert "tt.get_num_programs" in names(on) and "tt.get_num_programs" not in names(off)
