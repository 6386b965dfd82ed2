"""Parser: every construct of the spec (sections 2-6), precedence, literals and locations."""
import pytest

from tritonc.diagnostics import SourceLoc
from tritonc.frontend import ast
from tritonc.frontend.ast import dump
from tritonc.frontend.parser import parse

from fe_helpers import MATMUL, SOFTMAX  # the two kernels of spec section 8, verbatim

# The paper-era (2019, E0) spelling of the same kernel.
PAPER_MATMUL = """\
const tunable int TM = {16, 32, 64, 128};
const tunable int TN = {16, 32, 64, 128};
const tunable int TK = {8};

kernel void matmul(restrict read_only align(16) fp16 *A,
                   restrict read_only align(16) fp16 *B,
                   fp32 *C, int M, int N, int K,
                   multiple_of(8) int lda, multiple_of(8) int ldb, int ldc) {
  int rm[TM] = get_global_range[TM](0);
  int rn[TN] = get_global_range[TN](1);
  int rk[TK] = 0 ... TK;
  fp32 c[TM, TN] = 0;
  fp16* pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
  fp16* pb[TN, TK] = B + rn[:, newaxis] * ldb + rk[newaxis, :];
  fp16 a[TM, TK] = *pa;
  fp16 b[TN, TK] = *pb;
  for (int k = K; k > 0; k = k - TK) {
    c = dot(a, trans(b), c);
    pa = pa + TK;
    pb = pb + TK;
    @checka a = *pa;
    b = *pb;
  }
  fp32* pc[TM, TN] = C + rm[:, newaxis] + rn[newaxis, :] * ldc;
  int1 checkc0[TM] = rm < M;
  int1 checkc1[TN] = rn < N;
  int1 checkc[TM, TN] = checkc0[:, newaxis] && checkc1[newaxis, :];
  @checkc *pc = c;
}
"""


def body(src, **kw):
    """The statements of the only function in ``src``."""
    return parse(src, "t.tri", **kw).functions[0].body.items


def expr(text, **kw):
    """dump() of the expression ``text`` (parsed as the right side of an assignment)."""
    stmt = body(f"void f() {{ _r = {text}; }}", **kw)[0]
    return dump(stmt.expr.value)


def test_softmax_reference_kernel():
    unit = parse(SOFTMAX, "softmax.tri", {"BLOCK": "1024"})
    (fn,) = unit.functions
    assert (fn.name, fn.is_global, fn.kernel_keyword) == ("softmax", True, "__global__")
    assert [dump(p.type) for p in fn.params] == ["float*", "float*", "int", "int", "int"]
    items = fn.body.items
    assert dump(items[1]) == "(Decl [(Declarator n int[1024] [] (... 0 1024))])"
    assert dump(items[3].declarators[0].init) == \
        "(? check (* (+ (+ X (* m stride_x)) n)) (- (bitcast float 0x7F800000)))"
    assert dump(items[4].declarators[0].init) == "(call exp (- x (subscript x max)))"
    assert dump(items[5]) == \
        "(ExprStmt (= (*? check (+ (+ Y (* m stride_y)) n)) (/ e (subscript e +))))"


