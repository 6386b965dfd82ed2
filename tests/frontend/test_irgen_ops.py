"""IR generation of expressions: which ops, types, attributes and names the printed IR shows."""
import numpy as np

from fe_helpers import MATMUL, SOFTMAX, compile_module, in_order, ir, ops_of, run


def test_softmax_is_clean():
    text = ir(SOFTMAX, defines={"BLOCK": "1024"})
    assert ops_of(text) == [
        "tt.get_program_id", "tt.make_range", "tt.splat", "arith.cmpi",          # m, n, check
        "arith.muli", "tt.addptr", "tt.splat", "tt.addptr", "arith.constant", "tt.load",  # x
        "tt.reduce", "tt.splat", "arith.subf", "math.exp",                        # e
        "arith.muli", "tt.addptr", "tt.splat", "tt.addptr", "tt.reduce", "tt.splat", "arith.divf", "tt.store",
        "tt.return"]
    in_order(text, r"%m = tt.get_program_id \{axis = 0\} : i32",
             r"%n = tt.make_range \{end = 1024, start = 0\} : i32\[1024\]",
             r"%check = arith.cmpi %n, %\d+ \{predicate = \"slt\"\} : i1\[1024\]",
             r"(%\d+) = arith.constant \{value = -inf\} : f32\[1024\]",
             r"%x = tt.load %\d+, %check, %\d+ : f32\[1024\]",
             r"tt.reduce %x \{axis = 0, combine = \"maxnumf\"\} : f32",
             r"%e = math.exp", r"combine = \"addf\"", r"tt.store %\d+, %\d+, %check\n")


def test_matmul_is_clean():
    text = ir(MATMUL)
    in_order(text,
             r"tt.func @matmul\(%A: ptr<f16> \{aligned = 16, noalias, readonly\}",
             r"%lda: i32 \{multipleof = 8\}",
             r"%rm = arith.addi %\d+, %\d+ : i32\[64\]", r"%rn = ", r"%rk = tt.make_range \{end = 32, start = 0\}",
             r"%pa = tt.addptr %\d+, %\d+ : ptr<f16>\[64,32\]", r"%pb = tt.addptr",
             r"%acc = arith.constant \{value = 0.0\} : f32\[64,64\]",
             r"(%\d+) = arith.constant \{value = 0\} : i32", r"(%\d+) = arith.constant \{value = -32\} : i32",
             r"scf.for %K, %\d+, %\d+, %pa, %pb, %acc \{predicate = \"sgt\"\} : ptr<f16>\[64,32\], ptr<f16>\[32,64\], f32\[64,64\]",
             r"\^\(%k: i32, %pa_\d: ptr<f16>\[64,32\], %pb_\d: ptr<f16>\[32,64\], %acc_\d: f32\[64,64\]\):",
             r"arith.constant \{value = 0.0\} : f16\[64,32\]", r"%a = tt.load %pa_\d, %\d+, %\d+ : f16\[64,32\]",
             r"%b = tt.load %pb_\d, %\d+, %\d+ : f16\[32,64\]",
             r"(%\d+) = arith.constant \{value = 0.0\} : f32\[64,64\]",
             r"tt.dot %a, %b, %\d+ \{input_precision = \"ieee\"\} : f32\[64,64\]",
             r"%acc_\d = arith.addf %acc_\d, %\d+ : f32\[64,64\]",
             r"arith.constant \{value = 32\} : i32\[64,32\]", r"%pa_\d = tt.addptr",
             r"scf.yield %pa_\d, %pb_\d, %acc_\d",
             r"%c = arith.truncf %\d+#2 : f16\[64,64\]", r"%checkc = arith.andi",
             r"tt.store %\d+, %c, %checkc")
    assert "tt.splat %acc" not in text and text.count("scf.") == 2


