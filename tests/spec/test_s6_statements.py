"""Spec section 6, statements: blocks, if/else, for (canonical and not), while, do/while, break,
continue, return, loop-carried tiles, and the paper's predicated statement `@mask stmt;` for
stores, load-assignments and atomics. Rejections (tile conditions, goto/switch/asm) are in
test_diagnostics.py."""
import numpy as np

from spec_helpers import Rule, fixed, randint, randn, spec_tests, zeros

f32, i32 = np.float32, np.int32
IDX = "#define IDX2(M, N) ((0 ... M)[:, newaxis] * N + (0 ... N)[newaxis, :])\n"


def _collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


RULES = [
    Rule("if_else_scalars_and_tiles_in_branches", """
__global__ void k(int *Out, float *F, int n) {
  int r[8] = 0 ... 8;
  float x[8] = 0;
  int tag;
  if (n < 0) {
    tag = -1;
    x = x - 1.0f;
  } else if (n == 0) {
    tag = 0;
  } else {
    tag = 1;
    if (n > 10) tag = 2;
    x = (float[8]) r;
  }
  *Out = tag;
  *(F + r) = x;
}""", args=lambda: [zeros(1, dtype=i32), zeros(8), 20], expect=lambda a: {0: [2], 1: np.arange(8)},
         ir="CHECK: scf.if\nCHECK: scf.if\nCHECK: scf.yield", gpu=True),
    Rule("for_canonical_is_scf_for", """
__global__ void k(int *Out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i;
  int t = 0;
  for (int j = n; j > 0; j -= 3) t += j;
  unsigned u = 0;
  for (unsigned k = 10; k != 0; --k) u += k;
  *Out = s; *(Out + 1) = t; *(Out + 2) = u;
}""", args=lambda: [zeros(3, dtype=i32), 10], expect=lambda a: {0: [45, 10 + 7 + 4 + 1, 55]},
         ir='CHECK: scf.for {{.*}}predicate = "slt"\nCHECK: scf.for {{.*}}predicate = "sgt"\nCHECK: scf.for', gpu=True),
    Rule("for_general_forms", """
__global__ void k(int *Out, int n) {
  int a = 0;
  for (int i = 0; i * i < n; i += 3) a += 1;
  int b = 0, i, j;
  for (i = 0, j = 10; i < j; i++, j--) b += j - i;
  int c = 0;
  for (;;) {
    c += 2;
    if (c > 7) break;
  }
  *Out = a; *(Out + 1) = b; *(Out + 2) = c; *(Out + 3) = i;
}""", args=lambda: [zeros(4, dtype=i32), 50], expect=lambda a: {0: [3, 10 + 8 + 6 + 4 + 2, 8, 5]},
         ir="CHECK: scf.while", gpu=True),
    Rule("while_and_do_while", """
__global__ void k(int *Out, int n) {
  int steps = 0, v = n;
  while (v != 1) {
    if (v % 2 == 0) v = v / 2; else v = 3 * v + 1;
    steps++;
  }
  int once = 0;
  do { once++; } while (once > 100);
  int d = 0;
  do d += 5; while (d < 12);
  *Out = steps; *(Out + 1) = once; *(Out + 2) = d;
}""", args=lambda: [zeros(3, dtype=i32), 27], expect=lambda a: {0: [_collatz(27), 1, 15]},
         ir="CHECK: scf.while\nCHECK: scf.while\nCHECK: scf.while", gpu=True),
    Rule("break_and_continue", """
__global__ void k(int *Out, int *X) {
  int s = 0;
  for (int i = 0; i < 16; i++) {
    int x = *(X + i);
    if (x < 0) continue;
    if (x > 90) break;
    s += x;
  }
  int w = 0, k = 0;
  while (1) {
    k++;
    if (k % 2) continue;
    w += k;
    if (k >= 10) break;
  }
  int steps = 0;
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 5; j++) {
      if (j > i) break;
      steps++;
    }
  }
  *Out = s; *(Out + 1) = w; *(Out + 2) = steps;
}""", args=fixed(zeros(3, dtype=i32), np.array([5, -3, 7, 1, -1, 95, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0], i32)),
         expect=lambda a: {0: [13, 30, 15]}, ir="CHECK: scf.while\nCHECK: scf.while", gpu=True),
    Rule("do_while_break_and_continue", """
__global__ void k(int *Out) {
  int i = 0, s = 0;
  do {
    i++;
    if (i % 2) continue;
    if (i > 8) break;
    s += i;
  } while (i < 100);
  *Out = s; *(Out + 1) = i;
}""", args=lambda: [zeros(2, dtype=i32)], expect=lambda a: {0: [20, 10]}, ir="CHECK: scf.while", gpu=True),
    Rule("return_from_kernel_and_loop", """
__global__ void k(int *Out, int n) {
  *Out = 1;
  for (int i = 0; i < 10; i++) {
    if (i == n) return;
    *(Out + 1 + i) = i;
  }
  *(Out + 11) = 99;
  if (n < 0) return;
  *(Out + 12) = 7;
}""", args=lambda: [np.full(13, -1, i32), 4], expect=lambda a: {0: [1, 0, 1, 2, 3] + [-1] * 8},
         ir="CHECK: scf.if", gpu=True),
    Rule("return_then_rest_runs_when_not_taken", """
__global__ void k(int *Out, int n) {
  *Out = 1;
  for (int i = 0; i < 10; i++) {
    if (i == n) return;
    *(Out + 1 + i) = i;
  }
  *(Out + 11) = 99;
  if (n < 0) return;
  *(Out + 12) = 7;
}""", args=lambda: [np.full(13, -1, i32), 100], expect=lambda a: {0: [1] + list(range(10)) + [99, 7]},
         ir="CHECK: scf.while\nCHECK: scf.if"),
    Rule("loop_carried_tiles", IDX + """
__global__ void k(float *X, float *Out, int *I) {
  float acc[4, 8] = 0;
  float *px[4, 8] = X + IDX2(4, 8);
  int cnt[8] = 0;
  for (int i = 0; i < 3; i++) {
    float x[4, 8] = *px;
    acc += x;
    cnt = cnt + (x[+, :] > 0);
    px += 32;
  }
  *(Out + IDX2(4, 8)) = acc;
  *(I + (0 ... 8)) = cnt;
}""", args=fixed(randn(3, 4, 8), zeros(4, 8), zeros(8, dtype=i32)),
         expect=lambda a: {1: a[0].astype(np.float64).sum(0), 2: (a[0].sum(1) > 0).sum(0)}, rtol=1e-6, atol=1e-6,
         ir="CHECK: scf.for {{.*}} : f32[4,8], ptr<f32>[4,8], i32[8]", gpu=True),
    Rule("while_and_do_carry_tiles", """
__global__ void k(float *X, int n) {
  int r[16] = 0 ... 16;
  float x[16] = *(X + r);
  int i = 0;
  while (i < n) {
    x = x * 2.0f;
    i++;
  }
  do {
    x = x + 1.0f;
  } while (i-- > n);
  *(X + r) = x;
}""", args=fixed(randn(16), 3), expect=lambda a: {0: a[0] * 8 + 1}, ir="CHECK: scf.while {{.*}} : f32[16]", gpu=True),
    Rule("predicated_store", """
__global__ void k(float *Y, int n) {
  int r[16] = 0 ... 16;
  bool m[16] = r < n;
  @m *(Y + r) = 2.0f;
  @(n > 3) *Y = 7.0f;
}""", args=lambda: [np.full(10, -1, f32), 10], expect=lambda a: {0: [7.0] + [2.0] * 9},
         ir="CHECK: tt.store {{%[0-9]+}}, {{%[0-9]+}}, %m\nCHECK: tt.store %Y, {{%[0-9]+}}, {{%[0-9]+}}", gpu=True),
    Rule("predicated_load_assignment_keeps_old_value", """
__global__ void k(float *X, float *Y, int n) {
  int r[16] = 0 ... 16;
  bool m[16] = r < n;
  float a[16] = -5.0f;
  float *pa[16] = X + r;
  @m a = *pa;
  *(Y + r) = a;
}""", args=fixed(randn(10), zeros(16), 10), expect=lambda a: {1: np.concatenate([a[0], -5 * np.ones(6)])},
         ir="CHECK: %a = arith.constant {value = -5.0}\nCHECK: %a_1 = tt.load %pa, %m, %a", gpu=True),
    Rule("predicated_load_with_scalar_predicate", """
__global__ void k(float *X, float *Y, int n) {
  int r[16] = 0 ... 16;
  float a[16] = 5.0f;
  @(n > 0) a = *(X + r);
  *(Y + r) = a;
}""", args=lambda: [None, zeros(16), 0], expect=lambda a: {1: 5 * np.ones(16)}, ir="CHECK: tt.load {{.*}}, %a"),
    Rule("predicated_compound_assignment_to_memory", """
__global__ void k(float *Y, int n) {
  int r[16] = 0 ... 16;
  @(r < n) *(Y + r) += 1.0f;
  *?(r < n) (Y + r) *= 3.0f;
}""", args=fixed(np.ones(4, f32), 4), expect=lambda a: {0: 6 * np.ones(4)},
         ir="CHECK: tt.load {{.*}}, {{.*}}\nCHECK: tt.store {{.*}}, {{.*}}, {{.*}}\nCHECK: tt.load {{.*}}, {{.*}}\n"
            "CHECK: tt.store {{.*}}, {{.*}}, {{.*}}"),
    Rule("predicate_is_a_postfix_expression", IDX + """
__global__ void k(float *C, int M, int N) {
  int rm[8] = 0 ... 8;
  int rn[8] = 0 ... 8;
  bool checkc[8, 8] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  float c[8, 8] = (float[8, 8]) (rm[:, newaxis] * 8 + rn[newaxis, :]);
  @checkc *(C + rm[:, newaxis] * N + rn[newaxis, :]) = c;
  bool rows[8] = rm < M;
  @rows[:, newaxis] *(C + 64 + rm[:, newaxis] * 8 + rn[newaxis, :]) = 1.0f;
}""", args=lambda: [np.full(128, -1, f32), 5, 6],
         expect=lambda a: {0: np.concatenate([_pred_ref(5, 6), np.where(np.arange(64) // 8 < 5, 1.0, -1.0)])},
         ir="CHECK: tt.store {{.*}}, %checkc\nCHECK: tt.expand_dims %rows\nCHECK: tt.store", gpu=True),
    Rule("predicated_atomic_and_matmul_statement", IDX + """
__global__ void k(float *A, float *C, float *S) {
  float a[16, 16] = *(A + IDX2(16, 16));
  bool diag[16, 16] = (0 ... 16)[:, newaxis] == (0 ... 16)[newaxis, :];
  float c[16, 16] = 0;
  @diag c = a @ a;
  *(C + IDX2(16, 16)) = c;
  int r[16] = 0 ... 16;
  @(r % 2 == 0) atomic_add(S + r, 1.0f);
}""", args=fixed(randn(16, 16), zeros(16, 16), zeros(16)),
         expect=lambda a: {1: np.where(np.eye(16, dtype=bool), a[0].astype(np.float64) @ a[0], 0),
                           2: (np.arange(16) % 2 == 0) * 1.0}, rtol=1e-5, atol=1e-5,
         ir="CHECK: tt.dot\nCHECK: arith.select %diag\nCHECK: tt.atomic_rmw {{.*}}, {{.*}}, {{.*}} {kind = \"fadd\"}",
         gpu=True),
    Rule("empty_statements_and_blocks", """
__global__ void k(int *Out) {
  ;
  {}
  { ; { int a = 3; *Out = a; } }
  for (int i = 0; i < 3; i++);
  if (1) ; else *Out = 5;
}""", args=lambda: [zeros(1, dtype=i32)], expect=lambda a: {0: [3]},
         ir="CHECK: %a = arith.constant {value = 3} : i32\nCHECK-NEXT: tt.store %Out, %a\nCHECK-NOT: tt.store"),
]


def _pred_ref(M, N):
    out = np.full(64, -1.0, f32)
    for m in range(8):
        for n in range(8):
            if m < M and n < N:
                out[m * N + n] = m * 8 + n
    return out


test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
