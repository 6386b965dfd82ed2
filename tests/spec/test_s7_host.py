"""Spec section 7, what a kernel signature means to the host: parameters in declaration order,
pointers as 64-bit addresses, scalars at their C width (half as 16 bits, bool as 8 bits); the
promises `__multipleof` / `__aligned` are recorded for the launchers, which refuse a launch that
breaks them before any CUDA call."""
import importlib.util
import itertools

import ml_dtypes
import numpy as np
import pytest

from spec_helpers import BF16, Rule, compilation, spec_tests, zeros

SIGNATURE = """
__global__ void k(double *Out, bool b, char c, unsigned char uc, short s, unsigned short us, int i, unsigned u,
                  long l, unsigned long ul, half h, bfloat16 bf, float f, double d,
                  float *X __aligned(16) __multipleof(4), int n __multipleof(8)) {
  *Out = b; *(Out + 1) = c; *(Out + 2) = uc; *(Out + 3) = s; *(Out + 4) = us; *(Out + 5) = i;
  *(Out + 6) = u; *(Out + 7) = l; *(Out + 8) = ul; *(Out + 9) = h; *(Out + 10) = bf; *(Out + 11) = f;
  *(Out + 12) = d; *(Out + 13) = *X + n;
}"""
VALUES = [True, -5, 250, -300, 65000, -70000, 4000000000, -5000000000, 18000000000000000000, 1.5, 3.140625, 2.5,
          -0.125]

RULES = [
    Rule("parameters_in_order_at_c_width", SIGNATURE,
         args=lambda: [zeros(14, dtype=np.float64)] + VALUES + [np.array([0.5, 0, 0, 0], np.float32), 16],
         expect=lambda a: {0: [1, -5, 250, -300, 65000, -70000, 4000000000, -5000000000, 18000000000000000000.0, 1.5,
                               3.140625, 2.5, -0.125, 16.5]},
         ir="CHECK: tt.func @k(%Out: ptr<f64>, %b: i1, %c: i8, %uc: i8 {unsigned}, %s: i16, %us: i16 {unsigned}, "
            "%i: i32, %u: i32 {unsigned}, %l: i64, %ul: i64 {unsigned}, %h: f16, %bf: bf16, %f: f32, %d: f64, "
            "%X: ptr<f32> {aligned = 16, multipleof = 4}, %n: i32 {multipleof = 8})",
         ptx="""CHECK: .entry k(
CHECK-NEXT: .param .u64 .ptr .global .align {{[0-9]+}} k_param_0,
CHECK-NEXT: .param .u8 k_param_1,
CHECK-NEXT: .param .u8 k_param_2,
CHECK-NEXT: .param .u8 k_param_3,
CHECK-NEXT: .param .u16 k_param_4,
CHECK-NEXT: .param .u16 k_param_5,
CHECK-NEXT: .param .u32 k_param_6,
CHECK-NEXT: .param .u32 k_param_7,
CHECK-NEXT: .param .u64 k_param_8,
CHECK-NEXT: .param .u64 k_param_9,
CHECK-NEXT: .param .align 2 .b8 k_param_10[2]
CHECK-NEXT: .param .align 2 .b8 k_param_11[2]
CHECK-NEXT: .param .f32 k_param_12,
CHECK-NEXT: .param .f64 k_param_13,
CHECK-NEXT: .param .u64 .ptr .global .align 16 k_param_14,
CHECK-NEXT: .param .u32 k_param_15
CHECK-NEXT: )""", gpu=True),
]

test_frontend, test_ir, test_interp, test_codegen, test_rejected = spec_tests(RULES)


def test_signature_seen_by_the_host():
    (kernel,) = compilation(RULES[0]).kernels
    params = kernel.signature.params
    assert [p.name for p in params] == ["Out", "b", "c", "uc", "s", "us", "i", "u", "l", "ul", "h", "bf", "f", "d",
                                        "X", "n"]
    assert [p.kind for p in params] == ["pointer"] + ["scalar"] * 13 + ["pointer", "scalar"]
    assert [p.dtype for p in params] == ["float64", "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                         "int64", "uint64", "float16", "bfloat16", "float32", "float64", "float32",
                                         "int32"]
    promises = {p.name: (p.aligned, p.multipleof) for p in params if p.aligned or p.multipleof}
    assert promises == {"X": (16, 4), "n": (None, 8)}


_count = itertools.count()


def _launcher(rule_or_src):
    rule = rule_or_src if isinstance(rule_or_src, Rule) else Rule("tmp", rule_or_src)
    text = compilation(rule).python_module
    name = f"spec_host_launcher_{next(_count)}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, name, "exec"), module.__dict__)
    return module


def test_promises_are_in_the_launcher_metadata():
    module = _launcher(RULES[0])
    params = {p["name"]: p for p in module.metadata["k"]["params"]}
    assert params["X"]["aligned"] == 16 and params["X"]["multipleof"] == 4
    assert params["n"]["multipleof"] == 8
    assert "aligned" not in params["Out"] and "multipleof" not in params["i"]


@pytest.mark.parametrize("index, value, message", [
    (14, 0x1008, r"parameter 'X' has address 0x1008, which breaks its __aligned\(16\) promise"),
    (15, 12, r"parameter 'n' = 12 breaks its __multipleof\(8\) promise"),
    (2, 300, r"parameter 'c' is int8; 300 is outside -128..127"),
])
def test_launcher_refuses_broken_promises_before_any_cuda_call(index, value, message):
    module = _launcher(RULES[0])
    args = [0x10000] + VALUES + [0x20000, 16]
    args[index] = value
    with pytest.raises((ValueError, TypeError), match=message):
        module.k(*args, grid=1)


def test_c_header_checks_the_promises():
    header = compilation(RULES[0]).header
    assert "breaking __aligned(16) and __multipleof(4)" in header
    assert "breaking __multipleof(8)" in header


def test_interpreter_reads_unsigned_and_narrow_arguments_at_their_width():
    """The interpreter wraps integers to the parameter's width, as the launcher's conversion would refuse."""
    from spec_helpers import run_interpreter

    rule = Rule("wrap", """
__global__ void k(long *Out, unsigned char uc, short s, unsigned u) {
  *Out = uc; *(Out + 1) = s; *(Out + 2) = u;
}""", args=lambda: [zeros(3, dtype=np.int64), 255, -2, 2**32 - 1])
    outs, _ = run_interpreter(rule, compilation(rule).ttir)
    assert outs[0].tolist() == [255, -2, 2**32 - 1]
