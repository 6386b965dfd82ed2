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
    ("online_softmax_wrapped_mma_reduce",
     "flash attention's loop (frag_flash_attention) on 8 warps with 16 x 16 tiles: the mma layout "
     "[1, 8] wraps along N, so the row sum cannot reduce on it, but mma propagation put the "
     "reduction's result (reached backward from the loop-carried l_i) in the mma row slice while "
     "its operand stayed blocked (internal compiler error in the reduce lowering)",
     Program(
         source="""\
__global__ void fuzz(half *X4, int s5, int s6, half *K9, half *V10, int n25, int n26, float *OUT27, float *OUT30) {
    int pid = get_program_id(0);
    {
      int rm1[16] = 0 ... 16;
      int rn2[16] = 0 ... 16;
      int rd3[16] = 0 ... 16;
      half *p7[16, 16] = X4 + pid * 256 + rm1[:, newaxis] * s5 + rd3[newaxis, :] * s6;
      half x8[16, 16] = *p7;
      half *pk11[16, 16] = K9 + pid * 256 + rn2[newaxis, :] * 16 + rd3[:, newaxis];
      half *pv12[16, 16] = V10 + pid * 256 + rn2[:, newaxis] * 16 + rd3[newaxis, :];
      float mi13[16] = -F32_INFINITY;
      float li14[16] = 0;
      float acc15[16, 16] = 0;
      for (int n16 = 0; n16 < n25; n16 += 16) {
        half kt17[16, 16] = *pk11;
        half vt18[16, 16] = *pv12;
        float s19[16, 16] = (x8 @ kt17) * 0.125f;
        s19 = (n16 + rn2)[newaxis, :] < n26 ? s19 : -F32_INFINITY;
        float mn20[16] = max(mi13, s19[:, max]);
        float al21[16] = exp(mi13 - mn20);
        float p22[16, 16] = exp(s19 - mn20[:, newaxis]);
        li14 = li14 * al21 + p22[:, +];
        half ph23[16, 16] = p22;
        acc15 = acc15 * al21[:, newaxis] + ph23 @ vt18;
        mi13 = mn20;
        pk11 += 256;
        pv12 += 256;
      }
      float o24[16, 16] = acc15 / li14[:, newaxis];
      int r28[16] = 0 ... 16;
      int r29[16] = 0 ... 16;
      *(OUT27 + pid * 256 + r28[:, newaxis] * 16 + r29[newaxis, :] * 1) = o24;
      int r31[16] = 0 ... 16;
      *(OUT30 + pid * 16 + r31 * 1) = mi13;
    }
}
""",
         kernel="fuzz",
         params=[
             Buffer(name="X4", ctype="half", size=256, init=("grid", -1.0, 1.0, 0.125), check=None),
             Scalar(name="s5", ctype="int", value=16),
             Scalar(name="s6", ctype="int", value=1),
             Buffer(name="K9", ctype="half", size=256, init=("grid", -1.0, 1.0, 0.125), check=None),
             Buffer(name="V10", ctype="half", size=256, init=("grid", -1.0, 1.0, 0.125), check=None),
             Scalar(name="n25", ctype="int", value=16),
             Scalar(name="n26", ctype="int", value=1),
             Buffer(name="OUT27", ctype="float", size=256, init=("poison",), check=("tol", 0.0020024776458740234)),
             Buffer(name="OUT30", ctype="float", size=16, init=("poison",), check=("tol", 7.867813110351562e-06))],
         grid=(1,),
         options={"num_warps": 8, "num_stages": 1, "arch": "sm_80", "specialize": False, "allow_tf32": False},
         features=["attention:online", "load:plain"],
         seed=0),
     None),
]
