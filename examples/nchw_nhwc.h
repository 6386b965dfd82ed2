// The batched transposes between NCHW and channels-last tensors that the convolution examples
// launch around their implicit GEMMs (examples/conv2d.tri, examples/conv2d_nchw.tri). A program
// instance moves a TC x TP tile (channels x pixels) of one image, on the grid
// (cdiv(pixels, TP), cdiv(channels, TC), images), both sides coalesced as in
// examples/transpose.tri. The including file defines TYPE and the tunables TC and TP.
#ifndef NCHW_NHWC_H
#define NCHW_NHWC_H

// This program instance's tile: image b, channels rc, pixels rp.
#define CP_TILE                                                                                 \
  int b = get_program_id(2);                                                                    \
  int rc[TC] = get_program_id(1) * TC + 0 ... TC;                                               \
  int rp[TP] = get_program_id(0) * TP + 0 ... TP;

// The split-K convolutions' last launch: their program instances add partial tiles into a float
// workspace Ws [NB, PQ, K] in channels-last order (a thread's 4 adjacent floats are one vector
// add, red.global.add.v4.f32), which this kernel transposes into NCHW Y [NB, K, PQ] (dense),
// rounded to TYPE.
__grid(cdiv(PQ, TP), cdiv(K, TC), NB)
__global__ void nhwc_to_nchw(TYPE *Y __noalias __writeonly __aligned(16),
                             float *Ws __noalias __readonly __aligned(16), int K, int PQ, int NB) {
  CP_TILE
  bool check[TP, TC] = rp[:, newaxis] < PQ && rc[newaxis, :] < K;
  float w[TP, TC] = check ? *(Ws + b * PQ * K + rp[:, newaxis] * K + rc[newaxis, :]) : 0;
  TYPE y[TC, TP] = ^w;
  bool check_t[TC, TP] = ^check;
  *?(check_t) (Y + b * K * PQ + rc[:, newaxis] * PQ + rp[newaxis, :]) = y;
}

#endif
