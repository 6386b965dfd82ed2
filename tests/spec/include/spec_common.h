// Included by tests/spec/test_s2_preprocessor.py through an -I directory.
#ifndef SPEC_COMMON_H
#define SPEC_COMMON_H
#define SCALE 3
__device__ float scaled(float x) {
  return x * SCALE;
}
#endif