def test_matmul_reference_kernel():
    unit = parse(MATMUL, "matmul.tri")
    assert [(t.name, [c.value for c in t.candidates], t.override) for t in unit.tunables] == \
        [("TM", [64, 128], None), ("TN", [64, 128, 256], None), ("TK", [32, 64], None)]
    fn = unit.functions[0]
    assert [dump(e) for e in fn.grid] == ["(call cdiv M TM)", "(call cdiv N TN)"]
    assert [(p.name, dump(p.attributes)) for p in fn.params[:3]] == [
        ("A", "[noalias readonly aligned(16)]"), ("B", "[noalias readonly aligned(16)]"),
        ("C", "[noalias aligned(16)]")]
    assert dump(fn.params[6]) == "(Param lda int [multipleof(8)])"
    items = fn.body.items
    assert dump(items[0].declarators[0].init) == "(+ (* (call get_program_id 0) TM) (... 0 TM))"
    assert dump(items[3].declarators[0]) == \
        "(Declarator pa half*[TM,TK] [] (+ (+ A (* (subscript rm : newaxis) lda)) (subscript rk newaxis :)))"
    loop = items[6]
    assert isinstance(loop, ast.For)
    assert dump(loop.init) == "(Decl [(Declarator k int [] K)])"
    assert (dump(loop.cond), dump(loop.step)) == ("(> k 0)", "(-= k TK)")
    assert dump(loop.body.items[2]) == "(ExprStmt (+= acc (@ a b)))"
    assert dump(items[-1]) == \
        "(Predicated checkc (ExprStmt (= (* (+ (+ C (* (subscript rm : newaxis) ldc)) (subscript rn newaxis :))) c)))"


def test_matmul_with_fixed_tunable():
    unit = parse(MATMUL, "matmul.tri", {"TM": "128"})
    assert unit.tunables[0].override == "128"
    decl = unit.functions[0].body.items[0].declarators[0]
    assert dump(decl.type) == "int[128]"


def test_paper_era_matmul():
    unit = parse(PAPER_MATMUL, "paper.tri")
    fn = unit.functions[0]
    assert (fn.is_global, fn.kernel_keyword) == (True, "kernel")
    assert [(p.name, dump(p.type), dump(p.attributes)) for p in fn.params[:3]] == [
        ("A", "half*", "[noalias readonly aligned(16)]"), ("B", "half*", "[noalias readonly aligned(16)]"),
        ("C", "float*", "[]")]
    assert fn.params[0].attributes[0].spelling == "restrict"
    assert dump(fn.params[6]) == "(Param lda int [multipleof(8)])"
    items = fn.body.items
    assert dump(items[0].declarators[0].init) == "(get_global_range TM 0)"
    assert dump(items[8].body.items[0]) == "(ExprStmt (= c (call dot a (call trans b) c)))"
    assert dump(items[8].body.items[3]) == "(Predicated checka (ExprStmt (= a (* pa))))"
    assert dump(items[12].declarators[0].type) == "bool[TM,TN]"


def test_legacy_macro_kernel_with_token_list_macros():
    src = """
#define STRIDE_AM lda
#define BROADCAST_AK newaxis, :
#define SHAPE_A TM, TK
#define USE_A ^a
#define NAME(x) kernel_##x
__global__ void NAME(dot)(TYPE *A, TYPE *B, float *C, int lda __multipleof(8), int *locks) {
  int rm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rk[TK] = 0 ... TK;
  TYPE* pa[SHAPE_A] = A + rm[:, newaxis] * STRIDE_AM + rk[BROADCAST_AK];
  TYPE a[SHAPE_A] = *pa;
  float acc[TM, TN] = USE_A @ a;
  float r[TM] = acc[RED];
  int off __multipleof(8) = *locks;
  atomic_add_float_64x64(C, acc, acc > 0);
  __debug_barrier();
}
"""
    defines = {"TYPE": "half", "TM": "64", "TN": "64", "TK": "32", "RED": ":, +"}
    fn = parse(src, "legacy.tri", defines).functions[0]
    assert fn.name == "kernel_dot"
    items = fn.body.items
    assert dump(items[2].declarators[0]) == \
        "(Declarator pa half*[64,32] [] (+ (+ A (* (subscript rm : newaxis) lda)) (subscript rk newaxis :)))"
    assert dump(items[4].declarators[0].init) == "(@ (^ a) a)"
    assert dump(items[5].declarators[0].init) == "(subscript acc : +)"
    assert dump(items[6].declarators[0]) == "(Declarator off int [multipleof(8)] (* locks))"
    call = items[7].expr
    assert (call.name, call.spelling, len(call.args)) == ("atomic_add", "atomic_add_float_64x64", 3)
    assert dump(items[8]) == "(ExprStmt (call __debug_barrier))"


