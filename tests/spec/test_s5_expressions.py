"""Spec section 5, expressions: every rule as a kernel checked at the frontend, IR, interpreter
and codegen levels (see spec_helpers.py). Rules the spec rejects are in test_diagnostics.py."""
import ml_dtypes
import numpy as np

from spec_helpers import BF16, Rule, fixed, randint, randn, spec_tests, zeros

# Row-major offsets of an M x N tile with leading dimension N (a macro, as real kernels write it).
IDX = "#define IDX2(M, N) ((0 ... M)[:, newaxis] * N + (0 ... N)[newaxis, :])\n"
f32, f16, f64, i8, i16, i32, i64 = np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64
u8, u16, u32, u64 = np.uint8, np.uint16, np.uint32, np.uint64


def c_div(a, b):
    """C integer division (truncates toward zero)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def c_rem(a, b):
    return a - c_div(a, b) * b


X16 = randint(-20, 20, 16)
F16x8 = randn(16, 8)

RULES = [
    # ---------------------------------------------------------------- precedence (5, table)
    Rule("prec_range_binds_tighter_than_plus", """
__global__ void k(int *Out) {
  int pid = get_program_id(0);
  int r[8] = pid * 8 + 0 ... 8;
  *(Out + r) = r;
}""", grid=2, args=lambda: [zeros(16, dtype=i32)], expect=lambda a: {0: np.arange(16)},
         ir="CHECK: arith.muli\nCHECK: tt.make_range {end = 8, start = 0}\nCHECK: %r = arith.addi",
         types={"r": "int[8]"}, ptx="CHECK: .maxntid 128", gpu=True),
    Rule("prec_matmul_binds_tighter_than_mul", IDX + """
__global__ void k(float *A, float *B, float *C) {
  float a[16, 16] = *(A + IDX2(16, 16));
  float b[16, 16] = *(B + IDX2(16, 16));
  *(C + IDX2(16, 16)) = a @ b * 2.0f;
}""", args=fixed(randn(16, 16), randn(16, 16), zeros(16, 16)),
         expect=lambda a: {2: (a[0].astype(f64) @ a[1]) * 2}, rtol=1e-5, atol=1e-5,
         ir="CHECK: tt.dot\nCHECK: arith.mulf", gpu=True),
    Rule("prec_transpose_binds_tighter_than_matmul", IDX + """
#define USE_A ^a
__global__ void k(float *A, float *B, float *C) {
  float a[16, 16] = *(A + IDX2(16, 16));
  float b[16, 16] = *(B + IDX2(16, 16));
  *(C + IDX2(16, 16)) = USE_A @ b;
  *(C + 256 + IDX2(16, 16)) = a @ ^b + ^a @ ^b;
}""", args=fixed(randn(16, 16), randn(16, 16), zeros(512)), rtol=1e-5, atol=1e-5,
         expect=lambda a: {2: np.concatenate([(a[0].T.astype(f64) @ a[1]).ravel(),
                                              (a[0].astype(f64) @ a[1].T + a[0].T.astype(f64) @ a[1].T).ravel()])},
         ir="CHECK: [[AT:%[0-9]+]] = tt.trans %a\nCHECK: tt.dot [[AT]], %b\nCHECK: [[BT:%[0-9]+]] = tt.trans %b\n"
            "CHECK: tt.dot %a, [[BT]]\nCHECK: [[AT2:%[0-9]+]] = tt.trans %a\nCHECK: [[BT2:%[0-9]+]] = tt.trans %b\n"
            "CHECK: tt.dot [[AT2]], [[BT2]]"),
    Rule("prec_c_operators", """
__global__ void k(int *Out, int *X) {
  int r[16] = 0 ... 16;
  int x[16] = *(X + r);
  *(Out + 0 * 16 + r) = x + x * 3 - x / 2;
  *(Out + 1 * 16 + r) = x << 1 + 1;
  *(Out + 2 * 16 + r) = x & 3 == 3;
  *(Out + 3 * 16 + r) = x ^ 5 & 6 | 8;
  *(Out + 4 * 16 + r) = x < 4 == x > 10;
  *(Out + 5 * 16 + r) = x > 2 && x < 9 || x == 12;
  *(Out + 6 * 16 + r) = x > 5 ? x > 10 ? 2 : 1 : 0;
  *(Out + 7 * 16 + r) = -x % 5 + ~x * 2;
}""", args=fixed(zeros(8, 16, dtype=i32), X16), expect=lambda a: {0: np.stack([
        a[1] + a[1] * 3 - c_div(a[1], 2), a[1] << 2, a[1] & 1, (a[1] ^ (5 & 6)) | 8,
        ((a[1] < 4) == (a[1] > 10)), ((a[1] > 2) & (a[1] < 9)) | (a[1] == 12),
        np.where(a[1] > 5, np.where(a[1] > 10, 2, 1), 0), c_rem(-a[1], 5) + ~a[1] * 2])},
         ir="CHECK: arith.muli\nCHECK: arith.addi\nCHECK: arith.divsi\nCHECK: arith.subi\n"
            "CHECK: arith.constant {value = 2} : i32[16]\nCHECK-NEXT: arith.shli\n"
            "CHECK: arith.constant {value = 1} : i32[16]\nCHECK-NEXT: arith.andi\n"
            "CHECK: arith.constant {value = 4} : i32[16]\nCHECK-NEXT: arith.xori\nCHECK-NEXT: arith.constant\n"
            "CHECK-NEXT: arith.ori\nCHECK: \"slt\"\nCHECK: \"sgt\"\nCHECK: \"eq\"\nCHECK: arith.andi\nCHECK: arith.ori\n"
            "CHECK: arith.select\nCHECK: arith.select\nCHECK: arith.remsi", gpu=True),
    Rule("prec_assign_and_comma", """
__global__ void k(int *Out) {
  int a = 1, b = 2, c;
  c = (a += 2, b *= a, a + b);
  a = b = 7;
  *Out = c; *(Out + 1) = a; *(Out + 2) = b;
  int x = 10;
  x -= 3; x <<= 2; x >>= 1; x |= 1; x &= 13; x ^= 4; x %= 6; x /= 2;
  *(Out + 3) = x;
}""", args=lambda: [zeros(4, dtype=i32)], expect=lambda a: {0: [9, 7, 7, 1]},
         ir="CHECK: %a_1 = arith.addi %a\nCHECK: %b_1 = arith.muli %b, %a_1\nCHECK: %c = arith.addi %a_1, %b_1\n"
            "CHECK: %b_2 = arith.constant {value = 7}\nCHECK: arith.subi\nCHECK: arith.shli\nCHECK: arith.shrsi\n"
            "CHECK: arith.ori\nCHECK: arith.andi\nCHECK: arith.xori\nCHECK: arith.remsi\nCHECK: arith.divsi",
         ttir="CHECK-NOT: arith.addi\nCHECK: arith.constant {value = 9} : i32"),

    Rule("compound_assignment_converts", """
__global__ void k(int *I, char *C, float *F) {
  int i = 1;
  i += 2.7f;
  char c = 100;
  c += 100;
  float f[4] = 1.0f;
  f *= (0 ... 4);
  float *p = F + 6;
  p -= 2;
  *I = i; *C = c; *(F + (0 ... 4)) = f; *p = 9.0f;
}""", args=lambda: [zeros(1, dtype=i32), zeros(1, dtype=i8), zeros(6)],
         expect=lambda a: {0: [3], 1: [-56], 2: [0, 1, 2, 3, 9, 0]},
         ir="CHECK: arith.sitofp %i : f32\nCHECK: arith.addf\nCHECK: %i_1 = arith.fptosi\nCHECK: arith.extsi %c : i32\n"
            "CHECK: %c_1 = arith.trunci\nCHECK: %f_1 = arith.mulf %f\nCHECK: %p_1 = tt.addptr %p"),
    Rule("side_effects_in_order", """
__global__ void k(int *P) {
  int r[4] = 0 ... 4;
  *(P + r++) = 1;
  *(P + 8 + r) = 2;
  int i = 0;
  int a = (i++, i++, i);
  *(P + 16) = a;
}""", args=lambda: [zeros(17, dtype=i32)], expect=lambda a: {0: [1, 1, 1, 1, 0, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 2]},
         ir="CHECK: %r_1 = arith.addi %r\nCHECK: tt.addptr {{.*}}, %r :\nCHECK: tt.store\nCHECK: tt.addptr {{.*}}, %r_1"),

    # ---------------------------------------------------------------- unary operators
    Rule("unary_int_and_float", """
__global__ void k(int *Out, float *F, int *X) {
  int r[16] = 0 ... 16;
  int x[16] = *(X + r);
  *(Out + r) = -x;
  *(Out + 16 + r) = +x;
  *(Out + 32 + r) = !x;
  *(Out + 48 + r) = ~x;
  float f[16] = *(F + r);
  *(F + r) = -f;
}""", args=fixed(zeros(64, dtype=i32), randn(16), X16),
         expect=lambda a: {0: np.concatenate([-a[2], a[2], (a[2] == 0), ~a[2]]), 1: -a[1]},
         ir="CHECK: arith.subi\nCHECK: arith.cmpi {{.*}}\"ne\"\nCHECK: arith.xori\nCHECK: arith.negf", gpu=True),
    Rule("incdec_scalars_pointers_tiles", """
__global__ void k(int *Out) {
  int i = 5;
  int a = i++;
  int b = ++i;
  int c = i--;
  int d = --i;
  int *p = Out;
  *p = a; p++; *p = b; ++p; *p = c; p += 1; *(p++) = d; *p = i;
  int r[4] = 0 ... 4;
  r++;
  ++r;
  *(Out + 5 + (0 ... 4)) = r;
  float f = 1.5f;
  f++;
  *(Out + 9) = (int)(f * 2);
}""", args=lambda: [zeros(10, dtype=i32)], expect=lambda a: {0: [5, 7, 7, 5, 5, 2, 3, 4, 5, 5]},
         ir="CHECK: %i_1 = arith.addi %i\nCHECK: %i_3 = arith.subi\nCHECK: tt.store %Out, %i\n"
            "CHECK: %p = tt.addptr %Out\nCHECK: %r_1 = arith.addi %r\nCHECK: %f_1 = arith.addf %f"),

    # ---------------------------------------------------------------- range
    Rule("range_values_and_offsets", """
__global__ void k(int *Out) {
  int a[8] = 3 ... 11;
  int b[4] = -2 ... 2;
  *(Out + (0 ... 8)) = a;
  *(Out + 8 + (0 ... 4)) = b;
}""", args=lambda: [zeros(12, dtype=i32)], expect=lambda a: {0: list(range(3, 11)) + list(range(-2, 2))},
         ir="CHECK: tt.make_range {end = 11, start = 3} : i32[8]\nCHECK: tt.make_range {end = 2, start = -2} : i32[4]",
         types={"a": "int[8]", "b": "int[4]"}, gpu=True),

    # ---------------------------------------------------------------- subscripts
    Rule("subscript_newaxis_outer", """
