"""IR generation of control flow: scf.if results, canonical scf.for, scf.while, break/continue/return.

Shapes of the IR are checked on the printed text; semantics by running kernels in the numpy
interpreter against the same computation in Python.
"""
import numpy as np
import pytest

from fe_helpers import in_order, ir, ops_of, run


def loop_kernel(header: str, body: str = "s += 1;", init: str = "") -> str:
    return f"void k(int *out, int n, unsigned u, long l) {{\n  int s = 0;\n  {init}\n  for ({header}) {{ {body} }}\n  *out = s;\n}}\n"


@pytest.mark.parametrize("header, loop", [
    ("int i = 0; i < n; i++", r"scf.for %i, %n, %\d+, %s \{predicate = \"slt\"\}"),
    ("int i = 0; i <= n; ++i", r"scf.for %i, %n, %\d+, %s \{predicate = \"sle\"\}"),
    ("int i = n; i > 0; i -= 4", r"scf.for %n, %\d+, %\d+, %s \{predicate = \"sgt\"\}"),
    ("int i = n; i >= 0; i--", r"scf.for %n, %\d+, %\d+, %s \{predicate = \"sge\"\}"),
    ("int i = 0; n > i; i = i + 2", r"scf.for %i, %n, %\d+, %s \{predicate = \"slt\"\}"),
    ("int i = 0; i != n; i = 2 + i", r"scf.for %i, %n, %\d+, %s \{predicate = \"ne\"\}"),
    ("unsigned i = 0; i < u; i += 3", r"scf.for %i, %u, %\d+, %s \{predicate = \"ult\"\}"),
    ("long i = l; i > 0; i -= n", r"scf.for %l, %\d+, %\d+, %s \{predicate = \"sgt\"\} : i32 \{\n\s+\^\(%i: i64"),
])
def test_canonical_for_becomes_scf_for(header, loop):
    text = ir(loop_kernel(header))
    in_order(text, loop)
    assert "scf.while" not in text


def test_constant_and_variable_steps():
    text = ir(loop_kernel("int k = n; k > 0; k -= 32"))
    in_order(text, r"(%\d+) = arith.constant \{value = -32\} : i32", r"scf.for %n, %\d+, %\d+")
    text = ir(loop_kernel("int k = 0; k < 100; k -= n"))
    in_order(text, r"arith.subi %\d+, %n : i32", r"scf.for %k, %\d+, %\d+, %s \{predicate = \"slt\"\}")


@pytest.mark.parametrize("header, body", [
    ("int i = 0; i < n; i++", "s += 1; i += 1;"),          # the body assigns the induction variable
    ("int i = 0; i < n; i++", "s += 1; n -= 1;"),          # the bound changes in the loop
    ("int i = 0; i < n; i++", "if (s > 5) break; s += 1;"),
    ("int i = 0; i < *out; i++", "s += 1;"),               # the bound is a load
    ("int i = 0; ; i++", "if (i > n) break; s += 1;"),     # no condition
    ("int i = 0; i < l; i++", "s += 1;"),                  # compared in 'long', not in the iv's type
    ("char i = 0; i < n; i++", "s += 1;"),                 # promoted induction variable
    ("int i = 0, j = 0; i < n; i++", "s += j;"),           # two declarators
    ("int i = 0; i < n; i++, s++", "s += 1;"),             # comma step
])
def test_other_for_loops_become_scf_while(header, body):
    text = ir(loop_kernel(header, body))
    assert "scf.while" in text and "scf.for" not in text


LOOPS = """
void k(int *out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {          // continue in a canonical loop
    if (i % 3 == 0) continue;
    s += i;
  }
  out[0 ... 1] = s;
  int t = 0;
  for (int i = 0; i < n; i++) {          // break: scf.while
    for (int j = 0; j < n; j++) {
      if (j > i) break;
      t += j;
    }
    if (t > 40) break;
    t += 100 * (i & 1);
  }
  *(out + 1) = t;
  int w = n, steps = 0;
  while (w != 1) {                        // Collatz
    if (w % 2) w = 3 * w + 1; else w /= 2;
    steps++;
  }
  *(out + 2) = steps;
  int d = 0;
  do { d += 5; if (d == 15) continue; d += 1; } while (d < n * 4);
  *(out + 3) = d;
  int z = 0;
  for (int i = 0; i < n; i += 2) { z = z * 3 + i; }
  *(out + 4) = z;
}
"""


def reference(n):
    s = sum(i for i in range(n) if i % 3)
    t = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            t += j
        if t > 40:
            break
        t += 100 * (i & 1)
    w, steps = n, 0
    while w != 1:
        w = 3 * w + 1 if w % 2 else w // 2
        steps += 1
    d = 0
    while True:
        d += 5
        if d != 15:
            d += 1
        if not d < n * 4:
            break
    z = 0
    for i in range(0, n, 2):
        z = z * 3 + i
    return [s, t, steps, d, z]


@pytest.mark.parametrize("n", [1, 7, 12])
def test_loops_compute_like_c(n):
    src = LOOPS.replace("out[0 ... 1] = s;", "*out = s;")
    out = np.zeros(5, np.int32)
    run(src, "k", (1,), out, n)
    assert out.tolist() == reference(n)


def test_loop_ir_shapes():
    text = ir(LOOPS.replace("out[0 ... 1] = s;", "*out = s;"))
    assert ops_of(text).count("scf.for") == 2 and ops_of(text).count("scf.while") == 4
    in_order(text, r"scf.for %i, %n, %\d+, %s \{predicate = \"slt\"\} : i32 \{",
             r"%s_\d = scf.if %\d+ : i32 \{",           # continue: the rest of the body is the else branch
             r"scf.while %t, %i_\d, %\d+ : i32, i32, i1 \{", r"\^\(%t_\d: i32, %i_\d: i32, %brk: i1\):",
             r"arith.xori %brk, %\d+", r"arith.andi", r"scf.condition")


