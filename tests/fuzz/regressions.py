"""Minimised generated programs that once failed a differential run (``make fuzz``), each with
the reason; ``test_regressions.py`` runs them against the interpreter on every executor.

Paste the ``Program(...)`` a failing run prints into :data:`CASES` as ``(id, reason, program,
xfail)``; ``xfail`` is ``None`` once the bug is fixed, else the reason it is still open.
"""
from tritonc.fuzz.program import Buffer, Program, Scalar  # noqa: F401 (used by pasted cases)

CASES: list = [
    ("wgmma_bias_accumulator",
     "@ on wgmma shapes whose accumulator is a broadcast bias row (canonicalize folds `acc = 0; "
     "acc += a @ b; ... acc + bias` into the dot's accumulator): accelerate-matmul put the "
     "accumulator's layout conversion between the operands' local_loads and the dot, so the dot "
     "could not read its operands from shared memory (internal compiler error on sm_90a; the "
     "conversion's scratch also overlapped the A buffer)",
     Program(
         source="""\
__global__ void fuzz(half *X5, int s6, int s7, half *X10, int s11, int s12, float *X15, int s16, float *OUT19) {
    int pid = get_program_id(0);
    {
      int rm1[64] = 0 ... 64;
      int rn2[16] = 0 ... 16;
      int rk3[32] = 0 ... 32;
      half *p8[64, 32] = X5 + pid * 2048 + rm1[:, newaxis] * s6 + rk3[newaxis, :] * s7;
      half x9[64, 32] = *p8;
      half *p13[32, 16] = X10 + pid * 512 + rk3[:, newaxis] * s11 + rn2[newaxis, :] * s12;
      half x14[32, 16] = *p13;
      float acc4[64, 16] = 0;
      acc4 += x9 @ x14;
      float *p17[16] = X15 + pid * 16 + rn2 * s16;
      float x18[16] = *p17;
      int r20[64] = 0 ... 64;
      int r21[16] = 0 ... 16;
      *(OUT19 + pid * 1024 + r20[:, newaxis] * 16 + r21[newaxis, :] * 1) = (acc4 + x18[newaxis, :]);
    }
}
""",
         kernel="fuzz",
         params=[
             Buffer(name="X5", ctype="half", size=2048, init=("grid", -2.0, 2.0, 0.125), check=None),
             Scalar(name="s6", ctype="int", value=32),
             Scalar(name="s7", ctype="int", value=1),
             Buffer(name="X10", ctype="half", size=512, init=("grid", -2.0, 2.0, 0.125), check=None),
             Scalar(name="s11", ctype="int", value=16),
             Scalar(name="s12", ctype="int", value=1),
             Buffer(name="X15", ctype="float", size=16, init=("grid", -2.0, 2.0, 0.125), check=None),
             Scalar(name="s16", ctype="int", value=1),
             Buffer(name="OUT19", ctype="float", size=1024, init=("poison",), check=("tol", 0.0009920597076416016))],
         grid=(1,),
         options={"num_warps": 4, "num_stages": 1, "arch": "sm_90a", "specialize": False, "allow_tf32": False},
         features=["dot:epilogue-bias", "dot:half", "dot:wgmma-shape", "load:plain"],
         seed=0),
     None),
    ("simulator_wide_srem",
     "the SIMT simulator (an executor, not the compiler) divided 64-bit signed integers in float64: "
     "x % 4 of a 62-bit x came out -112",
     Program(
         source="""\
__global__ void fuzz(int n3, long *X5, int s6, int n9, bool *X11, int s12, long *OUT15) {
    int pid = get_program_id(0);
    {
      int r1[1] = 0 ... 1;
      int r2[1] = 0 ... 1;
      bool m4[1, 1] = r1[:, newaxis] < n3;
      long *p7[1] = X5 + pid * 1 + r2 * s6;
      bool m10[1] = r2 < n9;
      long x8[1] = m10 ? *p7 : 0;
      bool *p13[1] = X11 + pid * 1 + r2 * s12;
      bool x14[1] = *p13;
      *(OUT15 + pid * 1 + r1[:, newaxis] * 1 + r2[newaxis, :] * 1) = (x8[newaxis, :] % ((3 & 7) + 1));
    }
}
""",
         kernel="fuzz",
         params=[
             Scalar(name="n3", ctype="int", value=1),
             Buffer(name="X5", ctype="long", size=1, init=("grid", -4611686018427387903, 4611686018427387903, 1),
                    check=None),
             Scalar(name="s6", ctype="int", value=1),
             Scalar(name="n9", ctype="int", value=1),
             Buffer(name="X11", ctype="bool", size=1, init=("grid", 0, 1, 1), check=None),
             Scalar(name="s12", ctype="int", value=1),
             Buffer(name="OUT15", ctype="long", size=1, init=("poison",), check="exact")],
         grid=(1,),
         options={"num_warps": 1, "num_stages": 1, "arch": "sm_80", "specialize": False, "allow_tf32": False},
         features=["elementwise", "load:plain", "load:ternary", "newaxis"],
         seed=0),
     None),
]