__global__ void k(int *Out) {
  int r[8] = 0 ... 8;
  int c[4] = 0 ... 4;
  int o[8, 4] = r[:, newaxis] * 10 + c[newaxis, :];
  *(Out + r[:, newaxis] * 4 + c[newaxis, :]) = o;
}""", args=lambda: [zeros(8, 4, dtype=i32)],
         expect=lambda a: {0: np.arange(8)[:, None] * 10 + np.arange(4)[None, :]},
         ir="CHECK: tt.expand_dims %r {axis = 1} : i32[8,1]\nCHECK: tt.expand_dims %c {axis = 0} : i32[1,4]\n"
            "CHECK: tt.broadcast", gpu=True),
    Rule("subscript_reductions", IDX + """
__global__ void k(float *X, float *Out, int *I, int *IOut, char *C, int *COut) {
  float x[16, 8] = *(X + IDX2(16, 8));
  *(Out + (0 ... 16)) = x[:, max];
  *(Out + 16 + (0 ... 8)) = x[+, :];
  *(Out + 24 + (0 ... 16)) = x[:, min];
  float row[8] = x[+, :];
  *(Out + 40) = row[+];
  *(Out + 41) = x[+, max];
  int i[16] = *(I + (0 ... 16));
  *IOut = i[+];
  *(IOut + 1) = i[max];
  *(IOut + 2) = i[min];
  char c[16] = *(C + (0 ... 16));
  *COut = c[+];
}""", args=fixed(F16x8.copy(), zeros(42), X16, zeros(3, dtype=i32), np.full(16, 100, i8), zeros(1, dtype=i32)),
         expect=lambda a: {1: np.concatenate([a[0].max(1), a[0].astype(f64).sum(0), a[0].min(1),
                                              [a[0].astype(f64).sum(), a[0].max(1).astype(f64).sum()]]),
                           3: [a[2].sum(), a[2].max(), a[2].min()], 5: [1600]},
         rtol=1e-5, atol=1e-5, types={"row": "float[8]"},
         ir='CHECK: tt.reduce %x {axis = 1, combine = "maxnumf"} : f32[16]\n'
            'CHECK: tt.reduce %x {axis = 0, combine = "addf"} : f32[8]\n'
            'CHECK: combine = "minnumf"\nCHECK: tt.reduce %row {axis = 0, combine = "addf"} : f32\n'
            'CHECK: combine = "addi"\nCHECK: combine = "maxsi"\nCHECK: combine = "minsi"\n'
            'CHECK: arith.extsi %c : i32[16]\nCHECK: combine = "addi"', gpu=True, gpu_rtol=1e-5),
    Rule("subscript_reductions_unsigned_bool_3d_wide", """
__global__ void k(unsigned *U, unsigned long *UL, int *X, float *F3, half *H, double *D, long *Out, double *DOut) {
  unsigned u[8] = *(U + (0 ... 8));
  unsigned long ul[4] = *(UL + (0 ... 4));
  bool m[16] = *(X + (0 ... 16)) > 0;
  float x[2, 4, 8] = *(F3 + (0 ... 2)[:, newaxis, newaxis] * 32 + (0 ... 4)[newaxis, :, newaxis] * 8
                        + (0 ... 8)[newaxis, newaxis, :]);
  float y[2, 8] = x[:, +, :];
  half h[16] = *(H + (0 ... 16));
  double d[16] = *(D + (0 ... 16));
  *Out = u[max]; *(Out + 1) = u[min]; *(Out + 2) = u[+];
  *(Out + 3) = ul[max]; *(Out + 4) = ul[min];
  *(Out + 5) = m[+]; *(Out + 6) = m[max];
  *(DOut + (0 ... 16)) = (double[16]) y;
  *(DOut + 16) = h[+]; *(DOut + 17) = d[+]; *(DOut + 18) = d[max];
}""", args=fixed(np.array([1, 2**31 + 5, 7, 2**32 - 1, 3, 0, 2**31, 9], u32), np.array([1, 2**63 + 5, 7, 3], u64),
                 X16, randn(2, 4, 8), np.ones(16, f16), randn(16, dtype=f64), zeros(7, dtype=i64), zeros(19, dtype=f64)),
         expect=lambda a: {6: np.array([2**32 - 1, 0, (2**31 + 5 + 7 + 2**32 - 1 + 3 + 2**31 + 9 + 1) % 2**32,
                                        2**63 + 5, 1, (a[2] > 0).sum(), 1], dtype=object).astype(np.uint64).view(i64),
                           7: np.concatenate([a[3].astype(f64).sum(1).reshape(-1), [16.0, a[5].sum(), a[5].max()]])},
         # y sums 4 float32 values (rounding ~6e-8 of each summand, not of a cancelled result)
         rtol=1e-6, atol=1e-6, types={"y": "float[2, 8]"},
         ir='CHECK: %y = tt.reduce %x {axis = 1, combine = "addf"} : f32[2,8]\nCHECK: combine = "maxui"} : i32\n'
            'CHECK: combine = "minui"} : i32\nCHECK: combine = "addi"} : i32\nCHECK: combine = "maxui"} : i64\n'
            'CHECK: combine = "minui"} : i64\nCHECK: arith.extui\nCHECK: combine = "addi"} : i32\n'
            'CHECK: tt.reduce %h {axis = 0, combine = "addf"} : f16',
         gpu=True, gpu_rtol=1e-6),
    Rule("subscript_permute_3d", """
#define R3 ((0 ... 4)[:, newaxis, newaxis] * 16 + (0 ... 2)[newaxis, :, newaxis] * 8 + (0 ... 8)[newaxis, newaxis, :])
__global__ void k(float *X, float *Y, float *Z) {
  float x[4, 2, 8] = *(X + R3);
  float y[8, 4, 2] = x[^2, ^0, ^1];
  *(Y + (0 ... 8)[:, newaxis, newaxis] * 8 + (0 ... 4)[newaxis, :, newaxis] * 2 + (0 ... 2)[newaxis, newaxis, :]) = y;
  float z[2, 1, 4, 8] = x[^1, newaxis, ^0, ^2];
  *(Z + (0 ... 2)[:, newaxis, newaxis, newaxis] * 32 + (0 ... 4)[newaxis, newaxis, :, newaxis] * 8
      + (0 ... 8)[newaxis, newaxis, newaxis, :]) = z;
}""", args=fixed(randn(4, 2, 8), zeros(8, 4, 2), zeros(2, 1, 4, 8)),
         expect=lambda a: {1: np.transpose(a[0], (2, 0, 1)), 2: np.transpose(a[0], (1, 0, 2))[:, None]},
         types={"y": "float[8, 4, 2]", "z": "float[2, 1, 4, 8]"},
         ir="CHECK: tt.trans %x {order = [2, 0, 1]} : f32[8,4,2]\nCHECK: tt.trans %x {order = [1, 0, 2]}\n"
            "CHECK: tt.expand_dims {{.*}} {axis = 1} : f32[2,1,4,8]", gpu=True),
    Rule("subscript_permute_2d", IDX + """
__global__ void k(float *X, float *Y) {
  float x[16, 8] = *(X + IDX2(16, 8));
  *(Y + IDX2(8, 16)) = x[^1, ^0];
}""", args=fixed(F16x8.copy(), zeros(8, 16)), expect=lambda a: {1: a[0].T},
         ir="CHECK: tt.trans %x {order = [1, 0]} : f32[8,16]", gpu=True),

    # ---------------------------------------------------------------- transpose
    Rule("transpose_caret_2d_3d", IDX + """
__global__ void k(float *X, float *Y, float *Z) {
  float x[16, 8] = *(X + IDX2(16, 8));
  float t[8, 16] = ^x;
  *(Y + IDX2(8, 16)) = t;
  float x3[2, 4, 16] = (float[2, 4, 16]) x;
  float y3[4, 16, 2] = ^x3;
  *(Z + (0 ... 4)[:, newaxis, newaxis] * 32 + (0 ... 16)[newaxis, :, newaxis] * 2
      + (0 ... 2)[newaxis, newaxis, :]) = y3;
}""", args=fixed(F16x8.copy(), zeros(8, 16), zeros(4, 16, 2)),
         expect=lambda a: {1: a[0].T, 2: np.transpose(a[0].reshape(2, 4, 16), (1, 2, 0))},
         types={"t": "float[8, 16]", "y3": "float[4, 16, 2]"},
         ir="CHECK: %t = tt.trans %x {order = [1, 0]}\nCHECK: tt.reshape\nCHECK: tt.trans {{.*}} {order = [1, 2, 0]}",
         gpu=True),

    # ---------------------------------------------------------------- broadcasting
    Rule("broadcast_numpy_rules", IDX + """
__global__ void k(float *Out, float *Row, float *Col) {
  float row[8] = *(Row + (0 ... 8));
  float col[4, 1] = *(Col + (0 ... 4)[:, newaxis]);
  float a[4, 8] = 1.5f;
  float b[4, 8] = a + row;
  float c[4, 8] = col * row[newaxis, :];
  float d[4, 8] = row;
  float e[4, 8] = col > 0 ? row : 2.0f;
  *(Out + IDX2(4, 8)) = b + c + d + e;
}""", args=fixed(zeros(4, 8), randn(8), randn(4)),
         expect=lambda a: {0: (1.5 + a[1]) + a[2][:, None] * a[1] + a[1] + np.where(a[2][:, None] > 0, a[1], 2.0)},
         rtol=1e-6, ir="CHECK: tt.splat\nCHECK: tt.broadcast", gpu=True),
    Rule("reshape_equal_element_counts", """
__global__ void k(int *Out) {
  int x[32] = 0 ... 32;
  int y[4, 8] = x;
  int z[8, 4] = y;
  int w[32] = z;
  *(Out + (0 ... 8)[:, newaxis] * 4 + (0 ... 4)[newaxis, :]) = z + (int[8, 4]) w;
}""", args=lambda: [zeros(8, 4, dtype=i32)],
         expect=lambda a: {0: np.arange(32).reshape(8, 4) * 2}, ir="CHECK: tt.reshape {{.*}} : i32[4,8]",
         types={"y": "int[4, 8]", "z": "int[8, 4]"}),

    # ---------------------------------------------------------------- usual arithmetic conversions
    Rule("conv_types_of_mixed_operands", """
