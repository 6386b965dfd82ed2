"""tritonc.tuning.traffic: the bytes one program instance moves, estimated statically over tt IR
at given argument values (loops counted by their trips, branches the values decide)."""
import pytest

from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.tuning.traffic import program_bytes


def kernel(source: str, **defines):
    comp = Compilation(source, CompileOptions(defines={k: str(v) for k, v in defines.items()}, num_warps=4,
                                              num_stages=3), path="t.tri")
    return next(f for f in comp.frontend_module.functions if f.kind == "kernel")


SOFTMAX = "examples/softmax.tri"


@pytest.mark.parametrize("block, n, moved", [
    (1024, 1000, 2 * 1024 * 4),             # one tile: read once, written once
    (1024, 4096, 3 * 4096 * 4),              # two passes over 4 tiles: read twice, written once
    (4096, 4096, 2 * 4096 * 4),
    (4096, 4097, 3 * 8192 * 4),              # a ragged last tile counts whole
    (16384, 16384, 2 * 16384 * 4),
])
def test_softmax_one_pass_or_two(block, n, moved):
    from pathlib import Path

    f = kernel(Path(SOFTMAX).read_text(), BLOCK=block)
    assert program_bytes(f, {"N": n, "M": 1}) == moved


def test_an_argument_the_problem_does_not_give_is_unknown():
    from pathlib import Path

    f = kernel(Path(SOFTMAX).read_text(), BLOCK=1024)
    assert program_bytes(f, {"M": 4096}) is None


LOOPS = """
__global__ void k(float *X __readonly, float *Y, int N, int S) {
  int r[64] = 0 ... 64;
  for (int i = N; i > 0; i -= S)
    *(Y + r) = *(X + r);
  for (int j = 0; j <= N; j += 16)
    *(Y + r) = 1.0;
}
"""


@pytest.mark.parametrize("n, s, moved", [
    (64, 16, 4 * 512 + 5 * 256),      # i = 64, 48, 32, 16; j = 0, 16, 32, 48, 64
    (0, 16, 256),                      # no trip of the first loop; j = 0
    (15, 4, 4 * 512 + 1 * 256),        # i = 15, 11, 7, 3; j = 0
])
def test_loop_trips_follow_the_predicate(n, s, moved):
    assert program_bytes(kernel(LOOPS), {"N": n, "S": s}) == moved


def test_a_branch_on_a_loaded_value_is_unknown():
    f = kernel("""
__global__ void k(int *F __readonly, float *Y) {
  int r[32] = 0 ... 32;
  if (*F > 0)
    *(Y + r) = 1.0;
}
""")
    assert program_bytes(f, {}) is None


def test_a_while_loop_is_unknown():
    f = kernel("""
__global__ void k(float *Y, int N) {
  int r[32] = 0 ... 32;
  int i = 0;
  while (i < N) {
    *(Y + r) = 1.0;
    i += 1;
  }
}
""")
    assert program_bytes(f, {"N": 4}) is None


def test_program_id_stands_for_the_first_instance():
    f = kernel("""
__global__ void k(float *Y, int N) {
  int r[32] = 0 ... 32;
  if (get_program_id(0) * 32 < N)
    *(Y + r) = 1.0;
}
""")
    assert program_bytes(f, {"N": 1}) == 128
    assert program_bytes(f, {"N": 0}) == 0