@pytest.mark.parametrize("text, tree", [
    ("pid * TM + 0 ... TM", "(+ (* pid TM) (... 0 TM))"),
    ("a @ b * c", "(* (@ a b) c)"),
    ("a * b @ c", "(* a (@ b c))"),
    ("a @ b @ c", "(@ (@ a b) c)"),
    ("x + 0 ... 4 @ y", "(+ x (@ (... 0 4) y))"),
    ("-a ... b", "(... (- a) b)"),
    ("^a @ b", "(@ (^ a) b)"),
    ("a ^ b", "(^ a b)"),
    ("a + b * c - d", "(- (+ a (* b c)) d)"),
    ("a << 1 + b", "(<< a (+ 1 b))"),
    ("a < b == c > d", "(== (< a b) (> c d))"),
    ("a & b ^ c | d", "(| (^ (& a b) c) d)"),
    ("a || b && c", "(|| a (&& b c))"),
    ("c ? a : b ? d : e", "(? c a (? b d e))"),
    ("x = y += z", "(= x (+= y z))"),
    ("(a, b)", "(, a b)"),
    ("*p + 1", "(+ (* p) 1)"),
    ("*?(m) p + 1", "(+ (*? m p) 1)"),
    ("*?(m)(p + 1)", "(*? m (+ p 1))"),
    ("!a && ~b", "(&& (! a) (~ b))"),
    ("-x[+]", "(- (subscript x +))"),
    ("++i + j--", "(+ (++ i) (post-- j))"),
    ("(float)x * 2", "(* (cast float x) 2)"),
    ("(float[TN]) x", "(cast float[TN] x)"),
    ("(bool[TM, TK])(k > TK)", "(cast bool[TM,TK] (> k TK))"),
    ("(half*)p", "(cast half* p)"),
    ("bitcast<uint32[TM, TN]>(acc)", "(bitcast unsigned int[TM,TN] acc)"),
    ("bitcast<float>(0x7F800000)", "(bitcast float 0x7F800000)"),
    ("x[^2, ^0, ^1]", "(subscript x ^2 ^0 ^1)"),
    ("x[:, newaxis, min]", "(subscript x : newaxis min)"),
    ("min(a, b) + max(a, 1)", "(+ (call min a b) (call max a 1))"),
    ("select(c, a, b)", "(call select c a b)"),
    ("0...8", "(... 0 8)"),
    ("true && !false", "(&& true (! false))"),
])
def test_expression_precedence(text, tree):
    assert expr(text) == tree


@pytest.mark.parametrize("text, value, suffix", [
    ("42", 42, ""), ("0", 0, ""), ("017", 15, ""), ("0x7F800000", 0x7F800000, ""),
    ("0XffU", 255, "u"), ("10ul", 10, "ul"), ("10LU", 10, "ul"), ("5ll", 5, "ll"),
    ("7ULL", 7, "ull"), ("3L", 3, "l"), ("18446744073709551615u", 2**64 - 1, "u"),
])
def test_integer_literals(text, value, suffix):
    lit = body(f"void f() {{ x = {text}; }}")[0].expr.value
    assert (lit.value, lit.suffix, lit.text) == (value, suffix, text)


@pytest.mark.parametrize("text, value, is_float", [
    ("1.5", 1.5, False), ("1.5f", 1.5, True), ("2.F", 2.0, True), (".25", 0.25, False),
    ("1e-3", 1e-3, False), ("3E2f", 300.0, True), ("0.5e+1", 5.0, False),
])
def test_float_literals(text, value, is_float):
    lit = body(f"void f() {{ x = {text}; }}")[0].expr.value
    assert (lit.value, lit.is_float) == (value, is_float)