__global__ void k(float *Out, half h, bfloat16 b, float f, int i, long l, unsigned u, char c, double d) {
  float hf = h + f;
  float hb = h + b;
  half hi = h + i;
  long il = i + l;
  unsigned iu = i + u;
  int cc = c + c;
  double df = d + f;
  *Out = hf + hb + hi + il + iu + cc + df;
}""", args=lambda: [zeros(1), 1.5, 2.5, 0.25, 3, 4, 5, -6, 0.125],
         expect=lambda a: {0: [1.75 + 4.0 + 4.5 + 7 + 8 - 12 + 0.375]},
         ir="CHECK: arith.extf %h : f32\nCHECK: arith.addf\nCHECK: arith.extf %h : f32\nCHECK: arith.extf %b : f32\n"
            "CHECK: arith.sitofp %i : f16\nCHECK: arith.extsi %i : i64",
         init_types={"hf": "float", "hb": "float", "hi": "half", "il": "long", "iu": "unsigned int", "cc": "int",
                     "df": "double"}),
    Rule("conv_signed_unsigned_compare", """
__global__ void k(int *Out, int *X, unsigned *U) {
  int r[16] = 0 ... 16;
  int x[16] = *(X + r);
  unsigned u[16] = *(U + r);
  *(Out + r) = x < 1u;
  *(Out + 16 + r) = x < 1;
  *(Out + 32 + r) = u > 5;
  *(Out + 48 + r) = x < u;
}""", args=fixed(zeros(64, dtype=i32), X16, randint(0, 2**32, 16, dtype=u32)),
         expect=lambda a: {0: np.concatenate([a[1].astype(u32) < 1, a[1] < 1, a[2] > 5, a[1].astype(u32) < a[2]])},
         ir='CHECK: "ult"\nCHECK: "slt"\nCHECK: "ugt"\nCHECK: "ult"', gpu=True),
    Rule("conv_integer_promotion_in_comparisons", """
__global__ void k(int *Out, short *S, unsigned short *US, long *L, unsigned *U, unsigned long *UL) {
  *Out = *S < *US;
  *(Out + 1) = *L < *U;
  *(Out + 2) = *L < *UL;
  *(Out + 3) = (short) -1 < (unsigned short) 1;
  *(Out + 4) = -1l < 1u;
  *(Out + 5) = -1l < 1ul;
}""", args=fixed(zeros(6, dtype=i32), np.array([-1], i16), np.array([1], u16), np.array([-1], i64), np.array([1], u32),
                 np.array([1], u64)), expect=lambda a: {0: [1, 1, 0, 1, 1, 0]},
         ir='CHECK: arith.extsi\nCHECK: arith.extui\nCHECK: "slt"\nCHECK: arith.extui\nCHECK: "slt"\nCHECK: "ult"', gpu=True),
    Rule("conv_float_compare_nan_and_to_bool", """
__global__ void k(int *Out, float *X) {
  float x[4] = *(X + (0 ... 4));
  *(Out + (0 ... 4)) = x != x;
  *(Out + 4 + (0 ... 4)) = x == x;
  *(Out + 8 + (0 ... 4)) = x < 1.0f;
  *(Out + 12 + (0 ... 4)) = !(x >= 1.0f);
  bool b[4] = x;
  *(Out + 16 + (0 ... 4)) = b;
}""", args=fixed(zeros(20, dtype=i32), np.array([np.nan, 0.5, 2.0, 0.0], f32)),
         expect=lambda a: {0: [1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0]},
         ir='CHECK: "une"\nCHECK: "oeq"\nCHECK: "olt"\nCHECK: "oge"\nCHECK: "une"', gpu=True),
    Rule("conv_half_int", """
__global__ void k(half *H, int *I, half *H2) {
  half h[4] = *(H + (0 ... 4));
  *(I + (0 ... 4)) = h;
  *(H2 + (0 ... 4)) = *(I + 4 + (0 ... 4));
}""", args=fixed(np.array([2.7, -2.7, 65504, 0.1], f16), np.array([0, 0, 0, 0, 3, -7, 70000, 2049], i32), zeros(4, dtype=f16)),
         expect=lambda a: {1: [2, -2, 65504, 0, 3, -7, 70000, 2049], 2: [3, -7, np.inf, 2048]},
         ir="CHECK: arith.fptosi {{.*}} : i32[4]\nCHECK: arith.sitofp {{.*}} : f16[4]", gpu=True),
    Rule("conv_signedness_shift_div_mod", """
__global__ void k(int *Out, unsigned *UOut, int *X, unsigned *U, char *C, unsigned char *UC) {
  int r[16] = 0 ... 16;
  int x[16] = *(X + r);
  unsigned u[16] = *(U + r);
  *(Out + r) = x >> 2;
  *(Out + 16 + r) = x / 3;
  *(Out + 32 + r) = x % 3;
  *(Out + 48 + r) = *(C + r) >> 1;
  *(Out + 64 + r) = *(UC + r) >> 1;
  *(UOut + r) = u >> 2;
  *(UOut + 16 + r) = u / 3;
  *(UOut + 32 + r) = u % 3;
}""", args=fixed(zeros(80, dtype=i32), zeros(48, dtype=u32), X16 * 100000, randint(2**31, 2**32, 16, dtype=u32),
                 randint(-128, 128, 16, dtype=i8), randint(0, 256, 16, dtype=u8)),
         expect=lambda a: {0: np.concatenate([a[2] >> 2, c_div(a[2], 3), c_rem(a[2], 3), a[4].astype(i32) >> 1,
                                              a[5].astype(i32) >> 1]),
                           1: np.concatenate([a[3] >> 2, a[3] // 3, a[3] % 3])},
         ir='CHECK: arith.shrsi %x\nCHECK: arith.divsi\nCHECK: arith.remsi\nCHECK: arith.extsi\nCHECK: arith.shrsi\n'
            'CHECK: arith.extui\nCHECK: arith.shrsi\nCHECK: arith.shrui %u\nCHECK: arith.divui\nCHECK: arith.remui',
         gpu=True),
    Rule("conv_int_to_float_signedness", """
__global__ void k(double *Out, int *X, unsigned *U, long *L, unsigned long *UL, char *C, unsigned char *UC) {
  int r[4] = 0 ... 4;
  *(Out + r) = (float[4]) *(X + r);
  *(Out + 4 + r) = (float[4]) *(U + r);
  *(Out + 8 + r) = (double[4]) *(L + r);
  *(Out + 12 + r) = (double[4]) *(UL + r);
  *(Out + 16 + r) = (float[4]) *(C + r);
  *(Out + 20 + r) = (float[4]) *(UC + r);
}""", args=fixed(zeros(24, dtype=f64), np.array([-1, -7, 3, 2**31 - 1], i32), np.array([2**32 - 1, 7, 2**31, 0], u32),
                 np.array([-1, -(2**40), 5, 2**62], i64), np.array([2**64 - 1, 2**63, 5, 0], u64),
                 np.array([-1, -128, 127, 0], i8), np.array([255, 128, 1, 0], u8)),
         expect=lambda a: {0: np.concatenate([a[1].astype(f32), a[2].astype(f32), a[3].astype(f64), a[4].astype(f64),
                                              a[5].astype(f32), a[6].astype(f32)])},
         ir="CHECK: arith.sitofp\nCHECK: arith.uitofp\nCHECK: arith.sitofp\nCHECK: arith.uitofp\nCHECK: arith.sitofp\n"
            "CHECK: arith.uitofp", gpu=True),
    Rule("conv_float_to_int_and_narrowing", """
__global__ void k(int *Out, char *C, unsigned short *US, float *F, long *L) {
  int r[4] = 0 ... 4;
  float f[4] = *(F + r);
  *(Out + r) = (int[4]) f;
  *(Out + 4 + r) = (int[4]) *(L + r);
  int big[4] = (0 ... 4) * 100 + 40;
  *(C + r) = big;
  *(US + r) = -big;
}""", args=fixed(zeros(8, dtype=i32), zeros(4, dtype=i8), zeros(4, dtype=u16),
                 np.array([-2.7, 2.7, -0.5, 1e6], f32), np.array([2**32 + 5, -(2**33) - 1, 7, -1], i64)),
         expect=lambda a: {0: np.concatenate([[-2, 2, 0, 1000000], [5, -1, 7, -1]]),
                           1: np.array([40, 140, 240, 340]).astype(i8), 2: (-np.array([40, 140, 240, 340])).astype(u16)},
         ir="CHECK: arith.fptosi\nCHECK: arith.trunci\nCHECK: arith.trunci", gpu=True),
    Rule("small_int_types_wrap", """
__global__ void k(char *C, short *S, unsigned char *UC, unsigned short *US, int8 *I8, uint16 *U16) {
  int r[8] = 0 ... 8;
  char c[8] = *(C + r);
  short s[8] = *(S + r);
  *(C + r) = c * 3 + 1;
  *(S + r) = s * s;
  *(UC + r) = *(UC + r) + 200;
  *(US + r) = *(US + r) - 1;
  *(I8 + r) = -*(I8 + r);
  *(U16 + r) = *(U16 + r) << 4;
}""", args=fixed(randint(-128, 128, 8, dtype=i8), randint(-2000, 2000, 8, dtype=i16), randint(0, 256, 8, dtype=u8),
                 randint(0, 3, 8, dtype=u16), randint(-128, 128, 8, dtype=i8), randint(0, 65536, 8, dtype=u16)),
         expect=lambda a: {0: (a[0].astype(i32) * 3 + 1).astype(i8), 1: (a[1].astype(i32) ** 2).astype(i16),
                           2: (a[2].astype(i32) + 200).astype(u8), 3: (a[3].astype(i32) - 1).astype(u16),
                           4: (-a[4].astype(i32)).astype(i8), 5: (a[5].astype(i32) << 4).astype(u16)},
         types={"c": "char[8]", "s": "short[8]"},
         ir="CHECK: arith.extsi %c : i32[8]\nCHECK: arith.trunci {{.*}} : i8[8]\nCHECK: arith.extsi %s : i32[8]\n"
            "CHECK: arith.trunci {{.*}} : i16[8]\nCHECK: arith.extui {{.*}} : i32[8]", gpu=True),
    Rule("half_bf16_double_arith", """