def test_matmul_runs_in_the_interpreter():
    M, N, K = 70, 50, 90
    lda, ldb = 96, 56  # leading dimensions keep the kernel's __multipleof(8) promises
    rng = np.random.default_rng(0)
    A = rng.random((M, lda)).astype(np.float16)
    B = rng.random((K, ldb)).astype(np.float16)
    C = np.zeros((M, ldb), np.float16)
    run(MATMUL, "matmul", (2, 1), A, B, C, M, N, K, lda, ldb, ldb, tunables={"TM": 64, "TN": 64, "TK": 32})
    ref = A[:, :K].astype(np.float32) @ B[:, :N].astype(np.float32)
    np.testing.assert_allclose(C[:, :N].astype(np.float32), ref, rtol=2e-3, atol=2e-2)
    assert not C[:, N:].any()


def test_signedness_picks_the_ops():
    text = ir("void k(int *p, unsigned *q, char *c, unsigned char *uc) {\n"
              "  int a = *p; unsigned b = *q;\n"
              "  *p = a / 3 + a % 3 + (a >> 1) + (a < 2);\n"
              "  *q = b / 3u + b % 3u + (b >> 1) + (b < 2u);\n"
              "  *p = *c + *uc;\n  float f = a; float g = b; int i = f; unsigned j = g;\n"
              "  long l = a; unsigned long m = b;\n}\n")
    in_order(text, "arith.divsi", "arith.remsi", "arith.shrsi", r"predicate = \"slt\"",
             "arith.divui", "arith.remui", "arith.shrui", r"predicate = \"ult\"",
             "arith.extsi", "arith.extui", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui",
             r"%l = arith.extsi %a : i64", r"%m = arith.extui %b : i64")


def test_conversions_to_bool_and_between_floats():
    text = ir("void k(int i, float f, float *p, bool *o, half *h, bfloat16 *bf) {\n"
              "  bool a = i; bool b = f; bool c = p;\n  *o = a && b && c;\n"
              "  *bf = *h; float s = *h + *bf;\n}\n")
    in_order(text, r"%a = arith.cmpi %i, %\d+ \{predicate = \"ne\"\} : i1",
             r"%b = arith.cmpf %f, %\d+ \{predicate = \"une\"\} : i1",
             r"tt.ptr_to_int %p : i64", r"%c = arith.cmpi %\d+, %\d+ \{predicate = \"ne\"\} : i1",
             r"arith.extf %\d+ : f32", r"arith.truncf %\d+ : bf16", r"tt.store %bf",
             r"arith.extf %\d+ : f32", r"arith.extf %\d+ : f32", r"%s = arith.addf")


def test_constants_are_typed_and_splat():
    text = ir("void k(float *p, double *d) {\n  float acc[64, 64] = 0;\n  float x = 1.5;\n  double y = 2.5f;\n"
              "  *p = acc[+, +] + x; *d = y;\n  unsigned u = 4294967295u;\n  *p = u;\n}\n")
    in_order(text, r"%acc = arith.constant \{value = 0.0\} : f32\[64,64\]",
             r"%x = arith.constant \{value = 1.5\} : f32", r"%y = arith.constant \{value = 2.5\} : f64",
             r"%u = arith.constant \{value = -1\} : i32", "arith.uitofp %u")
    assert "tt.splat" not in text


def test_local_multipleof_is_an_attribute_of_the_defining_op():
    text = ir("void k(int *p) {\n  int off __multipleof(8) = *p;\n  off = off * 2;\n  *p = off;\n}\n")
    in_order(text, r"%off = tt.load %p \{multipleof = 8\} : i32", r"%off_1 = arith.muli %off, %\d+ \{multipleof = 8\}")


def test_predicated_statements():
    text = ir("void k(float *p, bool m) {\n  float a[16] = 0;\n  bool c[16] = a > 1;\n"
              "  float *pa[16] = p + (0 ... 16);\n  @c a = *pa;\n  @c *pa = a;\n  @m a = a + 1;\n"
              "  @c atomic_add(pa, a);\n}\n")
    in_order(text, r"%a_1 = tt.load %pa, %c, %a : f32\[16\]", r"tt.store %pa, %a_1, %c\n",
             r"tt.splat %m : i1\[16\]", r"%a_2 = arith.select %\d+, %\d+, %a_1",
             r"tt.atomic_rmw %pa, %a_2, %c \{kind = \"fadd\"\}")