@pytest.mark.parametrize("spelling, canonical", [
    ("int", "int"), ("int32", "int"), ("signed int", "int"), ("unsigned", "unsigned int"),
    ("uint", "unsigned int"), ("uint32", "unsigned int"), ("char", "char"), ("int8", "char"),
    ("unsigned char", "unsigned char"), ("uchar", "unsigned char"), ("uint8", "unsigned char"),
    ("short int", "short"), ("int16", "short"), ("ushort", "unsigned short"),
    ("long", "long"), ("long long", "long"), ("int64", "long"), ("unsigned long long", "unsigned long"),
    ("ulong", "unsigned long"), ("uint64", "unsigned long"), ("bool", "bool"), ("int1", "bool"),
    ("_Bool", "bool"), ("half", "half"), ("fp16", "half"), ("bfloat16", "bfloat16"),
    ("float", "float"), ("fp32", "float"), ("double", "double"), ("fp64", "double"),
    ("const int", "int"), ("int const", "int"),
])
def test_type_names(spelling, canonical):
    decl = body(f"void f() {{ {spelling} x = 0; }}")[0].declarators[0]
    assert decl.type.base == canonical
    assert decl.type.is_const == ("const" in spelling)


def test_declarators_pointers_tiles_and_multiple_names():
    (decl,) = body("void f() { half *p, a[16, 8] = 0, **q; }")
    assert [(d.name, dump(d.type), dump(d.init)) for d in decl.declarators] == [
        ("p", "half*", "_"), ("a", "half[16,8]", "0"), ("q", "half**", "_")]


def test_statements():
    items = body("""void f(int n) {
      { int x = 1; }
      if (n) x = 1; else if (n > 2) x = 2; else { x = 3; }
      while (n > 0) { n--; if (n == 3) continue; if (n == 1) break; }
      do n++; while (n < 10);
      for (;;) break;
      for (i = 0; i < n; i++) ;
      ;
      return;
    }""")
    assert [type(s).__name__ for s in items] == [
        "Compound", "If", "While", "DoWhile", "For", "For", "EmptyStmt", "Return"]
    assert dump(items[1]) == \
        "(If n (ExprStmt (= x 1)) (If (> n 2) (ExprStmt (= x 2)) (Compound [(ExprStmt (= x 3))])))"
    assert dump(items[2].body.items[1]) == "(If (== n 3) (Continue) _)"
    assert dump(items[3]) == "(DoWhile (ExprStmt (post++ n)) (< n 10))"
    assert dump(items[4]) == "(For _ _ _ (Break))"
    assert dump(items[5]) == "(For (= i 0) (< i n) (post++ i) (EmptyStmt))"
    assert dump(items[7]) == "(Return _)"


def test_dangling_else_binds_to_inner_if():
    (stmt,) = body("void f() { if (a) if (b) x = 1; else x = 2; }")
    assert dump(stmt) == "(If a (If b (ExprStmt (= x 1)) (ExprStmt (= x 2))) _)"


def test_predicated_statements():
    items = body("void f() { @checkc *pc = c; @m a = *pa; @(m && n) *?(k) p = 0; @m ++x; }")
    assert [dump(s) for s in items] == [
        "(Predicated checkc (ExprStmt (= (* pc) c)))",
        "(Predicated m (ExprStmt (= a (* pa))))",
        "(Predicated (&& m n) (ExprStmt (= (*? k p) 0)))",
        "(Predicated m (ExprStmt (++ x)))",
    ]


def test_device_function_with_tile_return_and_tile_params():
    src = """
__device__ float[N] clamp(float x[N], float lo, float hi) {
  return min(max(x, lo), hi);
}
void k(float *X) { float v[N] = clamp(*X, 0.0f, 1.0f); }
__global__ void g(void) { }
"""
    unit = parse(src, "dev.tri", {"N": "128"})
    clamp, k, g = unit.functions
    assert (clamp.is_device, clamp.is_global, dump(clamp.return_type)) == (True, False, "float[128]")
    assert [dump(p.type) for p in clamp.params] == ["float[128]", "float", "float"]
    assert dump(clamp.params[0].shape) == "[128]"
    assert dump(clamp.body.items[0]) == "(Return (call min (call max x lo) hi))"
    assert (k.is_global, k.is_device, k.kernel_keyword) == (False, False, None)
    assert g.params == [] and g.is_global