__global__ void k(half *H, bfloat16 *B, double *D, float *F, long n) {
  int r[16] = 0 ... 16;
  half h[16] = *(H + r);
  bfloat16 b[16] = *(B + r);
  *(H + r) = h * h + h;
  *(B + r) = b + b * b;
  *(F + r) = h + b;
  *(D + r) = *(D + r) * 0.5 + n;
}""", args=fixed(randn(16, dtype=f16), randn(16).astype(BF16), randn(16, dtype=f64), zeros(16), 1 << 40),
         expect=lambda a: {0: (a[0] * a[0]) + a[0],
                           1: (a[1].astype(f32) + (a[1].astype(f32) * a[1].astype(f32)).astype(BF16).astype(f32)).astype(BF16),
                           2: a[2] * 0.5 + 2.0**40, 3: a[0].astype(f32) + a[1].astype(f32)},
         types={"h": "half[16]", "b": "bfloat16[16]"},
         ir="CHECK: arith.mulf {{.*}} : f16[16]\nCHECK: arith.addf {{.*}} : f16[16]\nCHECK: arith.mulf {{.*}} : bf16[16]\n"
            "CHECK: arith.extf %h : f32[16]\nCHECK: arith.extf %b : f32[16]\nCHECK: arith.mulf {{.*}} : f64[16]",
         gpu=True),

    Rule("constant_folding_follows_c", """
__global__ void k(long *Out) {
  *Out = 0xFFFFFFFF >> 4;
  *(Out + 1) = -16 >> 2;
  *(Out + 2) = -7 % 3;
  *(Out + 3) = -7 / 2;
  *(Out + 4) = 7u / -1;
  *(Out + 5) = (unsigned char) 300;
  *(Out + 6) = (char) 200;
  *(Out + 7) = -1 < 1u;
  *(Out + 8) = (long) 3.99 + (long) -3.99;
}""", args=lambda: [zeros(9, dtype=i64)], expect=lambda a: {0: [0x0FFFFFFF, -4, -1, -3, 0, 44, -56, 0, 0]},
         ir="CHECK: arith.constant {value = 268435455} : i64\nCHECK: arith.constant {value = -4} : i64"),
    Rule("shifts_by_variables_long_tiles", """
__global__ void k(long *L, int *I, unsigned *U, int s) {
  long l[4] = (long[4]) (0 ... 4) + 1;
  *(L + (0 ... 4)) = l << 40 >> s;
  int i[4] = -(0 ... 4) * 1000;
  *(I + (0 ... 4)) = i >> s;
  *(U + (0 ... 4)) = (unsigned[4]) i >> s;
}""", args=lambda: [zeros(4, dtype=i64), zeros(4, dtype=i32), zeros(4, dtype=u32), 3],
         expect=lambda a: {0: ((np.arange(4) + 1) << 40) >> 3, 1: (-np.arange(4) * 1000) >> 3,
                           2: (-np.arange(4) * 1000).astype(u32) >> 3},
         ir="CHECK: arith.shli {{.*}} : i64[4]\nCHECK: arith.shrsi {{.*}} : i64[4]\nCHECK: arith.shrsi\nCHECK: arith.shrui",
         gpu=True),

    # ---------------------------------------------------------------- element-wise and logical operators
    Rule("elementwise_bitwise_and_compare", """
__global__ void k(int *Out, bool *B, int *X, int *Y) {
  int r[16] = 0 ... 16;
  int x[16] = *(X + r);
  int y[16] = *(Y + r);
  *(Out + r) = (x & y) | (x ^ 7);
  *(Out + 16 + r) = x << 3;
  *(Out + 32 + r) = ~(x | y);
  bool lt[16] = x < y;
  *(B + r) = lt;
  *(B + 16 + r) = x == y;
  *(B + 32 + r) = x != y || !lt;
  *(B + 48 + r) = x >= 0 && y <= 0;
}""", args=fixed(zeros(48, dtype=i32), np.zeros(64, bool), X16, randint(-20, 20, 16)),
         expect=lambda a: {0: np.concatenate([(a[2] & a[3]) | (a[2] ^ 7), a[2] << 3, ~(a[2] | a[3])]),
                           1: np.concatenate([a[2] < a[3], a[2] == a[3], (a[2] != a[3]) | ~(a[2] < a[3]),
                                              (a[2] >= 0) & (a[3] <= 0)])},
         types={"lt": "bool[16]"}, ir="CHECK: arith.andi\nCHECK: arith.ori\nCHECK: arith.xori", gpu=True),
    Rule("logical_short_circuit_skips_atomic", """
__global__ void k(int *Out, int *P, int n) {
  int v = 0;
  if (n > 0 && atomic_add(P, 1) >= 0) v = 1;
  if (n == 0 || atomic_add(P, 10) >= 0) v += 2;
  *Out = v;
}""", args=lambda: [zeros(1, dtype=i32), zeros(1, dtype=i32), 0], expect=lambda a: {0: [2], 1: [0]},
         ir="CHECK: scf.if\nCHECK: tt.atomic_rmw"),
    Rule("logical_short_circuit_null_pointer", """
__global__ void k(int *Out, int *P, int n) {
  int v = n > 0 && *P > 5;
  int w = n == 0 || *P > 5;
  *Out = v + 2 * w;
}""", args=lambda: [zeros(1, dtype=i32), None, 0], expect=lambda a: {0: [2]},
         ir="CHECK: scf.if\nCHECK-NEXT: tt.load %P\nCHECK: scf.if\nCHECK: } {\nCHECK-NEXT: tt.load %P"),

    # ---------------------------------------------------------------- pointers
    Rule("pointer_arithmetic_scalar", """
__global__ void k(float *X, float *Out, long *D, int *C) {
  float *p = X + 4;
  float *q = 2 + p;
  float *s = q - 3;
  *D = q - X;
  *(D + 1) = X - q;
  *C = s > X;
  *(C + 1) = s == X + 3;
  *(C + 2) = p <= X;
  *(C + 3) = s != q;
  *Out = *s;
  *(Out + 1) = *q;
}""", args=fixed(randn(8), zeros(2), zeros(2, dtype=i64), zeros(4, dtype=i32)),
         expect=lambda a: {1: [a[0][3], a[0][6]], 2: [6, -6], 3: [1, 1, 0, 1]}, types={"q": "float*"},
         ir="CHECK: tt.addptr\nCHECK: tt.ptr_to_int", gpu=True),
    Rule("pointer_tiles_broadcast_and_advance", IDX + """
__global__ void k(float *A, float *Out, int lda) {
  float *pa[4, 8] = A + (0 ... 4)[:, newaxis] * lda + (0 ... 8)[newaxis, :];
  float acc[4, 8] = 0;
  for (int k = 0; k < 3; k++) {
    acc += *pa;
    pa += 4 * lda;
  }
  *(Out + IDX2(4, 8)) = acc;
}""", args=fixed(randn(12 * 16), zeros(4, 8), 16),
         expect=lambda a: {1: sum(a[0].reshape(12, 16)[4 * j:4 * j + 4, :8].astype(f64) for j in range(3))},
         rtol=1e-6, atol=1e-6, types={"pa": "float*[4, 8]"}, ir="CHECK: scf.for\nCHECK: tt.addptr %pa", gpu=True),
    Rule("pointer_tiles_compare_subtract_increment", """
__global__ void k(float *X, long *D, int *B) {
  float *p[8] = X + (0 ... 8);
  float *q[8] = X + 4;
  *(D + (0 ... 8)) = p - q;
  *(B + (0 ... 8)) = p < q;
  p++;
  *(D + 8 + (0 ... 8)) = p - X;
}""", args=lambda: [zeros(16), zeros(16, dtype=i64), zeros(8, dtype=i32)],
         expect=lambda a: {1: np.concatenate([np.arange(8) - 4, np.arange(8) + 1]), 2: np.arange(8) < 4},
         types={"p": "float*[8]"}, ir="CHECK: tt.ptr_to_int\nCHECK: arith.subi\nCHECK: arith.cmpi", gpu=True),
    Rule("pointer_to_bool", """
__global__ void k(int *Out, float *P, float *Q) {
  bool a = P;
  *Out = a;
  *(Out + 1) = Q ? 1 : 0;
  float *pt[4] = P + (0 ... 4);
  bool m[4] = pt;
  *(Out + 2 + (0 ... 4)) = m;
  *(Out + 6) = !Q;
}""", args=lambda: [zeros(7, dtype=i32), zeros(4), None], expect=lambda a: {0: [1, 0, 1, 1, 1, 1, 1]},
         types={"m": "bool[4]"}, init_types={"a": "float*", "m": "float*[4]"},
         ir='CHECK: tt.ptr_to_int %P : i64\nCHECK: %a = arith.cmpi {{.*}} {predicate = "ne"} : i1\n'
            'CHECK: tt.ptr_to_int %pt : i64[4]\nCHECK: %m = arith.cmpi'),

    # ---------------------------------------------------------------- loads and stores
    Rule("load_store_scalar_and_gather_scatter", """
__global__ void k(float *X, float *Y, int *I, float *Z) {
  *Y = *X + 1.0f;
  int r[16] = 0 ... 16;
  int idx[16] = *(I + r);
  float g[16] = *(X + idx);
  *(Y + 1 + r) = g;
  *(Z + idx) = *(X + r);
}""", args=fixed(randn(16), zeros(17), np.random.default_rng(5).permutation(16).astype(i32), zeros(16)),
         expect=lambda a: {1: np.concatenate([[a[0][0] + 1], a[0][a[2]]]),
                           3: _scatter(a[2], a[0])},
         ir="CHECK: tt.load %X : f32\nCHECK: tt.store %Y\nCHECK: tt.load {{.*}} : f32[16]\nCHECK: tt.store", gpu=True),
    Rule("store_broadcasts_and_converts", IDX + """
__global__ void k(float *Y, half *H, int *I) {
  *(Y + IDX2(4, 8)) = 1;
  float v[8] = (0 ... 8) * 0.5f;
  *(H + IDX2(4, 8)) = v;
  *(I + (0 ... 4)) = 2.9f;
}""", args=lambda: [zeros(32), zeros(32, dtype=f16), zeros(4, dtype=i32)],
         expect=lambda a: {0: np.ones(32), 1: np.tile(np.arange(8) * 0.5, 4), 2: [2, 2, 2, 2]},
         ir="CHECK: arith.constant {value = 1.0} : f32[4,8]\nCHECK: arith.truncf\nCHECK: tt.broadcast\nCHECK: arith.constant {value = 2} : i32[4]",
         gpu=True),
    Rule("masked_load_and_store_deref", """
__global__ void k(float *X, float *Y, int n) {
  int r[16] = 0 ... 16;
  bool m[16] = r < n;
  float x[16] = *?(m) (X + r);
  *?(m) (Y + r) = x * 2.0f;
}""", args=fixed(randn(10), np.full(16, -1.0, f32), 10),
         expect=lambda a: {1: np.concatenate([a[0] * 2, -np.ones(6)])},
         ir="CHECK: %x = tt.load {{%[0-9]+}}, %m : f32[16]\nCHECK: tt.store {{%[0-9]+}}, {{%[0-9]+}}, %m", gpu=True),
    Rule("cond_deref_is_masked_load", """
