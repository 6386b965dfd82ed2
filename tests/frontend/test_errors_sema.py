"""Semantic errors: each names the problem as clang would and points at the right line and column."""
import pytest

from fe_helpers import error_of

# (source, message, line, column). Sources are small kernels; the error is on the marked line.
CASES = [
    # names and scopes
    ("void k() {\n  int y = x + 1;\n}\n", "use of undeclared identifier 'x'", 2, 11),
    ("void k() {\n  int a = 1;\n  float a = 2;\n}\n", "redefinition of 'a'", 3, 9),
    # a parameter may be redeclared once (-Wshadow, spec 2); a second declaration in that block may not
    ("void k(int n) {\n  int n = 2;\n  int n = 3;\n}\n", "redefinition of 'n'", 3, 7),
    ("void k() {\n  const int n = 3;\n  n = 4;\n}\n",
     "cannot assign to variable 'n' with const-qualified type 'const int'", 3, 3),
    ("void k(int x) {\n  3 = x;\n}\n", "expression is not assignable", 2, 3),
    ("void k() {\n  foo(1);\n}\n", "unknown function 'foo'", 2, 3),
    # tile shapes
    ("void k() {\n  float x[48] = 0;\n}\n", "tile dimension 48 is not a power of two", 2, 11),
    ("void k(int n) {\n  float x[n] = 0;\n}\n", "tile dimension must be an integer constant expression", 2, 11),
    ("void k() {\n  int a[64, 32] = 0;\n  int b[16] = 0;\n  int c[64, 32] = a + b;\n}\n",
     "cannot broadcast shapes [64, 32] and [16]", 4, 21),
    ("void k() {\n  float a[16] = 0;\n  float b[32] = a;\n}\n",
     "initializing 'float[32]' from 'float[16]': shape [16] neither broadcasts to [32] nor has as many elements", 3, 17),
    ("void k() {\n  int s;\n  s = 0 ... 16;\n}\n",
     "assigning to 'int' from a tile of type 'int[16]'; a tile does not convert to a scalar (reduce it first, e.g. 'x[+]')",
     3, 5),
    ("void k(float x[16]) {\n}\n", "kernel parameter 'x' cannot be a tile; pass a pointer", 1, 14),
    # conditions
    ("void k() {\n  int x[16] = 0 ... 16;\n  if (x > 3) x = 0;\n}\n",
     "tile condition in 'if'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 9),
    ("void k() {\n  int x[16] = 0 ... 16;\n  while (x < 3) x += 1;\n}\n",
     "tile condition in 'while'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 12),
    ("void k() {\n  int x[16] = 0 ... 16;\n  for (int i = 0; x < i; i++) {}\n}\n",
     "tile condition in 'for'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 21),
    # subscripts
    ("void k(int x[16]) {\n  int y = x[3];\n}\n".replace("void k", "__device__ void k"),
     "a subscript reshapes, broadcasts, reduces or permutes a tile and never indexes it: "
     "each entry must be ':', 'newaxis', '+', 'max', 'min' or '^k'", 2, 13),
    ("void k() {\n  float x[16, 8] = 0;\n  float y[16, 8] = x[^0, ^0];\n}\n", "subscript uses axis 0 twice", 3, 26),
    ("void k() {\n  float x[16, 8] = 0;\n  float y[8, 16] = x[^2, ^0];\n}\n",
     "permutation axis 2 is out of range for 'float[16, 8]'", 3, 22),
    ("void k() {\n  float x[16, 8] = 0;\n  float y[16] = x[:];\n}\n",
     "subscript uses 1 of the 2 axes of 'float[16, 8]'; every axis must appear exactly once "
     "(':' keeps, '+'/'max'/'min' reduce, 'newaxis' inserts)", 3, 18),
    ("void k() {\n  int s = 3;\n  int t = s[+];\n}\n",
     "cannot reduce a scalar of type 'int'; only 'newaxis' entries apply to scalars", 3, 12),
    # ranges
    ("void k(int n) {\n  int r[16] = n ... n + 16;\n}\n", "range bounds must be integer constant expressions", 2, 15),
    ("void k() {\n  int r[64] = 0 ... 48;\n}\n", "range length 48 ('0 ... 48') is not a power of two", 2, 17),
    # operators
    ("void k(int n) {\n  *n = 1;\n}\n", "indirection requires pointer operand ('int' invalid)", 2, 3),
    ("void k(float *p) {\n  float x[16] = 0;\n  float y[16] = *x;\n}\n",
     "indirection requires pointer operand ('float[16]' invalid)", 3, 17),
    ("void k(float *p) {\n  float *q = p + 1.5;\n}\n", "invalid operands to binary expression ('float*' and 'double')", 2, 16),
    ("void k(float a, float b) {\n  float c = a % b;\n}\n", "invalid operands to binary expression ('float' and 'float')", 2, 15),
    ("void k(float *p, int c) {\n  float x = c ? p : 1.0;\n}\n", "incompatible operand types ('float*' and 'double')", 2, 15),
    ("void k(float *X) {\n  half *p = X;\n}\n", "incompatible pointer types initializing 'half*' from 'float*'", 2, 13),
    ("void k() {\n  float a[16] = 0;\n  float b[16] = 0;\n  float c = a @ b;\n}\n",
     "matrix product needs tiles of rank 2 or more; the left operand has type 'float[16]'", 4, 15),
    ("void k() {\n  half a[64, 32] = 0;\n  half b[16, 64] = 0;\n  float c[64, 64] = a @ b;\n}\n",
     "matrix product shapes [64, 32] and [16, 64] do not agree: 32 columns times 16 rows", 4, 23),
    ("void k(half h) {\n  float f = bitcast<float>(h);\n}\n",
     "bitcast from 'half' (16 bits) to 'float' (32 bits) changes the width", 2, 13),
    # calls and built-ins
    ("void k(int *p) {\n  int old = atomic_cas(p, 1);\n}\n", "'atomic_cas' takes 3 arguments, 2 given", 2, 13),
    ("void k(half *p) {\n  atomic_max(p, 1);\n}\n",
     "'atomic_max' on 'half*' is not supported; it takes pointers to 'int', 'unsigned int', 'long', "
     "'unsigned long', 'float'", 2, 14),
    ("void k() {\n  int i = get_program_id(3);\n}\n", "the axis of 'get_program_id' must be 0, 1 or 2, not 3", 2, 26),
    ("void k() {\n  int x = __debug_barrier();\n}\n", "expression of type 'void' used as a value", 2, 11),
    ("__device__ int f(int n) {\n  return f(n - 1);\n}\n", "recursive call to device function 'f'", 2, 10),
    ("__device__ int f(int n) {\n  return g(n);\n}\n__device__ int g(int n) {\n  return f(n);\n}\n",
     "recursive call to device function 'g'", 2, 10),
    ("void j() {\n}\nvoid k() {\n  j();\n}\n", "cannot call kernel 'j'; only '__device__' functions can be called", 4, 3),
    # statements and functions
    ("void k() {\n  break;\n}\n", "'break' statement not in loop statement", 2, 3),
    ("void k() {\n  if (1) continue;\n}\n", "'continue' statement not in loop statement", 2, 10),
    ("void k() {\n  return 1;\n}\n", "kernel 'k' should not return a value", 2, 10),
    ("__global__ int k() {\n  return 1;\n}\n",
     "function 'k' returns 'int': kernels return 'void' and only '__device__' functions may return a value", 1, 16),
    ("__device__ int f() {\n  return;\n}\n", "non-void function 'f' should return a value", 2, 3),
    ("void k(float *p, bool m[32]) {\n}\n".replace("void k", "__device__ void k").replace(
        "}\n", "  @m *(p + (0 ... 16)) = 1;\n}\n"),
     "predicate of type 'bool[32]' does not broadcast to the shape [16] of the predicated statement", 2, 4),
    ("void k(int *p) {\n  @(*p > 0) if (1) *p = 0;\n}\n",
     "'@mask' applies to an assignment, a store or a masked atomic (atomic_add/atomic_max/atomic_min)", 2, 13),
    ("const tunable int TM;\nvoid k() {\n}\n", "tunable 'TM' has no candidate values; set it with -D TM=<value>", 1, 19),
    ("void k(float *p __aligned(12)) {\n}\n", "'__aligned' needs a positive power of two argument, got 12", 1, 27),
    ("void k(int n __noalias) {\n}\n", "'__noalias' applies only to pointer parameters; 'n' has type 'int'", 1, 14),
]


@pytest.mark.parametrize("src, message, line, col", CASES, ids=[c[1][:40] for c in CASES])
def test_error_message_and_location(src, message, line, col):
    err = error_of(src)
    assert err.message == message
    assert (err.loc.file, err.loc.line, err.loc.col) == ("t.tri", line, col)


def test_redefinition_has_a_note_at_the_previous_definition():
    err = error_of("void k() {\n  int a = 1;\n  float a = 2;\n}\n")
    (note,) = err.diagnostic.notes
    assert note.message == "previous definition is here" and (note.loc.line, note.loc.col) == (2, 7)


def test_mutual_recursion_note_shows_the_cycle():
    err = error_of("__device__ int f(int n) { return g(n); }\n__device__ int g(int n) { return f(n); }\n"
                   "void k(int *p) { *p = f(1); }\n")
    assert [n.message for n in err.diagnostic.notes] == ["call cycle: f -> g -> f"]


def test_inner_scope_may_redeclare():
    from fe_helpers import ir
    ir("void k(int *p) {\n  int a = 1;\n  { float a = 2; *p = a; }\n  if (a) { int a = 3; *p = a; }\n}\n")
