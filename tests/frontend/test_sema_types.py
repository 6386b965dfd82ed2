"""The C type system (ctype.py) and the types sema gives expressions."""
import math

import pytest

from fe_helpers import MATMUL, SOFTMAX, sema, warnings_of
from tritonc.frontend import ast
from tritonc.frontend.ctype import (CType, bitcast_const, broadcast_shapes, common_base, convert_const, fold_binary,
                                    int_literal_base, ir_int_value, promote)


@pytest.mark.parametrize("a, b, out", [
    ("char", "char", "int"), ("unsigned char", "short", "int"), ("bool", "bool", "int"),
    ("int", "unsigned int", "unsigned int"), ("long", "unsigned int", "long"),
    ("unsigned long", "int", "unsigned long"), ("int", "long", "long"),
    ("half", "float", "float"), ("half", "bfloat16", "float"), ("half", "half", "half"),
    ("bfloat16", "int", "bfloat16"), ("half", "long", "half"), ("float", "double", "double"),
    ("double", "unsigned long", "double"),
])
def test_usual_arithmetic_conversions(a, b, out):
    assert common_base(a, b) == out == common_base(b, a)


def test_integer_promotion_and_literal_types():
    assert [promote(t) for t in ("bool", "unsigned short", "int", "unsigned int", "half")] == \
        ["int", "int", "int", "unsigned int", "half"]
    assert int_literal_base(2147483647, "", True) == "int"
    assert int_literal_base(2147483648, "", True) == "long"
    assert int_literal_base(0x80000000, "", False) == "unsigned int"
    assert int_literal_base(5, "u", True) == "unsigned int"
    assert int_literal_base(5, "l", True) == "long"
    assert int_literal_base(1 << 64, "", True) is None


def test_broadcasting_and_folding():
    assert broadcast_shapes((64, 1), (32,)) == (64, 32)
    assert broadcast_shapes((), (8,)) == (8,)
    assert broadcast_shapes((64, 32), (16,)) is None
    assert fold_binary("/", -7, 2, "int") == -3 and fold_binary("%", -7, 2, "int") == -1
    assert fold_binary("+", 2**31 - 1, 1, "int") == -2**31
    assert fold_binary("-", 0, 1, "unsigned int") == 2**32 - 1
    assert fold_binary(">>", -8, 1, "int") == -4
    assert fold_binary("/", 1, 0, "int") is None
    assert fold_binary("/", 1.0, 3.0, "float") == float(__import__("numpy").float32(1 / 3))
    assert convert_const(300, "int", "char") == 44 and convert_const(-1.5, "float", "int") == -1
    assert convert_const(65504.0 * 2, "float", "half") == math.inf
    assert ir_int_value(2**32 - 1, "unsigned int") == -1 and ir_int_value(1, "bool") == 1
    assert bitcast_const(0x7F800000, "int", "float") == math.inf
    assert bitcast_const(1.0, "float", "unsigned int") == 0x3F800000


def test_ctype_spelling_and_ir():
    t = CType("half", True, (64, 32))
    assert str(t) == "half*[64, 32]" and str(t.pointee) == "half[64, 32]"
    assert str(t.ir()) == "ptr<f16>[64,32]"
    assert str(CType("unsigned long").ir()) == "i64" and str(CType("bool", shape=(4,)).ir()) == "i1[4]"


def types_of(src, node_type, **kw):
    tu, r = sema(src, **kw)
    return [str(r.info(n).type) for n in tu.walk() if isinstance(n, node_type)]


def test_expression_types_follow_c_and_broadcasting():
    src = """void k(char *pc, unsigned u, long l, half *ph, float *pf) {
      char c[16] = *(pc + (0 ... 16));
      int a[16] = c + c;
      long b = u + l;
      unsigned v = u + 1;
      float f[16] = *(ph + (0 ... 16)) + *pf;
      half h[4, 16] = (*(ph + (0 ... 16)))[newaxis, :] * 2;
      long d = pf - pf;
      bool m[16] = c > 0 && l;
    }"""
    assert types_of(src, ast.Binary) == [
        "char*[16]", "int[16]", "long", "unsigned int", "float[16]", "half*[16]", "half[1, 16]",
        "half*[16]", "long", "bool[16]", "bool[16]"]


