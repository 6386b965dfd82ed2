"""The dense forward solver stays linear in loop-nesting depth (memoised block walks)."""
from tritonc.analysis.dataflow import DenseForwardProblem, solve_dense_forward
from tritonc.driver import Compilation
from tritonc.options import CompileOptions


class CountingProblem(DenseForwardProblem):
    """A two-point lattice that changes at every loop's first trip, counting transfers."""

    def __init__(self):
        self.transfers = 0

    def boundary(self, f):
        return frozenset()

    def join(self, a, b):
        return a | b

    def transfer(self, op, before):
        self.transfers += 1
        return before | {op.name}


def nested_whiles(depth: int):
    src = ("__global__ void k(float *Y, int n) {\n  int i = 0;\n" + "  while (i < n) {\n" * depth
           + "  *(Y + i) = 1.0f;\n" + "  i++; }\n" * depth + "}\n")
    return Compilation(src, CompileOptions()).ttir


def transfers(depth: int) -> int:
    problem = CountingProblem()
    solve_dense_forward(problem, nested_whiles(depth))
    return problem.transfers


def test_work_grows_linearly_with_depth():
    small, large = transfers(6), transfers(24)
    # Linear growth gives about 4x for 4x the depth; the unmemoised walk gave about 2^18x.
    assert large < 8 * small, (small, large)