EARLY = """
__device__ int first_negative(int *p, int n) {
  for (int i = 0; i < n; i++) {
    if (*(p + i) < 0) return i;
  }
  return -1;
}
void k(int *p, int *out, int n) {
  int pid = get_program_id(0);
  if (pid >= n) return;
  *(out + pid) = first_negative(p, n) * 10 + pid;
  if (pid == 1) return;
  *(out + pid) += 1000;
}
"""


def test_early_returns():
    text = ir(EARLY)
    in_order(text, r"tt.func @first_negative", r"scf.while", r"%ret", r"%retval_\d = scf.if", r"tt.return %retval_\d",
             r"tt.func @k", r"%\d+ = arith.cmpi %pid, %n \{predicate = \"sge\"\} : i1",
             r"scf.if %\d+ \{\n\s+scf.yield\n\s+\} \{", r"tt.call", r"scf.if")
    p = np.array([3, 4, -2, 5], np.int32)
    out = np.zeros(6, np.int32)
    run(EARLY, "k", (6,), p, out, 4)
    assert out.tolist() == [1020, 21, 1022, 1023, 0, 0]


def test_if_results_carry_tiles_pointers_and_names():
    text = ir("void k(float *p, int n) {\n  float x[16] = 0; float *q = p; int c = 0;\n"
              "  if (n > 0) { x = x + 1; q = q + 16; } else { c = 2; }\n  *(q + (0 ... 16)) = x + c;\n}\n")
    in_order(text, r"(%\d+):3 = scf.if %\d+ : f32\[16\], ptr<f32>, i32 \{",
             r"%x_1 = arith.addf", r"%q = tt.addptr %p", r"scf.yield %x_1, %q, %c",
             r"\} \{", r"%c_1 = arith.constant \{value = 2\} : i32", r"scf.yield %x, %p, %c_1")


def test_constant_conditions_fold():
    text = ir("void k(int *p) {\n  if (1 < 2) *p = 1; else *p = 2;\n  if (0) { *p = 3; }\n  while (0) { *p = 4; }\n}\n")
    assert "scf.if" not in text and text.count("tt.store") == 2


def test_kernel_with_predicated_loop_state_runs():
    src = """void k(float *X, float *Y, int N) {
      int r[16] = 0 ... 16;
      float acc[16] = 0;
      for (int k = 0; k < N; k += 16) {
        bool m[16] = r + k < N;
        float x[16] = 0;
        @m x = *(X + k + r);
        acc += x;
      }
      *(Y + r) = acc;
    }"""
    X = np.arange(40, dtype=np.float32)
    Y = np.zeros(16, np.float32)
    run(src, "k", (1,), X, Y, 40)
    ref = np.zeros(16, np.float32)
    for k in range(0, 40, 16):
        for i in range(16):
            if k + i < 40:
                ref[i] += X[k + i]
    np.testing.assert_array_equal(Y, ref)


def test_short_circuit_and_signed_semantics_run():
    src = """void k(int *p, unsigned *u, int *out, int n) {
      out[0 ... 1] = 0;
      *(out + 0) = (n > 0 && *p > 0) + 2 * (n < 0 || *p > 0);
      *(out + 1) = -7 / 2 + (-7 % 2) * 10 + ((-8) >> 1) * 100;
      *(out + 2) = *u / 2u > 1u;
      *(out + 3) = (int)(*u >> 28);
    }""".replace("out[0 ... 1] = 0;\n", "")
    out = np.zeros(4, np.int32)
    run(src, "k", (1,), np.array([5], np.int32), np.array([0xF0000000], np.uint32), out, 0)
    assert out.tolist() == [2, -3 - 10 - 400, 1, 15]
    guarded = "void k(int *p, int *out, int n) {\n  *out = n > 0 && *p > 0;\n  *(out + 1) = n == 0 || *p > 0;\n}\n"
    out = np.zeros(2, np.int32)
    run(guarded, "k", (1,), None, out, 0)  # p is null: short-circuit must not read it
    assert out.tolist() == [0, 1]


def test_for_over_an_outer_variable_keeps_its_final_value():
    src = ("void k(int *p, int n) {\n  int k; int s = 0;\n  for (k = 0; k < n; k += 3) s += k;\n"
           "  *p = s; *(p + 1) = k;\n  int j;\n  for (j = 0; j < n; j++) s++;\n  *(p + 2) = s;\n}\n")
    text = ir(src)
    in_order(text, r"(%\d+):2 = scf.for %k, %n, %\d+, %s, %k \{predicate = \"slt\"\}",
             r"\^\(%k_1: i32, %s_1: i32, %k_2: i32\):", r"arith.addi %k_1, %\d+", r"tt.store %\d+, %\d+#1",
             r"%s_\d = scf.for %j, %n, %\d+, %\d+#0 \{predicate = \"slt\"\} : i32 \{")
    for n in (0, 1, 7, 9):
        p = np.zeros(3, np.int32)
        run(src, "k", (1,), p, n)
        k = s = 0
        while k < n:
            s, k = s + k, k + 3
        assert p.tolist() == [s, k, s + n]


def test_bool_literals():
    text = ir("void k(bool *o, bool b) {\n  bool c = true;\n  if (false) c = b;\n  *o = b && c || false;\n}\n")
    in_order(text, r"%c = arith.constant \{value = 1\} : i1", r"arith.andi %b, %c", r"arith.ori")
    assert "scf.if" not in text
