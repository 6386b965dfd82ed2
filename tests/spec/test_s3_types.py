"""Spec section 3, types: every scalar type (with signedness and the tritonc bfloat16), pointers
to global memory, tiles of rank 1 to 4 with power-of-two dimensions, tiles of pointers and of
bool, and tile types without a name in casts. Rejections (non-power-of-two dimensions, nested C
arrays, struct/union/enum/function pointers) are in test_diagnostics.py."""
import ml_dtypes
import numpy as np

from spec_helpers import BF16, Rule, fixed, randn, spec_tests, zeros

i8, i16, i32, i64, u8, u16, u32, u64 = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                                         np.uint64)
f16, f32, f64 = np.float16, np.float32, np.float64

# (spelling, numpy dtype, IR type, C type after canonicalisation, a value to pass)
SCALARS = [
    ("bool", np.bool_, "i1", "bool", True),
    ("char", i8, "i8", "char", -100),
    ("int8", i8, "i8", "char", 100),
    ("signed char", i8, "i8", "char", -5),
    ("unsigned char", u8, "i8", "unsigned char", 250),
    ("uint8", u8, "i8", "unsigned char", 7),
    ("short", i16, "i16", "short", -30000),
    ("int16", i16, "i16", "short", 12345),
    ("short int", i16, "i16", "short", -2),
    ("unsigned short", u16, "i16", "unsigned short", 65000),
    ("uint16", u16, "i16", "unsigned short", 3),
    ("int", i32, "i32", "int", -2000000000),
    ("int32", i32, "i32", "int", 2000000000),
    ("signed", i32, "i32", "int", -9),
    ("unsigned", u32, "i32", "unsigned int", 4000000000),
    ("unsigned int", u32, "i32", "unsigned int", 5),
    ("uint32", u32, "i32", "unsigned int", 4294967295),
    ("long", i64, "i64", "long", -(2**62)),
    ("int64", i64, "i64", "long", 2**62 + 1),
    ("long long", i64, "i64", "long", -3),
    ("long int", i64, "i64", "long", 4),
    ("unsigned long", u64, "i64", "unsigned long", 2**64 - 2),
    ("uint64", u64, "i64", "unsigned long", 2**63),
    ("unsigned long long", u64, "i64", "unsigned long", 11),
    ("half", f16, "f16", "half", 1.5),
    ("bfloat16", BF16, "bf16", "bfloat16", 3.140625),
    ("float", f32, "f32", "float", 0.1),
    ("double", f64, "f64", "double", 0.1),
]


def _wrap(value: int, bits: int, signed: bool) -> int:
    value %= 1 << bits
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


def _scalar_rule(spelling, dtype, ir_type, ctype, value):
    name = spelling.replace(" ", "_")
    body = "*P = !v;" if spelling == "bool" else "*P = v;\n  *(P + 1) = v + 1;\n  *(P + 2) = (0 ... 4)[+] - v;"
    src = f"""
__global__ void k({spelling} *P, {spelling} v) {{
  {body}
}}"""
    n = 1 if spelling == "bool" else 3

    def expect(a, dtype=dtype, v=value):
        if dtype is np.bool_:
            return {0: [not v]}
        x = np.array(v).astype(dtype)
        if np.dtype(dtype).kind in "iu":
            # the arithmetic happens in int or wider (integer promotion) and wraps on the store
            bits, xi = 8 * np.dtype(dtype).itemsize, int(x)
            return {0: np.array([_wrap(y, bits, np.dtype(dtype).kind == "i") for y in (xi, xi + 1, 6 - xi)], dtype)}
        if dtype is f64:
            return {0: [x, x + 1, 6 - x]}
        if dtype is f32:
            return {0: [x, x + f32(1), f32(6) - x]}
        # half, bfloat16: int + half is half, computed in the type (rounded after each op)
        return {0: np.array([x, (x.astype(f32) + 1).astype(dtype), (6 - x.astype(f32)).astype(dtype)], dtype)}

    ir = f"CHECK: tt.func @k(%P: ptr<{ir_type}>{{{{( {{unsigned}})?}}}}, %v: {ir_type}"
    return Rule(f"scalar_{name}", src, args=lambda: [np.zeros(n, dtype), value], expect=expect,
                types={"v": ctype, "P": ctype + "*"}, ir=ir, gpu=spelling in ("bool", "char", "unsigned short", "uint32",
                                                                               "long", "uint64", "half", "bfloat16",
                                                                               "double"))


