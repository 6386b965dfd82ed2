"""Scalar atomics (a single pointer: program instances synchronise through them) in the PTX and
in the SIMT simulator: each kind with one PTX ``atom`` is thread 0's ``atom.acq_rel.gpu.global``
between two CTA barriers, with no separate fence (codegen/llvm/atomics.py); a kind without one
(float max, float and double exchange) keeps the relaxed atomic between two ``fence.acq_rel.gpu``. The
simulator runs the inline ``atom`` forms; old values and final memory are compared with the
numpy interpreter on the same tile IR, and a spin lock serialises the read-modify-writes of
several CTAs."""
from __future__ import annotations

import re

import numpy as np
import pytest

import tritonc
from tritonc.driver import Compilation
from tritonc.options import CompileOptions
from tritonc.simt import run_kernel

KINDS = """__global__ void kinds(int *I, long *L, float *F, double *D, unsigned int *U, int *OLD, long *LOLD,
                            float *FOLD, double *DOLD, unsigned int *UOLD) {
  int p = get_program_id(0) + 1;
  *(OLD + 0) = atomic_add(I + 0, 5 * p);
  *(OLD + 1) = atomic_xchg(I + 1, 7 * p);
  *(OLD + 2) = atomic_max(I + 2, 3 - 4 * p);
  *(OLD + 3) = atomic_min(I + 3, 9 - 6 * p);
  *(OLD + 4) = atomic_cas(I + 4, 11, 20 + p);
  *(LOLD + 0) = atomic_add(L + 0, (long) p << 33);
  *(LOLD + 1) = atomic_max(L + 1, -((long) p << 35));
  *(FOLD + 0) = atomic_add(F + 0, 0.25f * p);
  *(FOLD + 1) = atomic_max(F + 1, 1.5f * p);
  *(FOLD + 2) = atomic_xchg(F + 2, 2.5f * p);
  *(DOLD + 0) = atomic_xchg(D + 0, 0.125 * p);
  *(UOLD + 0) = atomic_max(U + 0, (unsigned int) (4000000000u - p));
  *(UOLD + 1) = atomic_min(U + 1, (unsigned int) p);
}
"""


def _buffers():
    return [np.array([1, 2, -30, 40, 11], np.int32), np.array([3, -5], np.int64),
            np.array([0.5, -2.0, 1.0], np.float32), np.array([0.75], np.float64),
            np.array([5, 3000000000], np.uint32),
            np.zeros(5, np.int32), np.zeros(2, np.int64), np.zeros(3, np.float32), np.zeros(1, np.float64),
            np.zeros(2, np.uint32)]


def _ptx(src: str, kernel: str) -> str:
    ptx = Compilation(src, CompileOptions(arch="sm_90", num_warps=4), path="t.tri").ptx
    start = ptx.index(f".entry {kernel}(")
    return ptx[start:]


def test_scalar_atomics_are_single_acq_rel_instructions():
    ptx = _ptx(KINDS, "kinds")
    for form in ("add.u32", "exch.b32", "max.s32", "min.s32", "cas.b32", "add.u64", "max.s64", "add.f32",
                 "max.u32", "min.u32"):
        assert re.search(rf"atom\.acq_rel\.gpu\.global\.{re.escape(form)}\b", ptx), form
    # the float max and the float and double exchanges have no acq_rel form here: relaxed, between fences
    assert len(re.findall(r"fence\.acq_rel\.gpu", ptx)) == 6
    assert len(re.findall(r"atom\.acq_rel\.gpu", ptx)) == 10


@pytest.mark.parametrize("grid", [1, 3])
def test_scalar_atomics_simulator_matches_interpreter(grid):
    module = Compilation(KINDS, CompileOptions(arch="sm_90", num_warps=4), path="t.tri").ttgir
    sim, ref = _buffers(), _buffers()
    run_kernel(module, "kinds", (grid,), sim)
    tritonc.interpret(KINDS, "kinds", (grid,), *ref)
    for got, want in zip(sim, ref):
        np.testing.assert_array_equal(got, want)


LOCKED = """__global__ void locked(int *lock, int *counts) {
  int r[64] = 0 ... 64;
  while (atomic_cas(lock, 0, 1) == 1) {}
  *(counts + r) = *(counts + r) + 1 + r;
  atomic_xchg(lock, 0);
}
"""


def test_spin_lock_in_the_simulator():
    module = Compilation(LOCKED, CompileOptions(arch="sm_90", num_warps=4), path="t.tri").ttgir
    lock, counts = np.zeros(1, np.int32), np.zeros(64, np.int32)
    run_kernel(module, "locked", (5,), [lock, counts])
    assert lock[0] == 0
    np.testing.assert_array_equal(counts, 5 * (1 + np.arange(64)))