__global__ void k(float *X, float *Y, float *Z, int n) {
  int r[16] = 0 ... 16;
  bool in[16] = r < n;
  float x[16] = in ? *(X + r) : -1.0f;
  float fill[16] = (0 ... 16) * 1.0f;
  float y[16] = in ? *(X + r) : fill;
  float z[16] = r >= n ? 5.0f : *(X + r);
  *(Y + r) = x + y;
  *(Z + r) = z;
  float s = n > 0 ? *X : 0.0f;
  *(Z + 16) = s;
}""", args=fixed(randn(10), zeros(16), zeros(17), 10),
         expect=lambda a: {1: np.concatenate([2 * a[0], -1 + np.arange(10, 16)]),
                           2: np.concatenate([a[0], 5 * np.ones(6), [a[0][0]]])},
         ir="CHECK: %x = tt.load {{%[0-9]+}}, %in, {{%[0-9]+}} : f32[16]\nCHECK: %y = tt.load {{%[0-9]+}}, %in, %fill\n"
            "CHECK: %z = tt.load\nCHECK: %s = tt.load %X, {{%[0-9]+}}, {{%[0-9]+}} : f32\nCHECK-NOT: arith.select",
         gpu=True),
    Rule("cond_deref_null_scalar", """
__global__ void k(float *Out, float *P, int n) {
  *Out = n > 0 ? *P : 3.0f;
}""", args=lambda: [zeros(1), None, 0], expect=lambda a: {0: [3.0]},
         ir="CHECK: tt.load %P, {{%[0-9]+}}, {{%[0-9]+}} : f32"),
    Rule("nested_and_scalar_conditions_mask_loads", """
__global__ void k(float *X, float *Y, float *P, int n, int m) {
  int r[16] = 0 ... 16;
  float x[16] = r < n ? (r < m ? *(X + r) : 1.0f) : 2.0f;
  *(Y + r) = x;
  float z[16] = m > 100 ? *(P + r) : 3.0f;
  *?(m > 100) (Y + 16 + r) = *?(m > 100) (P + r);
  *(Y + 32 + r) = z;
}""", args=fixed(randn(4), zeros(48), None, 8, 4),
         expect=lambda a: {1: np.concatenate([a[0], np.ones(4), 2 * np.ones(8), np.zeros(16), 3 * np.ones(16)])},
         ir="CHECK: tt.load {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : f32[16]\nCHECK: arith.select\n"
            "CHECK: %z = tt.load {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : f32[16]"),
    Rule("cond_masks_loads_nested_in_branches", """
__global__ void k(float *X, half *H, float *W, float *Y, int n, int m) {
  int r[16] = 0 ... 16;
  *(Y + r) = r < n ? *(X + r) * 2.0f : 1.0f;
  *(Y + 16 + r) = r < n ? (float[16]) *(H + r) : 1.0f;
  *(Y + 32 + r) = r < n ? *(X + r) + *(W + r) : 1.0f;
  *(Y + 48 + r) = r < n ? (r < m ? *(X + r) : 3.0f) : 2.0f;
  *(Y + 64 + r) = r >= n ? 1.0f : -*(X + r);
}""", args=fixed(randn(4), randn(4, dtype=f16), randn(4), zeros(80), 4, 8),
         expect=lambda a: {3: np.concatenate([np.concatenate([x, v * np.ones(12)]) for x, v in (
             (a[0] * 2, 1), (a[1].astype(f32), 1), (a[0] + a[2], 1), (a[0], 2), (-a[0], 1))])},
         ir="CHECK-NOT: tt.load {{%[a-z0-9_]+}} :"),
    Rule("cond_masks_every_access_in_branches", """
__global__ void k(half *H, float *S, float *X, float *A, int *P, float *Y, int *Old, int n) {
  int r[16] = 0 ... 16;
  bool c[16] = r < n;
  *(Y + r) = c ? (float) *(H + r) : 0.0f;
  *(Y + 16 + r) = c ? *S * 2.0f : 1.0f;
  *(Y + 32 + r) = c ? *?(r < 8)(X + r) + 1.0f : 2.0f;
  int rm[4] = 0 ... 4;
  float *pa[4, 8] = A + rm[:, newaxis] * 8 + (0 ... 8)[newaxis, :];
  *(Y + 48 + rm) = rm < n / 2 ? (*pa)[:, +] : -1.0f;
  *(Old + r) = c ? atomic_add(P + r, 1) : -1;
}""", args=fixed(randn(4, dtype=f16), randn(1), randn(4), randn(2, 8), randint(0, 9, 4), zeros(52),
                 zeros(16, dtype=i32), 4),
         expect=lambda a: {5: np.concatenate([a[0].astype(f32), np.zeros(12), np.full(4, 2 * a[1][0]), np.ones(12),
                                              a[2] + 1, np.full(12, 2), a[3].astype(f64).sum(1), [-1, -1]]),
                           4: a[4] + 1, 6: np.concatenate([a[4], np.full(12, -1)])}, rtol=1e-6,
         ir='CHECK-NOT: tt.load {{%[a-z0-9_]+}} :\nCHECK: tt.atomic_rmw {{%[0-9]+}}, {{%[0-9]+}}, %c {kind = "add"}'),
    Rule("scalar_condition_with_effects_runs_one_branch", """
__global__ void k(int *P, int *Out, int n) {
  int v = n > 0 ? atomic_add(P, 1) : -1;
  int w = n > 5 ? -2 : atomic_add(P + 1, 1);
  *Out = v; *(Out + 1) = w;
}""", args=lambda: [np.array([10, 20], i32), zeros(2, dtype=i32), 0], expect=lambda a: {0: [10, 21], 1: [-1, 20]},
         ir="CHECK: scf.if\nCHECK: tt.atomic_rmw\nCHECK: scf.if\nCHECK: tt.atomic_rmw", gpu=True),
    Rule("masked_deref_mask_broadcasts", """
__global__ void k(float *X, float *Y, int M) {
  int rm[4] = 0 ... 4;
  int rn[8] = 0 ... 8;
  bool rows[4] = rm < M;
  float x[4, 8] = *?(rows[:, newaxis]) (X + rm[:, newaxis] * 8 + rn[newaxis, :]);
  *?(rows[:, newaxis]) (Y + rm[:, newaxis] * 8 + rn[newaxis, :]) = x + 1.0f;
  atomic_add(Y + rm[:, newaxis] * 8 + rn[newaxis, :], 1.0f, rows[:, newaxis]);
}""", args=fixed(randn(16), zeros(16), 2), expect=lambda a: {1: (a[0] + f32(1)) + f32(1)},
         ir="CHECK: tt.expand_dims %rows\nCHECK: tt.broadcast {{.*}} : i1[4,8]\nCHECK: tt.load", gpu=True),
    Rule("select_evaluates_both_without_mask", """
__global__ void k(float *X, float *W, float *Y) {
  int r[16] = 0 ... 16;
  bool c[16] = r % 2 == 0;
  *(Y + r) = select(c, *(X + r), *(W + r));
}""", args=fixed(randn(16), randn(16), zeros(16)), expect=lambda a: {2: np.where(np.arange(16) % 2 == 0, a[0], a[1])},
         ir="CHECK: tt.load {{%[0-9]+}} : f32[16]\nCHECK: tt.load {{%[0-9]+}} : f32[16]\nCHECK: arith.select", gpu=True),

    # ---------------------------------------------------------------- matrix product
    Rule("matmul_half_to_float", IDX + """
__global__ void k(half *A, half *B, float *C) {
  half a[16, 32] = *(A + IDX2(16, 32));
  half b[32, 16] = *(B + IDX2(32, 16));
  float c[16, 16] = a @ b;
  *(C + IDX2(16, 16)) = c;
}""", args=fixed(randn(16, 32, dtype=f16), randn(32, 16, dtype=f16), zeros(16, 16)),
         expect=lambda a: {2: a[0].astype(f64) @ a[1].astype(f64)}, rtol=1e-5, atol=1e-5, init_types={"c": "float[16, 16]"},
         ir="CHECK: tt.dot %a, %b, {{%[0-9]+}} {{.*}}: f32[16,16]", gpu=True, gpu_rtol=1e-3, gpu_atol=1e-3),
    Rule("matmul_bf16_to_float", IDX + """
__global__ void k(bfloat16 *A, bfloat16 *B, float *C) {
  bfloat16 a[16, 16] = *(A + IDX2(16, 16));
  bfloat16 b[16, 16] = *(B + IDX2(16, 16));
  *(C + IDX2(16, 16)) = a @ b;
}""", args=fixed(randn(16, 16).astype(BF16), randn(16, 16).astype(BF16), zeros(16, 16)),
         expect=lambda a: {2: a[0].astype(f64) @ a[1].astype(f64)}, rtol=1e-5, atol=1e-5,
         ir="CHECK: tt.dot {{.*}} : f32[16,16]", gpu=True, gpu_rtol=1e-3, gpu_atol=1e-3),
    Rule("matmul_float_full_precision", IDX + """
__global__ void k(float *A, float *B, float *C) {
  float a[16, 16] = *(A + IDX2(16, 16));
  float b[16, 16] = *(B + IDX2(16, 16));
  *(C + IDX2(16, 16)) = a @ b;
}""", args=fixed(np.full((16, 16), 1 + 2.0**-20, f32), np.eye(16, dtype=f32), zeros(16, 16)),
         expect=lambda a: {2: np.full((16, 16), 1 + 2.0**-20)},
         ir='CHECK: tt.dot {{.*}}input_precision = "ieee"', gpu=True, gpu_rtol=0.0, gpu_atol=0.0),
    Rule("matmul_tf32_only_when_asked", IDX + """
__global__ void k(float *A, float *B, float *C) {
  float a[16, 16] = *(A + IDX2(16, 16));
  float b[16, 16] = *(B + IDX2(16, 16));
  *(C + IDX2(16, 16)) = a @ b;
}""", options={"allow_tf32": True}, args=fixed(randn(16, 16), randn(16, 16), zeros(16, 16)),
         expect=lambda a: {2: a[0].astype(f64) @ a[1].astype(f64)}, rtol=1e-5, atol=1e-5, ttir="CHECK: tt.dot",
         gpu=True, gpu_rtol=1e-2, gpu_atol=5e-2),
    Rule("matmul_int8_to_int", IDX + """