def test_masked_loads_from_conditionals():
    text = ir("void k(float *p, int n, bool *o, half *h) {\n  int r[16] = 0 ... 16;\n"
              "  float a[16] = r < n ? *(p + r) : 1;\n  float b[16] = r < n ? 2 : *(p + r);\n"
              "  float c[16] = select(r < n, *(p + r), 0);\n  int d = n > 0 ? (int)*p : n;\n  *p = d;\n"
              "  *o = n > 0 && *p > 0;\n  float e[16] = r < n ? *?(r > 2)(h + r) : 0.5f;\n}\n")
    in_order(text, r"arith.constant \{value = 1.0\} : f32\[16\]", r"%a = tt.load %\d+, %\d+, %\d+ : f32\[16\]",
             r"arith.xori", r"%b = tt.load %\d+, %\d+, %\d+ : f32\[16\]",
             r"tt.load %\d+ : f32\[16\]", r"%c = arith.select",
             r"%d = scf.if %\d+ : i32", r"tt.load %p : f32", r"scf.if %\d+ : i1", r"tt.load %p : f32",
             r"arith.andi", r"tt.load %\d+, %\d+ : f16\[16\]", r"arith.extf", r"%e = arith.select")


def test_matmul_forms_transposes_and_subscripts():
    text = ir("void k(float *p) {\n  float a[16, 32] = 0; float b[32, 8] = 0; float c[16, 8] = 0;\n"
              "  float x[16, 8] = dot(a, b); float y[16, 8] = dot(a, b, c);\n"
              "  float t[8, 32] = ^b; float u[32, 8] = trans(t); float v[8, 32] = b[^1, ^0];\n"
              "  float w[4, 8, 2] = 0; float r[8, 2, 4] = ^w; float s[2, 4, 8] = w[^2, ^0, ^1];\n"
              "  float bb[4, 2, 8] = trans(w, 0, 2, 1);\n"
              "  float m[16, 1] = c[:, max][:, newaxis]; float n[1, 8] = c[min, :][newaxis, :];\n"
              "  float q[4, 4] = (float[4, 4]) (0 ... 16); int z = __sum(0 ... 16, 0);\n"
              "  float ba[4, 8, 2] = 0; float bc[8, 8, 2] = (w[^1, ^0, ^2] @ ba);\n}\n")
    in_order(text, r"%x = tt.dot %a, %b, %\d+", r"%y = tt.dot %a, %b, %c ",
             r"%t = tt.trans %b \{order = \[1, 0\]\} : f32\[8,32\]", r"%u = tt.trans %t \{order = \[1, 0\]\}",
             r"%v = tt.trans %b \{order = \[1, 0\]\}", r"%r = tt.trans %w \{order = \[1, 2, 0\]\} : f32\[8,2,4\]",
             r"%s = tt.trans %w \{order = \[2, 0, 1\]\} : f32\[2,4,8\]",
             r"%bb = tt.trans %w \{order = \[0, 2, 1\]\} : f32\[4,2,8\]",
             r"tt.reduce %c \{axis = 1, combine = \"maxnumf\"\} : f32\[16\]", r"%m = tt.expand_dims %\d+ \{axis = 1\}",
             r"tt.reduce %c \{axis = 0, combine = \"minnumf\"\} : f32\[8\]", r"%n = tt.expand_dims %\d+ \{axis = 0\}",
             r"arith.sitofp %\d+ : f32\[16\]", r"%q = tt.reshape %\d+ : f32\[4,4\]",
             r"%z = tt.reduce %\d+ \{axis = 0, combine = \"addi\"\} : i32",
             r"tt.dot %\d+, %ba, %\d+ \{input_precision = \"ieee\"\} : f32\[8,8,2\]")