def test_attributes_in_any_order_and_gnu_form():
    fn = parse("void f(half *A __aligned(16) __writeonly __noalias __retune, "
               "float * restrict B, int n __attribute__((multipleof(8), retune))) {}",
               "a.tri").functions[0]
    assert [dump(p.attributes) for p in fn.params] == [
        "[aligned(16) writeonly noalias retune]", "[noalias]", "[multipleof(8) retune]"]


def test_soft_keywords_are_ordinary_names_elsewhere():
    items = body("void f() { int align = 4; int kernel = align; tunable = kernel; }")
    assert dump(items[2]) == "(ExprStmt (= tunable kernel))"


def test_paper_builtin_aliases():
    items = body("void f() { a = get_range_id(0); b = get_num_program(1); "
                 "c = __atomic_cas(p, 0, 1); d = atomic_add_half_1x1(p, v, m); }")
    calls = [s.expr.value for s in items]
    assert [(c.name, c.spelling) for c in calls] == [
        ("get_program_id", "get_range_id"), ("get_num_programs", "get_num_program"),
        ("atomic_cas", "__atomic_cas"), ("atomic_add", "atomic_add_half_1x1")]


def test_bool_literals_and_tunable_without_candidates():
    unit = parse("const tunable int32 TB;\ntunable int TZ = {1, 2};\nvoid f() { bool b = true; }", "b.tri")
    assert [(t.name, dump(t.candidates), t.type.is_const) for t in unit.tunables] == [
        ("TB", "[]", True), ("TZ", "[1 2]", False)]
    init = unit.functions[0].body.items[0].declarators[0].init
    assert isinstance(init, ast.BoolLiteral) and init.value is True


def test_locations_of_nodes():
    src = "void f(int n) {\n  acc += a @ b;\n  x = TM + y;\n  float z[4] = -F32_INFINITY;\n}\n"
    unit = parse(src, "loc.tri", {"TM": "128"})
    fn = unit.functions[0]
    assert fn.loc == SourceLoc("loc.tri", 1, 6)                 # the name
    assert fn.params[0].loc == SourceLoc("loc.tri", 1, 12)
    assert fn.params[0].type.loc == SourceLoc("loc.tri", 1, 8)
    assign = fn.body.items[0].expr
    assert assign.loc == SourceLoc("loc.tri", 2, 7)             # the '+='
    assert assign.target.loc == SourceLoc("loc.tri", 2, 3)
    assert assign.value.loc == SourceLoc("loc.tri", 2, 12)      # the '@'
    assert assign.value.rhs.loc == SourceLoc("loc.tri", 2, 14)
    plus = fn.body.items[1].expr.value
    assert plus.loc == SourceLoc("loc.tri", 3, 10)
    assert plus.lhs.loc == SourceLoc("loc.tri", 3, 7)          # macro TM -> its invocation
    assert plus.rhs.loc == SourceLoc("loc.tri", 3, 12)
    decl = fn.body.items[2]
    assert decl.loc == SourceLoc("loc.tri", 4, 3)
    assert decl.declarators[0].loc == SourceLoc("loc.tri", 4, 9)
    neg = decl.declarators[0].init
    assert neg.loc == SourceLoc("loc.tri", 4, 16)
    assert neg.operand.loc == SourceLoc("loc.tri", 4, 17)       # F32_INFINITY's bitcast
    assert unit.loc == SourceLoc("loc.tri", 1, 1)


def test_walk_visits_every_node():
    fn = parse(SOFTMAX, "s.tri", {"BLOCK": "32"}).functions[0]
    names = {n.name for n in fn.walk() if isinstance(n, ast.Identifier)}
    assert {"m", "n", "N", "check", "X", "Y", "stride_x", "stride_y", "x", "e"} <= names