RULES = [_scalar_rule(*s) for s in SCALARS] + [
    Rule("pointers_to_global_memory", """
__global__ void k(float *X, double *D __aligned(16), long *L) {
  float *p = X + 1;
  double *q = D;
  *p = *X * 2.0f;
  *q = *(q + 1);
  *L = p - X;
}""", args=fixed(np.array([3, 0], f32), np.array([0, 7.5], f64), zeros(1, dtype=i64)),
         expect=lambda a: {0: [3, 6], 1: [7.5, 7.5], 2: [1]}, types={"p": "float*", "q": "double*"},
         ir="CHECK: %D: ptr<f64> {aligned = 16}\nCHECK: tt.addptr %X", ptx="CHECK: .entry k(\nCHECK: .param .u64", gpu=True),
    Rule("tiles_rank_1_to_4", """
__global__ void k(float *Out) {
  float a[2] = 1;
  float b[2, 4] = 2;
  float c[2, 4, 8] = 3;
  float d[2, 2, 2, 2] = 4;
  *Out = a[+] + b[+, +] + c[+, +, +] + d[+, +, +, +];
}""", args=lambda: [zeros(1)], expect=lambda a: {0: [2 + 16 + 192 + 64]},
         types={"a": "float[2]", "b": "float[2, 4]", "c": "float[2, 4, 8]", "d": "float[2, 2, 2, 2]"},
         ir="CHECK: f32[2]\nCHECK: f32[2,4]\nCHECK: f32[2,4,8]\nCHECK: f32[2,2,2,2]", gpu=True),
    Rule("tiles_of_pointers_bool_and_16bit_floats", """
#define N 8
__global__ void k(half *H, bfloat16 *B, bool *M) {
  int r[N] = 0 ... N;
  half *ph[N] = H + r;
  bfloat16 *pb[N] = B + r;
  bool m[N] = r < 5;
  *?(m) ph = *ph + (half) 1;
  *pb = *pb * (bfloat16) 2;
  *(M + r) = m;
}""", args=fixed(randn(8, dtype=f16), randn(8).astype(BF16), np.zeros(8, bool)),
         expect=lambda a: {0: np.where(np.arange(8) < 5, (a[0] + f16(1)), a[0]), 1: (a[1].astype(f32) * 2).astype(BF16),
                           2: np.arange(8) < 5},
         types={"ph": "half*[8]", "pb": "bfloat16*[8]", "m": "bool[8]"},
         ir="CHECK: tt.splat %H : ptr<f16>[8]\nCHECK: tt.splat %B : ptr<bf16>[8]\nCHECK: %m = arith.cmpi {{.*}} : i1[8]",
         gpu=True),
    Rule("unnamed_tile_types_in_casts", """
#define TM 4
#define TK 8
__global__ void k(float *Out, int n) {
  float x[TK] = (float[TK]) (0 ... TK);
  bool m[TM, TK] = (bool[TM, TK]) (n > 2);
  float y[TM, TK] = m ? (float[TM, TK]) x : (float[TM, TK]) -1.0f;
  *(Out + (0 ... TM)[:, newaxis] * TK + (0 ... TK)[newaxis, :]) = y;
}""", args=lambda: [zeros(4, 8), 3], expect=lambda a: {0: np.tile(np.arange(8.0), (4, 1))},
         types={"m": "bool[4, 8]"}, ir="CHECK: arith.sitofp {{.*}} : f32[8]\nCHECK: tt.splat {{.*}} : i1[4,8]", gpu=True),
    Rule("bool_promotes_to_int", """
__global__ void k(int *Out) {
  bool t = true;
  *Out = t + t; *(Out + 1) = -t; *(Out + 2) = ~t; *(Out + 3) = t << 3;
  bool b = 5;
  *(Out + 4) = b;
}""", args=lambda: [zeros(5, dtype=i32)], expect=lambda a: {0: [2, -1, -2, 8, 1]},
         init_types={"b": "int"}, ir="CHECK: arith.constant {value = 2} : i32\nCHECK: arith.constant {value = -1} : i32"),
    Rule("paper_type_names", """
__global__ void k(fp32 *F, fp16 *H, fp64 *D, int1 *B, int32 *I) {
  fp32 f = *F;
  fp16 h = f;
  fp64 d = h;
  int1 b = d > 1.0;
  *H = h; *D = d; *B = b; *I = b;
}""", args=fixed(np.array([1.5], f32), zeros(1, dtype=f16), zeros(1, dtype=f64),
                                                np.zeros(1, bool), zeros(1, dtype=i32)),
         expect=lambda a: {1: [1.5], 2: [1.5], 3: [True], 4: [1]},
         types={"f": "float", "h": "half", "d": "double", "b": "bool"},
         ir="CHECK: tt.func @k(%F: ptr<f32>, %H: ptr<f16>, %D: ptr<f64>, %B: ptr<i1>, %I: ptr<i32>)"),
]

test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)