def test_matmul_reduction_and_math_types():
    src = """void k(half *p, char *q, double *d) {
      half a[16, 32] = 0; half b[32, 8] = 0; char x[16, 32] = 0; char y[32, 8] = 0;
      float c[16, 8] = a @ b;
      int i[16, 8] = x @ y;
      half t[8, 32] = ^b;
      float r[32] = b[:, +];
      int s = x[+, +];
      float e[16, 32] = exp(a);
      double g = sqrt(*d);
      float h = sqrtf(*d);
      float z = abs(-3);
    }"""
    assert types_of(src, ast.MatMul) == ["float[16, 8]", "int[16, 8]"]
    assert types_of(src, ast.Subscript) == ["half[32]", "int"]
    assert types_of(src, ast.Call) == ["float[16, 32]", "double", "float", "float"]


def test_constants_tunables_and_infinity():
    tu, r = sema("const tunable int TM = {64, 128};\nvoid k(float *p) {\n"
                 "  float x = -F32_INFINITY; half y = F16_INFINITY; int z = TM * 2 + (1 << 3);\n}\n",
                 tunables={"TM": 128})
    consts = {d.name: r.info(d.init).const for d in tu.walk() if isinstance(d, ast.Declarator)}
    assert consts == {"x": -math.inf, "y": math.inf, "z": 264}
    assert r.tunable_values == {"TM": 128}
    tu, r = sema("const tunable int TM = {64, 128};\nvoid k() {}\n")
    assert r.tunable_values == {"TM": 64}


def test_spec_examples_check():
    for src, d in ((SOFTMAX, {"BLOCK": "256"}), (MATMUL, {})):
        tu, r = sema(src, defines=d)
        (f,) = r.functions
        assert f.kind == "kernel"
    tu, r = sema(MATMUL)
    assert r.functions[0].arg_attrs[:3] == [{"noalias": True, "readonly": True, "aligned": 16}] * 2 + \
        [{"noalias": True, "aligned": 16}]
    assert r.functions[0].arg_attrs[6] == {"multipleof": 8}


def test_parameter_attributes_unsigned_and_restrict():
    tu, r = sema("void k(unsigned *restrict p, uint32 n, float *q __writeonly __retune, int m __multipleof(4)) {}")
    assert r.functions[0].arg_attrs == [{"noalias": True, "unsigned": True}, {"unsigned": True},
                                        {"writeonly": True, "retune": True}, {"multipleof": 4}]


def test_device_and_kernel_kinds():
    tu, r = sema("__device__ float[16] f(float x[16]) { return x; }\n__device__ void g() {}\n"
                 "void k() {}\n__global__ void l() {}\n")
    assert [(f.name, f.kind, str(f.result)) for f in r.functions] == [
        ("f", "device", "float[16]"), ("g", "device", "void"), ("k", "kernel", "void"), ("l", "kernel", "void")]


def test_double_promotion_warning():
    src = "void k(float *p) {\n  float x[16] = *(p + (0 ... 16));\n  float y[16] = x * 0.5;\n" \
          "  float z[16] = x * 0.5f;\n  float s = *p * 0.5;\n}\n"
    (w,) = warnings_of(src)
    assert w.startswith("3:21: unsuffixed literal '0.5' is a 'double' and promotes 'float[16]' to 'double[16]'")
    assert w.endswith("[-Wdouble-promotion]")


def test_missing_return_warns():
    assert warnings_of("__device__ int f(int x) { if (x) return 1; }\nvoid k() {}\n") == [
        "1:25: non-void function 'f' may end without returning a value [-Wreturn-type]"]