def test_reductions_promote_small_integers():
    text = ir("void k(char *p, unsigned short *q, int *o) {\n  char c[16] = *(p + (0 ... 16));\n"
              "  unsigned short u[16] = *(q + (0 ... 16));\n  *o = c[+] + c[max] + u[min];\n}\n")
    in_order(text, r"arith.extsi %c : i32\[16\]", r"combine = \"addi\"", r"combine = \"maxsi\"",
             r"arith.extui %u : i32\[16\]", r"combine = \"minsi\"")


def test_casts_bitcasts_and_pointer_arithmetic():
    text = ir("void k(float *p, float *q, unsigned u, long *o, bool *b) {\n"
              "  bool m[16] = 1; bool mm[8, 16] = (bool[8, 16]) m;\n"
              "  float acc[4, 4] = 0; unsigned bits[4, 4] = bitcast<uint32[4, 4]>(acc);\n"
              "  *o = q - p; *o = *(p + u) + *(p - u) + (p < q);\n  *b = bitcast<bool>(*b);\n}\n")
    in_order(text, r"%m = arith.constant \{value = 1\} : i1\[16\]", r"tt.expand_dims %m \{axis = 0\} : i1\[1,16\]",
             r"%mm = tt.broadcast %\d+ : i1\[8,16\]", r"%bits = arith.bitcast %acc : i32\[4,4\]",
             r"tt.ptr_to_int %q", r"tt.ptr_to_int %p", r"arith.subi", r"arith.divsi %\d+, %\d+ : i64",
             r"arith.extui %u : i64", r"tt.addptr %p, %\d+ : ptr<f32>", r"arith.extui %u : i64",
             r"arith.subi %\d+, %\d+ : i64", r"tt.addptr %p", r"predicate = \"ult\"")


def test_atomics_and_builtins():
    text = ir("void k(float *f, int *i, unsigned *u, half *h) {\n"
              "  float *pf[64, 64] = f + (0 ... 64)[:, newaxis] * 64 + (0 ... 64)[newaxis, :];\n"
              "  float v[64, 64] = 1; bool m[64, 64] = v > 0;\n"
              "  atomic_add_float_64x64(pf, v, m); atomic_add(i, 1); atomic_max(u, 3u); atomic_min(i, -1);\n"
              "  atomic_add(h, 1); atomic_max(f, 1); int o = atomic_xchg(i, 5); int c = atomic_cas(i, 0, 1);\n"
              "  __debug_barrier(); int g[16] = get_global_range[16](1); int n = get_num_programs(2);\n"
              "  *i = get_range_id(0) + max(o, c) + min(*u, 2u) + abs(c);\n"
              "  *f = fma(*f, 2, 1) + sqrtf(*f) + rsqrt(*f) + log(*f) + sin(*f) + cos(*f) + floor(*f) + ceil(*f) + fabs(*f);\n"
              "  float r[16] = __reshape(v[+, :], 16, 4)[:, +];\n}\n")
    in_order(text, r"tt.atomic_rmw %pf, %v, %m \{kind = \"fadd\"\} : f32\[64,64\]",
             r"tt.atomic_rmw %i, %\d+ \{kind = \"add\"\} : i32", r"\{kind = \"umax\"\}", r"\{kind = \"min\"\}",
             r"\{kind = \"fadd\"\} : f16", r"\{kind = \"fmax\"\} : f32", r"%o = tt.atomic_rmw %i, %\d+ \{kind = \"xchg\"\}",
             r"%c = tt.atomic_cas %i, %\d+, %\d+ : i32", r"gpu.barrier\n    %\d+ = ",
             r"tt.get_program_id \{axis = 1\}", r"arith.muli", r"tt.make_range \{end = 16, start = 0\}",
             r"%g = arith.addi", r"%n = tt.get_num_programs \{axis = 2\}", r"tt.get_program_id \{axis = 0\}",
             r"arith.maxsi %o, %c", r"arith.minui", r"arith.sitofp %c", r"math.absf", r"math.fma", r"math.sqrt", r"math.rsqrt",
             r"math.log", r"math.sin", r"math.cos", r"math.floor", r"math.ceil", r"math.absf",
             r"tt.reshape %\d+ : f32\[16,4\]", r"%r = tt.reduce %\d+ \{axis = 1, combine = \"addf\"\}")