__global__ void k(char *A, char *B, int *C) {
  char a[16, 32] = *(A + IDX2(16, 32));
  char b[32, 16] = *(B + IDX2(32, 16));
  int c[16, 16] = a @ b;
  *(C + IDX2(16, 16)) = c;
}""", args=fixed(randint(-128, 128, 16, 32, dtype=i8), randint(-128, 128, 32, 16, dtype=i8), zeros(16, 16, dtype=i32)),
         expect=lambda a: {2: a[0].astype(i64) @ a[1].astype(i64)}, init_types={"c": "int[16, 16]"},
         ir="CHECK: tt.dot %a, %b, {{.*}} : i32[16,16]", gpu=True),
    Rule("matmul_other_element_types", IDX + """
__global__ void k(double *D, int *I, short *S, long *L, unsigned *U, half *H, float *F, float *Out) {
  double d[16, 16] = *(D + IDX2(16, 16));
  int i[16, 16] = *(I + IDX2(16, 16));
  short s[16, 16] = *(S + IDX2(16, 16));
  long l[16, 16] = *(L + IDX2(16, 16));
  unsigned u[16, 16] = *(U + IDX2(16, 16));
  half h[16, 16] = *(H + IDX2(16, 16));
  float f[16, 16] = *(F + IDX2(16, 16));
  double dd[16, 16] = d @ d;
  int ii[16, 16] = i @ i;
  short ss[16, 16] = s @ s;
  long ll[16, 16] = l @ l;
  unsigned uu[16, 16] = u @ u;
  float hf[16, 16] = h @ f;
  *(D + IDX2(16, 16)) = dd;
  *(I + IDX2(16, 16)) = ii;
  *(S + IDX2(16, 16)) = ss;
  *(L + IDX2(16, 16)) = ll;
  *(U + IDX2(16, 16)) = uu;
  *(Out + IDX2(16, 16)) = hf;
}""", args=fixed(randn(16, 16, dtype=f64), randint(-3, 4, 16, 16), randint(-3, 4, 16, 16, dtype=i16),
                 randint(-3, 4, 16, 16, dtype=i64), randint(0, 4, 16, 16, dtype=u32), randn(16, 16, dtype=f16), randn(16, 16),
                 zeros(16, 16)),
         expect=lambda a: {0: a[0] @ a[0], 1: a[1].astype(i64) @ a[1], 2: (a[2].astype(i64) @ a[2]).astype(i16),
                           3: a[3] @ a[3], 4: a[4] @ a[4], 7: a[5].astype(f64) @ a[6].astype(f64)}, rtol=1e-5, atol=1e-5,
         init_types={"dd": "double[16, 16]", "ii": "int[16, 16]", "ss": "short[16, 16]", "ll": "long[16, 16]",
                     "uu": "unsigned int[16, 16]", "hf": "float[16, 16]"},
         ir="CHECK: tt.dot %d, %d, {{.*}} : f64[16,16]\nCHECK: tt.dot %i, %i, {{.*}} : i32[16,16]\n"
            "CHECK: tt.dot %s, %s, {{.*}} : i16[16,16]\nCHECK: tt.dot %l, %l, {{.*}} : i64[16,16]\n"
            "CHECK: tt.dot %u, %u, {{.*}} : i32[16,16]\nCHECK: arith.extf %h\nCHECK: tt.dot {{.*}} : f32[16,16]",
         gpu_rtol=1e-5, gpu_atol=1e-5),
    Rule("matmul_batched_3d", """
#define P3(D0, D1, D2) ((0 ... D0)[:, newaxis, newaxis] * (D1 * D2) + (0 ... D1)[newaxis, :, newaxis] * D2 + (0 ... D2)[newaxis, newaxis, :])
__global__ void k(float *A, float *B, float *C) {
  float a[16, 8, 2] = *(A + P3(16, 8, 2));
  float b[8, 16, 2] = *(B + P3(8, 16, 2));
  float c[16, 16, 2] = a @ b;
  *(C + P3(16, 16, 2)) = c;
}""", args=fixed(randn(16, 8, 2), randn(8, 16, 2), zeros(16, 16, 2)),
         expect=lambda a: {2: np.einsum("mkb,knb->mnb", a[0].astype(f64), a[1].astype(f64))}, rtol=1e-5, atol=1e-5,
         types={"c": "float[16, 16, 2]"}, ir="CHECK: tt.dot %a, %b, {{.*}} : f32[16,16,2]", gpu=True),
    Rule("matmul_accumulate_is_one_mac", IDX + """
__global__ void k(half *A, half *B, float *C) {
  float acc[16, 16] = 0;
  half *pa[16, 16] = A + IDX2(16, 16);
  for (int i = 0; i < 4; i++) {
    acc += *pa @ *(B + IDX2(16, 16));
    pa += 256;
  }
  *(C + IDX2(16, 16)) = acc;
}""", args=fixed(randn(64, 16, dtype=f16), randn(16, 16, dtype=f16), zeros(16, 16)),
         expect=lambda a: {2: sum(a[0][16 * j:16 * j + 16].astype(f64) @ a[1].astype(f64) for j in range(4))},
         rtol=1e-5, atol=1e-4,
         ttir="CHECK: scf.for\nCHECK: %acc{{[_0-9]*}} = tt.dot {{%[a-z0-9_]+}}, {{%[a-z0-9_]+}}, %acc{{[_0-9]*}}\n"
              "CHECK-NEXT: {{.*}}tt.addptr", gpu=True, gpu_rtol=1e-3, gpu_atol=1e-3),

    # ---------------------------------------------------------------- casts and bitcasts
    Rule("casts_element_and_shape", """
__global__ void k(float *Out, int *I, half *H) {
  int r[8] = 0 ... 8;
  float x[8] = (float[8]) r;
  bool m[4, 8] = (bool[4, 8]) (get_program_id(0) == 0);
  float y[4, 8] = m ? (float[4, 8]) x : 0.0f;
  *(Out + (0 ... 4)[:, newaxis] * 8 + r[newaxis, :]) = y;
  *(I + r) = (int[8]) (x * 1.5f);
  *(H + r) = (half) x;
  *(I + 8 + r) = (int[2, 4]) (x + 1.0f);
}""", args=lambda: [zeros(32), zeros(16, dtype=i32), zeros(8, dtype=f16)],
         expect=lambda a: {0: np.tile(np.arange(8), 4), 1: np.concatenate([(np.arange(8) * 1.5).astype(int), np.arange(1, 9)]),
                           2: np.arange(8)},
         types={"x": "float[8]", "m": "bool[4, 8]"}, ir="CHECK: arith.sitofp %r : f32[8]\nCHECK: tt.splat\nCHECK: tt.broadcast",
         gpu=True),
    Rule("bitcast_scalar_and_tile_types", """
__global__ void k(int *I, unsigned *U, float *F, short *S, half *H) {
  int r[8] = 0 ... 8;
  float f[8] = *(F + r);
  *(I + r) = bitcast<int>(f);
  float acc[2, 4] = (float[2, 4]) f;
  *(U + r) = (unsigned[8]) bitcast<uint32[2, 4]>(acc);
  *(F + 8) = bitcast<float>(0x3F800000);
  *(S + r) = bitcast<short>(*(H + r));
  *(F + 9) = F32_INFINITY;
  *(H + 8) = -F16_INFINITY;
}""", args=fixed(zeros(8, dtype=i32), zeros(8, dtype=u32), np.concatenate([randn(8), [0, 0]]).astype(f32),
                 zeros(8, dtype=i16), np.concatenate([randn(8), [0]]).astype(f16)),
         expect=lambda a: {0: a[2][:8].view(i32), 1: a[2][:8].view(u32), 2: np.concatenate([a[2][:8], [1.0, np.inf]]),
                           3: a[4][:8].view(i16), 4: np.concatenate([a[4][:8], [-np.inf]])},
         ir="CHECK: arith.bitcast %f : i32[8]\nCHECK: arith.bitcast %acc : i32[2,4]", gpu=True),

    # ---------------------------------------------------------------- random numbers
    Rule("random_rand_randint", IDX + """
__global__ void k(unsigned int *I, float *U, long seed) {
  int r[8, 16] = get_program_id(0) * 128 + IDX2(8, 16);
  *(I + r) = randint(seed, r);
  *(U + r) = rand(seed, r);
  *(U + 256 + r) = rand(-3, r * 7);
}""", grid=2, args=lambda: [zeros(256, dtype=u32), zeros(512), np.int64(0x12345678_9ABCDEF)],
         expect=lambda a: {0: _philox_word0(a[2], np.arange(256)),
                           1: np.concatenate([_uniform(_philox_word0(a[2], np.arange(256))),
                                              _uniform(_philox_word0(-3, np.arange(256) * 7))])},
         types={"r": "int[8, 16]"},
         ir="CHECK: math.philox %r, {{%[0-9]+}}, {{%[0-9]+}} {word = 0} : i32[8,16]\n"
            "CHECK: arith.sitofp\nCHECK: arith.mulf",
         ptx="CHECK: mul.hi.u32", gpu=True),
    Rule("random_randn_scalar_offsets", """
__global__ void k(float *N, unsigned int *I, unsigned int seed) {
  int r[64] = 0 ... 64;
  *(N + r) = randn(seed, r);
  unsigned int o = 4000000000;
  *I = randint(seed, o);
  *(N + 64) = rand(seed, o);
}""", args=lambda: [zeros(65), zeros(1, dtype=u32), np.uint32(0xFFFFFFFF)],
         expect=lambda a: {0: np.concatenate([_normal(0xFFFFFFFF, np.arange(64)),
                                              _uniform(_philox_word0(0xFFFFFFFF, [4000000000]))]),
                           1: _philox_word0(0xFFFFFFFF, [4000000000])},
         # on the GPU, cos is cos.approx.f32 (absolute error ~2^-21) times r <= 5.7: atol 4e-6
         rtol=1e-6, atol=1e-6, gpu_atol=4e-6,
         ir="CHECK: math.philox {{.*}} {word = 0}\nCHECK: math.philox {{.*}} {word = 1}\n"
            "CHECK: math.log\nCHECK: math.sqrt\nCHECK: math.cos", gpu=True),

    # ---------------------------------------------------------------- math
    Rule("math_float", """
