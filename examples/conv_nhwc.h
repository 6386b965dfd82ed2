// Implicit-GEMM convolution on a channels-last (NHWC) input with KRSC filters: the macros that
// examples/conv2d_nhwc.tri and examples/conv2d_nchw.tri share (see conv2d_nhwc.tri for the
// algorithm). The including file defines TYPE and the tunables TM, TN and TK.
#ifndef CONV_NHWC_H
#define CONV_NHWC_H

// The tile's rows (output pixels) and columns (filters), the input pixel each row's window
// starts at (may lie in the padding), and the reduction's length in steps: R*S taps (r, s),
// cdiv(C, TK) channel slices [c0, c0 + TK) each, the channels fastest.
#define CONV_TILE                                                                               \
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;                                               \
  int rn[TN] = get_program_id(1) * TN + 0 ... TN;                                               \
  int rk[TK] = 0 ... TK;                                                                        \
  int rq[TM] = rm % Q;                                                                          \
  int rnp[TM] = rm / Q;                                                                         \
  int rp[TM] = rnp % P;                                                                         \
  int rb[TM] = rnp / P;                                                                         \
  int rh0[TM] = rp * stride_h - pad_h;                                                          \
  int rw0[TM] = rq * stride_w - pad_w;                                                          \
  TYPE *pa0[TM] = X + ((rb * H + rh0) * Wd + rw0) * C;                                          \
  TYPE *pb0[TN] = W + rn * (R * S * C);                                                         \
  bool checkm[TM] = rm < M;                                                                     \
  bool checkn[TN] = rn < N;                                                                     \
  int slices = (C + TK - 1) / TK;                                                               \
  int steps = R * S * slices;

// acc += the steps [t0, t1) of the reduction, starting at tap (r, s) and channel c0; (r, s, c0)
// are carried from step to step (no division in the loop).
#define CONV_STEPS(t0, t1)                                                                      \
  for (int t = t0; t < t1; t++) {                                                               \
    int rh[TM] = rh0 + r;                                                                       \
    int rw[TM] = rw0 + s;                                                                       \
    bool checka[TM] = checkm && rh >= 0 && rh < H && rw >= 0 && rw < Wd;                        \
    bool checkc[TK] = c0 + rk < C;                                                              \
    TYPE a[TM, TK] = checka[:, newaxis] && checkc[newaxis, :]                                   \
                         ? *(pa0[:, newaxis] + ((r * Wd + s) * C + c0) + rk[newaxis, :]) : 0;   \
    TYPE b[TK, TN] = checkn[newaxis, :] && checkc[:, newaxis]                                   \
                         ? *(pb0[newaxis, :] + ((r * S + s) * C + c0) + rk[:, newaxis]) : 0;    \
    acc += a @ b;                                                                               \
    bool next_tap = c0 + TK >= C;                                                               \
    bool next_row = next_tap && s + 1 == S;                                                     \
    c0 = next_tap ? 0 : c0 + TK;                                                                \
    s = next_row ? 0 : next_tap ? s + 1 : s;                                                    \
    r = next_row ? r + 1 : r;                                                                   \
  }

// Split-K: the share of the reduction that program instance get_program_id(2) of SPLITK takes,
// the steps [t0, t1), and the tap (r, s) and channel slice c0 its first step is at.
#define CONV_SPLITK_SHARE                                                                       \
  int share = (steps + SPLITK - 1) / SPLITK;                                                    \
  int t0 = get_program_id(2) * share;                                                           \
  int t1 = min(steps, t0 + share);                                                              \
  int tap = t0 / slices;                                                                        \
  int c0 = (t0 - tap * slices) * TK;                                                            \
  int r = tap / S;                                                                              \
  int s = tap - r * S;

#define CONV_PARAMETERS                                                                         \
  /* the equivalent matrix product's M = N*P*Q and N = K */                                     \
  int M, int N,                                                                                 \
  /* the problem shape: channels, input height and width, filter height and width, output */   \
  /* height and width */                                                                        \
  int C, int H, int Wd, int R, int S, int P, int Q,                                             \
  /* convolution parameters */                                                                  \
  int stride_h, int stride_w, int pad_h, int pad_w

// The split-K kernel (examples/conv2d_nhwc.tri's conv2d_nhwc_splitk, conv2d_nchw.tri's
// conv2d_nchw_splitk): SPLITK program instances share each TM x TN tile of Y [M, N]
// (channels-last, row major, float) and add their partial tiles to it with fp32 atomic adds;
// Y must hold 0 before the launch. The including file defines the tunable SPLITK.
#define CONV_SPLITK_KERNEL(name)                                                                \
  __grid(cdiv(M, TM), cdiv(N, TN), SPLITK)                                                      \
  __global__ void name(TYPE *X __noalias __readonly __aligned(16),                              \
                       TYPE *W __noalias __readonly __aligned(16),                              \
                       float *Y __noalias __aligned(16), CONV_PARAMETERS) {                     \
    CONV_TILE                                                                                   \
    CONV_SPLITK_SHARE                                                                           \
    float acc[TM, TN] = 0;                                                                      \
    CONV_STEPS(t0, t1)                                                                          \
    atomic_add(Y + rm[:, newaxis] * N + rn[newaxis, :], acc, checkm[:, newaxis] && checkn[newaxis, :]); \
  }

#endif