def test_device_functions_and_calls():
    text = ir("__device__ float[16] scale(float x[16], float s) {\n  return x * s;\n}\n"
              "__device__ void put(float *p, float v) {\n  *p = v;\n}\n"
              "void k(float *p) {\n  float x[16] = *(p + (0 ... 16));\n  x = scale(x, 2);\n  put(p, x[+]);\n}\n")
    in_order(text, r"tt.func @scale\(%x: f32\[16\], %s: f32\) -> f32\[16\] attributes \{device\}",
             r"%retval = arith.mulf", r"tt.return %retval",
             r"tt.func @put\(%p: ptr<f32>, %v: f32\) attributes \{device\}", r"tt.store %p, %v",
             r"tt.func @k", r"%x_1 = tt.call %x, %\d+ \{callee = \"scale\"\} : f32\[16\]",
             r"tt.call %p, %\d+ \{callee = \"put\"\}\n")
    p = np.arange(16, dtype=np.float32)
    run(text_src := "__device__ float[16] scale(float x[16], float s) { return x * s; }\n"
        "void k(float *p) { float *q[16] = p + (0 ... 16); *q = scale(*q, 3); }\n", "k", (1,), p)
    np.testing.assert_array_equal(p, np.arange(16) * 3)
    assert text_src


def test_every_op_has_a_location():
    m = compile_module(MATMUL)
    f = m.functions[0]
    ops = list(f.walk())
    assert all(op.loc is not None and op.loc.file == "t.tri" for op in ops)
    dot = next(op for op in ops if op.name == "tt.dot")
    assert (dot.loc.line, dot.loc.col) == (20, 14)
    loop = next(op for op in ops if op.name == "scf.for")
    assert loop.loc.line == 17


def test_null_pointer_constants_and_const_pointees():
    text = ir("void k(const float *p, int c) {\n  p += 1;\n  float *q = 0;\n  q = c ? p : 0;\n  if (q) *q = *p;\n}\n")
    in_order(text, r"%p_1 = tt.addptr %p", r"(%\d+) = arith.constant \{value = 0\} : i64",
             r"%q = tt.int_to_ptr %\d+ : ptr<f32>", r"%q_1 = arith.select %\d+, %p_1, %\d+ : ptr<f32>",
             r"tt.ptr_to_int %q_1 : i64", r"scf.if")


def test_conditional_between_two_loads_masks_both():
    text = ir("void k(float *p, float *q, int n) {\n  int r[16] = 0 ... 16;\n"
              "  *(p + r) = r < n ? *(p + r) : *(q + r);\n}\n")
    in_order(text, r"(%\d+) = arith.cmpi %r, %\d+ \{predicate = \"slt\"\}", r"(%\d+) = arith.xori",
             r"(%\d+) = tt.load %\d+, %\d+ : f32\[16\]", r"tt.load %\d+, %\d+, %\d+ : f32\[16\]")
    p = np.arange(16, dtype=np.float32)
    q = -np.arange(16, dtype=np.float32)
    run("void k(float *p, float *q, int n) {\n  int r[16] = 0 ... 16;\n"
        "  *(p + r) = r < n ? *(p + r) : *(q + r);\n}\n", "k", (1,), p, q, 5)
    np.testing.assert_array_equal(p, np.where(np.arange(16) < 5, np.arange(16), -np.arange(16)))


def test_predicated_compound_store_reads_under_the_mask():
    src = "void k(float *p, int n) {\n  int r[16] = 0 ... 16;\n  @(r < n) *(p + r) += 1;\n}\n"
    in_order(ir(src), r"(%\d+) = tt.load %\d+, %\d+ : f32\[16\]", r"arith.addf", r"tt.store %\d+, %\d+, %\d+\n")
    p = np.zeros(5, np.float32)
    run(src, "k", (1,), p, 5)  # lanes 5..15 are out of bounds and must be neither read nor written
    np.testing.assert_array_equal(p, np.ones(5))