__global__ void k(float *X, float *Out) {
  int r[16] = 0 ... 16;
  float x[16] = *(X + r);
  float p[16] = fabs(x) + 0.5f;
  *(Out + r) = exp(x);
  *(Out + 16 + r) = log(p);
  *(Out + 32 + r) = sqrt(p);
  *(Out + 48 + r) = sqrtf(p);
  *(Out + 64 + r) = rsqrt(p);
  *(Out + 80 + r) = sin(x);
  *(Out + 96 + r) = cos(x);
  *(Out + 112 + r) = abs(x);
  *(Out + 128 + r) = floor(x * 3.0f);
  *(Out + 144 + r) = ceil(x * 3.0f);
  *(Out + 160 + r) = fma(x, p, x);
  *(Out + 176 + r) = min(x, 0.25f) + max(x, p * 0.5f);
}""", args=fixed(randn(16) * 2, zeros(192)), rtol=2e-6, atol=1e-6,
         expect=lambda a: {1: _math_ref(a[0].astype(f64))},
         ir="CHECK: math.exp\nCHECK: math.log\nCHECK: math.sqrt\nCHECK: math.sqrt\nCHECK: math.rsqrt\nCHECK: math.sin\n"
            "CHECK: math.cos\nCHECK: math.absf\nCHECK: math.floor\nCHECK: math.ceil\nCHECK: math.fma\n"
            "CHECK: arith.minnumf\nCHECK: arith.maxnumf",
         gpu=True, gpu_rtol=1e-5, gpu_atol=1e-5),
    Rule("exp_log_relative_error", """
__global__ void k(float *X, float *Out) {
  int r[128] = 0 ... 128;
  float x[128] = *(X + r);
  *(Out + r) = exp(x);
  *(Out + 128 + r) = log(x * x + 2.0f);
}""", args=fixed(np.linspace(-20, 20, 128).astype(f32), zeros(256)), rtol=2**-21,
         expect=lambda a: {1: np.concatenate([np.exp(a[0].astype(f64)),
                                              np.log((a[0] * a[0] + f32(2)).astype(f64))])},
         ir="CHECK: math.exp {{.*}} : f32[128]\nCHECK: math.log {{.*}} : f32[128]", gpu=True, gpu_rtol=2**-21, gpu_atol=0.0),
    # tritonc extension (docs/language.md 7.10): exp2 and log2, as CUDA's exp2f/log2f and
    # Triton's tl.exp2/tl.log2; f32 results below 2^-126 may be flushed to zero (-fexp-ftz)
    Rule("exp2_log2_extension", """
__global__ void k(float *X, float *Out) {
  int r[128] = 0 ... 128;
  float x[128] = *(X + r);
  *(Out + r) = exp2(x);
  *(Out + 128 + r) = log2(x * x + 2.0f);
  *(Out + 256 + r) = exp(x * 0.5f - 20.0f);
}""", args=fixed(np.linspace(-140, 100, 128).astype(f32), zeros(384)), rtol=2**-21, atol=2.0**-126,
         expect=lambda a: {1: np.concatenate([np.exp2(a[0].astype(f64)),
                                              np.log2((a[0] * a[0] + f32(2)).astype(f64)),
                                              np.exp((a[0] * f32(0.5) - f32(20)).astype(f64))]).astype(f32)},
         ir="CHECK: math.exp2 {{.*}} : f32[128]\nCHECK: math.log2 {{.*}} : f32[128]\nCHECK: math.exp",
         ptx="CHECK-COUNT-2: ex2.approx.ftz.f32\nCHECK-NOT: ex2.approx.f32",
         gpu=True, gpu_rtol=2**-21, gpu_atol=2.0**-126),
    Rule("math_result_types", """
__global__ void k(double *D, float *F, int *I, half *H) {
  int r[4] = 0 ... 4;
  double d[4] = *(D + r);
  double e[4] = exp(d) + sqrt(d);
  *(D + r) = e;
  int i[4] = *(I + r);
  float s[4] = sqrt(i);
  float hh[4] = exp(*(H + r));
  *(F + r) = s + hh;
  float ai[4] = abs(i - 2);
  *(I + r) = ai + min(i, 1) + max(i, 2);
}""", args=fixed(np.array([0.5, 1, 2, 4], f64), zeros(4), np.array([1, 4, 9, 16], i32), np.array([0, 1, -1, 2], f16)),
         expect=lambda a: {0: np.exp(a[0]) + np.sqrt(a[0]), 1: np.sqrt(a[2].astype(f32)) + np.exp(a[3].astype(f32)),
                           2: np.abs(a[2] - 2) + np.minimum(a[2], 1) + np.maximum(a[2], 2)}, rtol=1e-6,
         init_types={"e": "double[4]", "s": "float[4]", "hh": "float[4]", "ai": "float[4]"},
         ir="CHECK: math.exp {{.*}} : f64[4]\nCHECK: math.sqrt {{.*}} : f64[4]\nCHECK: arith.sitofp %i : f32[4]\n"
            "CHECK: math.sqrt\nCHECK: arith.extf\nCHECK: math.exp {{.*}} : f32[4]\nCHECK: arith.sitofp\nCHECK: %ai = math.absf {{.*}} : f32[4]\nCHECK: arith.minsi\n"
            "CHECK: arith.maxsi",
         gpu=True, gpu_rtol=1e-6),

    # ---------------------------------------------------------------- atomics
    Rule("atomic_add_scalar_returns_old", """
__global__ void k(int *Counter, int *Old) {
  int pid = get_program_id(0);
  *(Old + pid) = atomic_add(Counter, 1);
}""", grid=8, seeds=(None, 3), args=lambda: [zeros(1, dtype=i32), np.full(8, -1, i32)], expect=lambda a: {0: [8]},
         check=lambda o, i: np.testing.assert_array_equal(np.sort(o[1]), np.arange(8)),
         ir='CHECK: tt.atomic_rmw %Counter, {{%[0-9]+}} {kind = "add"} : i32', gpu=True, gpu_outputs=(0,)),
    Rule("atomic_add_tiles_with_mask", """
__global__ void k(float *X, half *H, long *L, int n) {
  int r[16] = 0 ... 16;
  atomic_add(X + r, 1.5f, r < n);
  atomic_add(H + r, (half) 2.0f, r < n);
  atomic_add(L + r, (long)(0 ... 16));
}""", grid=4, seeds=(None, 1), args=lambda: [zeros(16), zeros(16, dtype=f16), zeros(16, dtype=i64), 10],
         expect=lambda a: {0: np.where(np.arange(16) < 10, 6.0, 0), 1: np.where(np.arange(16) < 10, 8.0, 0),
                           2: 4 * np.arange(16)},
         ir='CHECK: {kind = "fadd"} : f32[16]\nCHECK: {kind = "fadd"} : f16[16]\nCHECK: {kind = "add"} : i64[16]',
         ptx="CHECK-DAG: atom.global{{.*}}.add.f32\nCHECK-DAG: atom.global{{.*}}.add{{.*}}.f16\n"
             "CHECK-DAG: atom.global{{.*}}.add.u64", gpu=True),
    Rule("atomic_max_min_signed_unsigned_float", """
__global__ void k(int *I, unsigned *U, float *F, int *Vals) {
  int pid = get_program_id(0);
  int r[8] = 0 ... 8;
  int v[8] = *(Vals + pid * 8 + r);
  atomic_max(I + r, v);
  atomic_min(I + 8 + r, v, r < 6);
  atomic_max(U + r, (unsigned[8]) v);
  atomic_min(U + 8 + r, (unsigned[8]) v);
  atomic_max(F + r, (float[8]) v);
  atomic_min(F + 8 + r, (float[8]) v);
}""", grid=4, seeds=(None, 2),
         args=fixed(np.concatenate([np.zeros(8), np.full(8, 100)]).astype(i32),
                    np.concatenate([np.zeros(8), np.full(8, 2**31)]).astype(u32),
                    np.concatenate([np.full(8, -1e9), np.full(8, 1e9)]).astype(f32), randint(-50, 50, 32)),
         expect=lambda a: {0: np.concatenate([np.maximum(a[3].reshape(4, 8).max(0), 0),
                                              np.where(np.arange(8) < 6, np.minimum(a[3].reshape(4, 8).min(0), 100), 100)]),
                           1: np.concatenate([a[3].astype(u32).reshape(4, 8).max(0),
                                              np.minimum(a[3].astype(u32).reshape(4, 8).min(0), 2**31)]),
                           2: np.concatenate([a[3].reshape(4, 8).max(0), a[3].reshape(4, 8).min(0)])},
         ir='CHECK: {kind = "max"}\nCHECK: {kind = "min"}\nCHECK: {kind = "umax"}\nCHECK: {kind = "umin"}\n'
            'CHECK: {kind = "fmax"}\nCHECK: {kind = "fmin"}',
         ptx="CHECK-DAG: atom.global{{.*}}.max.s32\nCHECK-DAG: atom.global{{.*}}.min.s32\n"
             "CHECK-DAG: atom.global{{.*}}.max.u32\nCHECK-DAG: atom.global{{.*}}.min.u32", gpu=True),
    Rule("atomic_max_min_scalars_with_masks", """
__global__ void k(int *P, float *F) {
  int pid = get_program_id(0);
  atomic_max(P, pid * 3 - 5, pid != 3);
  atomic_min(P + 1, pid * 3 - 5, pid > 0);
  atomic_max(F, (float) pid - 1.5f);
  atomic_min(F + 1, (float) pid - 1.5f, true);
}""", grid=4, seeds=(None, 6), args=lambda: [np.array([-100, 100], i32), np.array([-100, 100], f32)],
         expect=lambda a: {0: [1, -2], 1: [1.5, -1.5]}, ir='CHECK: tt.atomic_rmw %P, {{%[0-9]+}}, {{%[0-9]+}} {kind = "max"} : i32',
         gpu=True),
    Rule("atomic_xchg_and_cas", """
__global__ void k(int *P, int *Old, float *F, int *T) {
  int r[4] = 0 ... 4;
  *Old = atomic_xchg(P, 5);
  *(Old + 1) = atomic_cas(P, 5, 9);
  *(Old + 2) = atomic_cas(P, 5, 11);
  *(Old + 3) = *P;
  float of = atomic_xchg(F, 2.5f);
  *(F + 1) = of;
  int o[4] = atomic_cas(T + r, r, 7 - r);
  *(Old + 4 + r) = o;
  *(Old + 8 + r) = atomic_xchg(T + 4 + r, r);
}""", args=fixed(np.array([3], i32), zeros(12, dtype=i32), np.array([1.25, 0], f32),
                 np.array([0, 0, 2, 2, 10, 11, 12, 13], i32)),
         expect=lambda a: {0: [9], 1: [3, 5, 9, 9, 0, 0, 2, 2, 10, 11, 12, 13], 2: [2.5, 1.25],
                           3: [7, 0, 5, 2, 0, 1, 2, 3]},
         ir="CHECK: tt.atomic_rmw %P, {{%[0-9]+}} {kind = \"xchg\"}\nCHECK: tt.atomic_cas %P\nCHECK: tt.atomic_cas {{.*}} : i32[4]",
         gpu=True),
    Rule("atomics_long_unsigned_double_tiles", """
__global__ void k(long *L, unsigned long *UL, double *D, float *F) {
  int r[4] = 0 ... 4;
  atomic_max(L + r, (long) -5);
  atomic_min(UL + r, (unsigned long) 7);
  double od[4] = atomic_xchg(D + r, 2.5);
  *(D + 4 + r) = od;
  float of[4] = atomic_cas(F + r, 1.0f, 9.0f);
  *(F + 4 + r) = of;
}""", args=fixed(np.array([-10, 0, -5, 3], i64), np.array([2**63, 3, 7, 8], u64), np.array([1, 2, 3, 4, 0, 0, 0, 0], f64),
                 np.array([1, 2, 1, 0, 0, 0, 0, 0], f32)),
         expect=lambda a: {0: [-5, 0, -5, 3], 1: [7, 3, 7, 7], 2: [2.5] * 4 + [1, 2, 3, 4], 3: [9, 2, 9, 0, 1, 2, 1, 0]},
         ir='CHECK: {kind = "max"} : i64[4]\nCHECK: {kind = "umin"} : i64[4]\nCHECK: {kind = "xchg"} : f64[4]\n'
            'CHECK: tt.atomic_cas {{.*}} : f32[4]', gpu=True),
    Rule("atomic_histogram_duplicate_addresses", """
__global__ void histogram(int *Bins, int *Keys, int n) {
  int r[128] = get_program_id(0) * 128 + 0 ... 128;
  atomic_add(Bins + (r < n ? *(Keys + r) : 0), 1, r < n);
}""", grid=3, seeds=(None, 5), args=fixed(zeros(10, dtype=i32), randint(0, 10, 300), 300),
         expect=lambda a: {0: np.bincount(a[1], minlength=10)}, ir='CHECK: tt.load\nCHECK: {kind = "add"} : i32[128]',
         gpu=True),
    Rule("atomic_spin_lock", """
__global__ void accumulate(int *lock, float *out, float *x) {
  int pid = get_program_id(0);
  while (atomic_cas(lock, 0, 1) == 1);
  *out = *out + *(x + pid);
  atomic_xchg(lock, 0);
}""", grid=8, seeds=(None, 1, 2, 3), args=lambda: [zeros(1, dtype=i32), zeros(1), np.arange(8, dtype=f32)],
         expect=lambda a: {0: [0], 1: [28.0]}, ir="CHECK: scf.while\nCHECK: tt.atomic_cas\nCHECK: tt.atomic_rmw",
         gpu=True),  # scalar atomics are CTA-wide acquire-release points (docs/language.md 7.11)
    Rule("atomic_spin_lock_paper_for", """
__global__ void accumulate(int *plock, int *count, int *out) {
  for (int r = 1; r == 1; r = atomic_cas(plock, 0, 1));
  int c = *count;
  *(out + c) = get_program_id(0);
  *count = c + 1;
  atomic_xchg(plock, 0);
}""", grid=6, seeds=(None, 4), args=lambda: [zeros(1, dtype=i32), zeros(1, dtype=i32), np.full(6, -1, i32)],
         expect=lambda a: {0: [0], 1: [6]}, check=lambda o, i: np.testing.assert_array_equal(np.sort(o[2]), np.arange(6)),
         ir="CHECK: scf.while\nCHECK: tt.atomic_cas %plock\nCHECK: tt.atomic_rmw %plock", gpu=True,
         gpu_outputs=(0, 1)),  # `out` holds the order the CTAs took the lock: any order is right

    # ---------------------------------------------------------------- barrier
    Rule("debug_barrier_orders_store_and_reload", """
__global__ void k(float *Buf, float *Out) {
  int r[128] = 0 ... 128;
  *(Buf + r) = (float[128]) r;
  __debug_barrier();
  *(Out + r) = *(Buf + 127 - r);
}""", args=lambda: [zeros(128), zeros(128)], expect=lambda a: {1: np.arange(127, -1, -1)},
         ir="CHECK: tt.store\nCHECK-NEXT: gpu.barrier\nCHECK: tt.load",
         ptx="CHECK: st.global\nCHECK: bar.sync 0\nCHECK: ld.global", gpu=True),

    # ---------------------------------------------------------------- paper-era built-ins
    Rule("paper_era_builtins", IDX + """
__global__ void k(float *X, float *Out, int *I) {
  int pid = get_range_id(0);
  int np = get_num_program(0);
  int g[8] = get_global_range[8](0);
  fp32 x[8, 4] = *(X + g[:, newaxis] * 4 + (0 ... 4)[newaxis, :]);
  float *o = Out + pid * 176;
  *(o + (0 ... 8)) = __sum(x, 1);
  *(o + 8 + IDX2(4, 8)) = __reshape(x, 4, 8);
  *(o + 40 + IDX2(4, 8)) = trans(x);
  *(o + 72 + IDX2(4, 8)) = trans(x, 1, 0);
  fp32 d[8, 8] = dot(x, trans(x));
  *(o + 104 + IDX2(8, 8)) = dot(x, trans(x), d);
  *(o + 168 + (0 ... 8)) = sqrt(__sum(x, 1) * __sum(x, 1));
  __atomic_add(I, 1);
  __atomic_cas(I + 1 + pid, 0, pid + 5);
  __atomic_exch(I + 3 + pid, np);
  __atomic_exchg(I + 5 + pid, 7);
  f32_atomic_add(Out + 352, 1.0f);
}""", grid=2, args=fixed(randn(16, 4), zeros(353), zeros(7, dtype=i32)),
         expect=lambda a: {1: np.concatenate([_paper_ref(a[0][8 * p:8 * p + 8].astype(f64)) for p in range(2)] + [[2]]),
                           2: [2, 5, 6, 2, 2, 7, 7]}, rtol=1e-5, atol=1e-5,
         ir='CHECK: %pid = tt.get_program_id {axis = 0}\nCHECK: %np = tt.get_num_programs {axis = 0}\n'
            'CHECK: tt.get_program_id {axis = 0}\nCHECK: tt.make_range {end = 8, start = 0}\nCHECK: %g = arith.addi\n'
            'CHECK: tt.reduce %x {axis = 1, combine = "addf"}\nCHECK: tt.reshape %x : f32[4,8]\n'
            'CHECK: tt.trans %x {order = [1, 0]}\nCHECK: tt.trans %x {order = [1, 0]}\nCHECK: tt.dot\nCHECK: tt.dot\n'
            'CHECK: math.sqrt\nCHECK: {kind = "add"}\nCHECK: tt.atomic_cas\nCHECK: {kind = "xchg"}\nCHECK: {kind = "xchg"}\n'
            'CHECK: {kind = "fadd"}', gpu=True, gpu_rtol=1e-5, gpu_atol=1e-5),

    Rule("debug_barrier_in_a_loop", """
__global__ void k(float *Buf) {
  int r[64] = 0 ... 64;
  for (int i = 0; i < 3; i++) {
    float v[64] = *(Buf + 63 - r);
    __debug_barrier();
    *(Buf + r) = v + 1.0f;
    __debug_barrier();
  }
}""", args=fixed(np.arange(64, dtype=f32)), expect=lambda a: {0: a[0][::-1] + 3},
         ir="CHECK: scf.for\nCHECK: gpu.barrier\nCHECK: tt.store\nCHECK: gpu.barrier", gpu=True),

    # ---------------------------------------------------------------- program ids
    Rule("program_ids_and_counts_3d", """
__global__ void k(int *Out) {
  int x = get_program_id(0), y = get_program_id(1), z = get_program_id(2);
  int nx = get_num_programs(0), ny = get_num_programs(1), nz = get_num_programs(2);
  int lin = (x * ny + y) * nz + z;
  *(Out + lin) = x * 100 + y * 10 + z + 1000 * (nx * ny * nz);
}""", grid=(2, 3, 4), args=lambda: [zeros(24, dtype=i32)],
         expect=lambda a: {0: [x * 100 + y * 10 + z + 24000 for x in range(2) for y in range(3) for z in range(4)]},
         ir="CHECK: tt.get_program_id {axis = 0}\nCHECK: tt.get_program_id {axis = 2}\nCHECK: tt.get_num_programs {axis = 1}",
         ptx="CHECK-DAG: %ctaid.x\nCHECK-DAG: %ctaid.y\nCHECK-DAG: %ctaid.z\nCHECK-DAG: %nctaid.x\n"
             "CHECK-DAG: %nctaid.y\nCHECK-DAG: %nctaid.z", gpu=True),
]


def _scatter(idx, vals):
    out = np.zeros(16, np.float32)
    out[idx] = vals
    return out


def _paper_ref(x):
    s = x.sum(1)
    return np.concatenate([s, x.reshape(-1), x.T.reshape(-1), x.T.reshape(-1), (2 * x @ x.T).reshape(-1), np.abs(s)])


def _philox(seed, offsets):
    """Philox4x32-10 as OpenAI Triton's ``tl.randint4x``: key = the low/high words of the seed
    extended to 64 bits, counter = ``(offset, 0, 0, 0)`` (Salmon et al. 2011)."""
    m = (1 << 32) - 1
    seed = int(seed) & ((1 << 64) - 1)
    k0, k1 = np.uint64(seed & m), np.uint64(seed >> 32)
    c0 = np.asarray(offsets).astype(np.int64).astype(np.uint64) & np.uint64(m)
    c1 = c2 = c3 = np.zeros_like(c0)
    mask, sh = np.uint64(m), np.uint64(32)
    for _ in range(10):
        p0, p2 = c0 * np.uint64(0xD2511F53), c2 * np.uint64(0xCD9E8D57)
        c0, c1, c2, c3 = (p2 >> sh) ^ c1 ^ k0, p2 & mask, (p0 >> sh) ^ c3 ^ k1, p0 & mask
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    return [c.astype(np.uint32) for c in (c0, c1, c2, c3)]


def _philox_word0(seed, offsets):
    return _philox(seed, offsets)[0]


def _uniform(words):
    """Triton's ``uint_to_uniform_float``: signed view folded onto [0, 2^31), times a scale (f32)."""
    x = words.view(np.int32)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def _normal(seed, offsets):
    w = _philox(seed, offsets)
    u1 = np.maximum(_uniform(w[0]), np.float32(1e-7)).astype(f64)
    return np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * _uniform(w[1]).astype(f64))


def _math_ref(x):
    p = np.abs(x) + 0.5
    return np.concatenate([np.exp(x), np.log(p), np.sqrt(p), np.sqrt(p), 1 / np.sqrt(p), np.sin(x), np.cos(x), np.abs(x),
                           np.floor(x.astype(np.float32) * np.float32(3)), np.ceil(x.astype(np.float32) * np.float32(3)),
                           x * p + x, np.minimum(x, 0.25) + np.maximum(x, p * 0.5)])


test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
