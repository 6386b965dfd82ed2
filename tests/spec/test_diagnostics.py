"""Everything the spec rejects, with the exact message, line and column (file ``t.tri``).

The spec's **must** rules, and where each is tested (M = in this file):

=====  ===================================================================  ======================
spec   rule                                                                 test
=====  ===================================================================  ======================
2      recursion of __device__ functions must be rejected (direct, mutual)  M ``recursion_*``
2      __device__ functions are called only from kernels/device functions   M ``call_kernel``
3      every tile dimension must be a power of two                          M ``pow2_*``
3      ``T x[16][8]`` must be rejected with a hint to write ``T x[16, 8]``  M ``nested_c_array``
3      no struct, union, enum, function pointers                            M ``struct``...
5      range bounds integer constants; length a power of two                M ``range_*``
5      subscripts use every operand axis exactly once                       M ``subscript_*``
5      indexing a tile element or a sub-tile must be rejected               M ``index_*``
5      broadcasting: each dimension must match or be 1                      M ``broadcast_*``
5      ``c ? *p : other`` must lower to a masked load                       test_s5 ``cond_deref_*``
5      ``@`` batch axes must match                                          M ``matmul_*``
5      bitcast reinterprets bits of equal width                             M ``bitcast_*``
6      conditions of if/loops must be scalars (error suggests a mask)       M ``tile_condition_*``
6      goto, switch, asm: a clear error                                     M ``goto``...
7      a launcher must refuse a launch that breaks a promise                test_s7 ``test_launcher_*``
=====  ===================================================================  ======================

The other rejections below are the limits of the language (attributes, tunables, atomics, types
of operands) that sema enforces; tests/frontend/test_errors*.py hold more syntax-level cases.
"""
import pytest

from spec_helpers import Reject, check_reject, compile_error, reject_params

CASES = [
    # ------------------------------------------------------------------ section 2
    Reject("recursion_direct", "__device__ int f(int n) {\n  return f(n - 1);\n}\nvoid k(int *p) { *p = f(3); }\n",
           "recursive call to device function 'f'", 2, 10),
    Reject("recursion_mutual", "__device__ int f(int n) {\n  return g(n);\n}\n__device__ int g(int n) {\n  return f(n);\n}\n",
           "recursive call to device function 'g'", 2, 10),
    Reject("recursion_through_three", "__device__ int a(int n) { return b(n); }\n__device__ int b(int n) { return c(n); }\n"
           "__device__ int c(int n) {\n  return a(n);\n}\n", "recursive call to device function 'b'", 1, 34),
    Reject("call_kernel", "void j(int *p) {\n}\nvoid k(int *p) {\n  j(p);\n}\n",
           "cannot call kernel 'j'; only '__device__' functions can be called", 4, 3),
    Reject("device_and_global", "__device__ __global__ void f() {\n}\n",
           "function 'f' cannot be both '__device__' and '__global__'", 1, 28),
    Reject("kernel_returns_value", "__global__ float k() {\n  return 1.0f;\n}\n",
           "function 'k' returns 'float': kernels return 'void' and only '__device__' functions may return a value", 1, 18),
    Reject("device_return_shape", "__device__ float[16] f(float x[8]) {\n  return x[:, newaxis];\n}\n",
           "returning 'float[16]' from 'float[8, 1]': shape [8, 1] neither broadcasts to [16] nor has as many elements",
           2, 11),
    Reject("device_wrong_argument_count", "__device__ int f(int a, int b) { return a + b; }\nvoid k(int *p) {\n"
           "  *p = f(1);\n}\n", "'f' takes 2 arguments, 1 given", 3, 8),
    Reject("calling_a_kernel_named_dot", "__global__ void dot(float *A, float *B) { }\n"
           "__global__ void k(float *X) {\n  float x[16, 16] = 0;\n  float y[16, 16] = dot(x, x);\n}\n",
           "cannot call kernel 'dot'; only '__device__' functions can be called", 4, 21),
    Reject("error_directive", "#if !defined(TM)\n#error define TM\n#endif\n", "#error define TM", 2, 2),
    Reject("missing_include", "\n#include \"nowhere.h\"\n", "'nowhere.h' file not found", 2, 10),

    # ------------------------------------------------------------------ section 3
    Reject("pow2_declaration", "void k() {\n  float x[48] = 0;\n}\n", "tile dimension 48 is not a power of two", 2, 11),
    Reject("pow2_second_dim", "void k() {\n  float x[16, 24] = 0;\n}\n", "tile dimension 24 is not a power of two", 2, 15),
    Reject("pow2_from_macro", "#define TM 96\nvoid k() {\n  float x[TM] = 0;\n}\n",
           "tile dimension 96 is not a power of two", 3, 11),
    Reject("pow2_cast_type", "void k(float *p) {\n  float y = 1.0f;\n  *p = ((float[12]) y)[+];\n}\n",
           "tile dimension 12 is not a power of two", 3, 16),
    Reject("pow2_range", "void k() {\n  int r[16] = 0 ... 12;\n}\n", "range length 12 ('0 ... 12') is not a power of two", 2, 17),
    Reject("pow2_global_range", "void k() {\n  int r[16] = get_global_range[12](0);\n}\n",
           "tile dimension 12 is not a power of two", 2, 32),
    Reject("pow2_reshape", "void k() {\n  float x[16] = 0;\n  float y[4, 4] = __reshape(x, 2, 6);\n}\n",
           "tile dimension 6 is not a power of two", 3, 35),
    Reject("pow2_device_param", "__device__ float f(float x[6]) {\n  return x[+];\n}\n",
           "tile dimension 6 is not a power of two", 1, 28),
    Reject("pow2_device_result", "__device__ float[6] f(float x) {\n  return x;\n}\n",
           "tile dimension 6 is not a power of two", 1, 18),
    Reject("pow2_zero", "void k() {\n  float x[0] = 0;\n}\n", "tile dimension 0 is not a power of two", 2, 11),
    Reject("nested_c_array", "void k() {\n  float x[16][8];\n}\n",
           "C arrays of arrays are not tiles: write 'float x[16, 8]' instead of 'float x[16][8]'", 2, 14),
    Reject("nested_c_array_param", "void k(float *p[4][4]) {\n}\n",
           "C arrays of arrays are not tiles: write 'float *p[4, 4]' instead of 'float *p[4][4]'", 1, 19),
    Reject("nested_c_array_macros", "void k() {\n  unsigned int x[TM][TN][2];\n}\n",
           "C arrays of arrays are not tiles: write 'unsigned int x[16, 8, 2]' instead of "
           "'unsigned int x[16][8][2]'", 2, 21, defines={"TM": "16", "TN": "8"}),
    Reject("nested_c_array_cast", "void k(float *X) {\n  float y[4] = (float[2][2]) *X;\n}\n",
           "C arrays of arrays are not tiles: write 'float[2, 2]' instead of 'float[2][2]'", 2, 25),
    Reject("struct", "struct S { int a; };\n", "'struct' types are not supported in Triton-C", 1, 1),
    Reject("union", "void k() {\n  union U u;\n}\n", "'union' types are not supported in Triton-C", 2, 3),
    Reject("enum", "enum E { A };\n", "'enum' types are not supported in Triton-C; use macros for constants", 1, 1),
    Reject("function_pointer_param", "void k(void (*g)(int)) {\n}\n", "function pointers are not supported in Triton-C", 1, 13),
    Reject("function_pointer_local", "void k() {\n  int (*g)(int);\n}\n", "function pointers are not supported in Triton-C", 2, 7),
    Reject("pointer_to_pointer", "void k(float **p) {\n}\n", "pointers to pointers are not supported in Triton-C", 1, 8),
    Reject("void_variable", "void k() {\n  void v;\n}\n", "variable has incomplete type 'void'", 2, 3),
    Reject("kernel_tile_parameter", "void k(float x[16]) {\n}\n", "kernel parameter 'x' cannot be a tile; pass a pointer", 1, 14),

    # ------------------------------------------------------------------ section 4
    Reject("aligned_not_power_of_two", "void k(float *p __aligned(12)) {\n}\n",
           "'__aligned' needs a positive power of two argument, got 12", 1, 27),
    Reject("multipleof_zero", "void k(int n __multipleof(0)) {\n}\n", "'__multipleof' needs a positive argument, got 0", 1, 27),
    Reject("multipleof_float", "void k(float x __multipleof(4)) {\n}\n",
           "'__multipleof' applies to integer or pointer parameters; 'x' has type 'float'", 1, 16),
    Reject("noalias_on_integer", "void k(int n __noalias) {\n}\n",
           "'__noalias' applies only to pointer parameters; 'n' has type 'int'", 1, 14),
    Reject("readonly_and_writeonly", "void k(float *p __readonly __writeonly) {\n}\n",
           "parameter 'p' cannot be both read-only and write-only", 1, 15),
    Reject("aligned_not_constant", "void k(float *p __aligned(n)) {\n}\n", "use of undeclared identifier 'n'", 1, 27),
    Reject("local_attribute_other_than_multipleof", "void k() {\n  int x __aligned(16) = 0;\n}\n",
           "'__aligned' applies only to parameters", 2, 9),
    Reject("local_multipleof_on_float", "void k() {\n  float x __multipleof(4) = 0;\n}\n",
           "'__multipleof' applies to integer variables; 'x' has type 'float'", 2, 11),
    Reject("tunable_without_candidates", "const tunable int TM;\nvoid k() {\n}\n",
           "tunable 'TM' has no candidate values; set it with -D TM=<value>", 1, 19),
    Reject("tunable_float", "const tunable float TM = {1.0};\n", "tunable 'TM' must have an integer type, not 'float'", 1, 15),
    Reject("tunable_candidate_not_constant", "const tunable int TM = {64, N};\n",
           "use of undeclared identifier 'N'", 1, 29),
    Reject("tunable_assigned", "const tunable int TM = {64};\nvoid k() {\n  TM = 3;\n}\n", "cannot assign to tunable 'TM'", 3, 3),
    Reject("tunable_define_not_integer", "const tunable int TM = {64};\nvoid k() {\n}\n",
           "-D TM=abc: a tunable needs an integer value", 1, 19, defines={"TM": "abc"}),
    Reject("const_without_initializer", "void k() {\n  const int n;\n}\n", "const variable 'n' needs an initializer", 2, 13),
    Reject("const_assigned", "void k() {\n  const int n = 3;\n  n += 4;\n}\n",
           "cannot assign to variable 'n' with const-qualified type 'const int'", 3, 3),
    Reject("redefinition_same_scope", "void k() {\n  int a = 1;\n  float a = 2;\n}\n", "redefinition of 'a'", 3, 9),
    Reject("file_scope_variable", "int x = 3;\n",
           "variable 'x' cannot be declared at file scope; use a macro or 'const tunable'", 1, 5),

    # ------------------------------------------------------------------ section 5
    Reject("range_not_constant", "void k(int n) {\n  int r[16] = n ... n + 16;\n}\n",
           "range bounds must be integer constant expressions", 2, 15),
    Reject("range_float_bounds", "void k() {\n  int r[16] = 0 ... 16.0;\n}\n", "range bounds must be integer constant expressions", 2, 21),
    Reject("range_empty", "void k() {\n  int r[16] = 4 ... 4;\n}\n", "range '4 ... 4' is empty", 2, 17),
    Reject("subscript_missing_axis", "void k() {\n  float x[16, 8] = 0;\n  float y[16] = x[:];\n}\n",
           "subscript uses 1 of the 2 axes of 'float[16, 8]'; every axis must appear exactly once "
           "(':' keeps, '+'/'max'/'min' reduce, 'newaxis' inserts)", 3, 18),
    Reject("subscript_extra_axis", "void k() {\n  float x[16] = 0;\n  float y[16] = x[:, :];\n}\n",
           "subscript uses 2 of the 1 axes of 'float[16]'; every axis must appear exactly once "
           "(':' keeps, '+'/'max'/'min' reduce, 'newaxis' inserts)", 3, 18),
    Reject("subscript_permutation_incomplete", "void k() {\n  float x[4, 8, 2] = 0;\n  float y[8, 4] = x[^1, ^0];\n}\n",
           "subscript does not use axis 2 of 'float[4, 8, 2]'", 3, 20),
    Reject("subscript_permutation_mixed", "void k() {\n  float x[4, 8] = 0;\n  float y[8, 4] = x[^1, :];\n}\n",
           "permutation entries ('^k') cannot be mixed with ':' or reductions", 3, 25),
    Reject("subscript_permutation_twice", "void k() {\n  float x[16, 8] = 0;\n  float y[16, 8] = x[^0, ^0];\n}\n",
           "subscript uses axis 0 twice", 3, 26),
    Reject("subscript_reduce_pointers", "void k(float *p) {\n  float *q[16] = p + (0 ... 16);\n  float *s = q[+];\n}\n",
           "cannot reduce a tile of pointers ('float*[16]')", 3, 15),
    Reject("index_element", "void k(float *p) {\n  float x[16] = 0;\n  *p = x[3];\n}\n",
           "a subscript reshapes, broadcasts, reduces or permutes a tile and never indexes it: each entry must be ':', "
           "'newaxis', '+', 'max', 'min' or '^k'", 3, 10),
    Reject("index_variable", "void k(float *p, int i) {\n  float x[16] = 0;\n  *p = x[i];\n}\n",
           "a subscript reshapes, broadcasts, reduces or permutes a tile and never indexes it: each entry must be ':', "
           "'newaxis', '+', 'max', 'min' or '^k'", 3, 10),
    Reject("index_subtile", "void k() {\n  float x[16, 16] = 0;\n  float y[16] = x[:, 0 ... 16];\n}\n",
           "a subscript reshapes, broadcasts, reduces or permutes a tile and never indexes it: each entry must be ':', "
           "'newaxis', '+', 'max', 'min' or '^k'", 3, 24),
    Reject("index_slice_syntax", "void k() {\n  float x[16] = 0;\n  float y[4] = x[0:4];\n}\n",
           "expected ']' before ':'", 3, 19),
    Reject("broadcast_mismatch", "void k() {\n  int a[64, 32] = 0;\n  int b[16] = 0;\n  int c[64, 32] = a + b;\n}\n",
           "cannot broadcast shapes [64, 32] and [16]", 4, 21),
    Reject("broadcast_conditional", "void k() {\n  float a[8] = 0;\n  float b[4] = 0;\n  bool c[8] = a > 0;\n"
           "  float d[8] = c ? a : b;\n}\n", "cannot broadcast shapes [8] and [4]", 5, 18),
    Reject("broadcast_assignment", "void k() {\n  float a[16] = 0;\n  float b[8] = 0;\n  b = a;\n}\n",
           "assigning to 'float[8]' from 'float[16]': shape [16] neither broadcasts to [8] nor has as many elements", 4, 5),
    Reject("tile_to_scalar", "void k() {\n  float s;\n  s = (float[4]) 1.0f;\n}\n",
           "assigning to 'float' from a tile of type 'float[4]'; a tile does not convert to a scalar "
           "(reduce it first, e.g. 'x[+]')", 3, 5),
    Reject("cast_element_count", "void k() {\n  float x[16] = 0;\n  float y[8] = (float[8]) x;\n}\n",
           "casting to 'float[8]' from 'float[16]': shape [16] neither broadcasts to [8] nor has as many elements", 3, 16),
    Reject("pointer_times_int", "void k(float *p) {\n  float *q = p * 2;\n}\n",
           "invalid operands to binary expression ('float*' and 'int')", 2, 16),
    Reject("pointer_plus_pointer", "void k(float *p, float *q) {\n  float *r = p + q;\n}\n",
           "invalid operands to binary expression ('float*' and 'float*')", 2, 16),
    Reject("pointer_compare_types", "void k(float *p, int *q) {\n  bool b = p < q;\n}\n",
           "'float*' and 'int*' are not pointers to compatible types", 2, 14),
    Reject("shift_float", "void k(float x) {\n  float y = x << 1;\n}\n",
           "invalid operands to binary expression ('float' and 'int')", 2, 15),
    Reject("bitnot_float", "void k(float x) {\n  float y = ~x;\n}\n", "invalid argument type 'float' to unary expression", 2, 13),
    Reject("deref_non_pointer", "void k(float *p) {\n  float x[16] = 0;\n  float y[16] = *x;\n}\n",
           "indirection requires pointer operand ('float[16]' invalid)", 3, 17),
    Reject("store_incompatible_pointer", "void k(float *X) {\n  half *p = X;\n}\n",
           "incompatible pointer types initializing 'half*' from 'float*'", 2, 13),
    Reject("matmul_rank", "void k() {\n  float a[16] = 0;\n  float b[16] = 0;\n  float c = a @ b;\n}\n",
           "matrix product needs tiles of rank 2 or more; the left operand has type 'float[16]'", 4, 15),
    Reject("matmul_inner_dims", "void k() {\n  half a[64, 32] = 0;\n  half b[16, 64] = 0;\n  float c[64, 64] = a @ b;\n}\n",
           "matrix product shapes [64, 32] and [16, 64] do not agree: 32 columns times 16 rows", 4, 23),
    Reject("matmul_batch_axes", "void k() {\n  float a[16, 8, 2] = 0;\n  float b[8, 16, 4] = 0;\n"
           "  float c[16, 16, 2] = a @ b;\n}\n", "matrix product batch axes differ: [2] and [4]", 4, 26),
    Reject("matmul_ranks_differ", "void k() {\n  float a[16, 8, 2] = 0;\n  float b[8, 16] = 0;\n  float c[16, 16, 2] = a @ b;\n}\n",
           "matrix product operands have different ranks: 'float[16, 8, 2]' and 'float[8, 16]'", 4, 26),
    Reject("matmul_bool", "void k() {\n  bool a[16, 16] = 0;\n  bool c[16, 16] = a @ a;\n}\n",
           "matrix product of 'bool[16, 16]' is not supported", 3, 22),
    Reject("transpose_scalar", "void k(float x) {\n  float y = ^x;\n}\n", "transpose '^' needs a tile operand; 'float' is a scalar", 2, 13),
    Reject("bitcast_width", "void k(half h) {\n  float f = bitcast<float>(h);\n}\n",
           "bitcast from 'half' (16 bits) to 'float' (32 bits) changes the width", 2, 13),
    Reject("bitcast_shape", "void k() {\n  float x[4, 8] = 0;\n  int y[8, 4] = bitcast<int[8, 4]>(x);\n}\n",
           "bitcast to 'int[8, 4]' changes the shape of 'float[4, 8]'", 3, 17),
    Reject("bitcast_pointer", "void k(float *p) {\n  long a = bitcast<long>(p);\n}\n",
           "bitcast of pointers is not supported; cast through 'long'", 2, 12),
    Reject("math_on_pointer", "void k(float *p) {\n  float x = exp(p);\n}\n", "'exp' needs arithmetic operands, not 'float*'", 2, 17),
    Reject("min_broadcast", "void k() {\n  float a[8] = 0;\n  float b[4] = 0;\n  float c[8] = min(a, b);\n}\n",
           "cannot broadcast shapes [8] and [4]", 4, 16),
    Reject("atomic_add_char", "void k(char *p) {\n  atomic_add(p, 1);\n}\n",
           "'atomic_add' on 'char*' is not supported; it takes pointers to 'int', 'unsigned int', 'long', 'unsigned long', "
           "'float', 'half'", 2, 14),
    Reject("atomic_max_half", "void k(half *p) {\n  atomic_max(p, 1);\n}\n",
           "'atomic_max' on 'half*' is not supported; it takes pointers to 'int', 'unsigned int', 'long', "
           "'unsigned long', 'float'", 2, 14),
    Reject("atomic_not_pointer", "void k(int x) {\n  atomic_add(x, 1);\n}\n",
           "the first argument of 'atomic_add' must be a pointer or a tile of pointers, not 'int'", 2, 14),
    Reject("atomic_xchg_mask", "void k(int *p) {\n  atomic_xchg(p, 1, true);\n}\n", "'atomic_xchg' takes 2 arguments, 3 given", 2, 3),
    Reject("atomic_cas_arguments", "void k(int *p) {\n  int old = atomic_cas(p, 1);\n}\n",
           "'atomic_cas' takes 3 arguments, 2 given", 2, 13),
    Reject("atomic_alias_needs_mask", "void k(float *p) {\n  atomic_add_float_1x1(p, 1.0f);\n}\n",
           "'atomic_add_float_1x1' takes 3 arguments, 2 given", 2, 3),
    Reject("program_id_axis", "void k() {\n  int i = get_program_id(3);\n}\n", "the axis of 'get_program_id' must be 0, 1 or 2, not 3", 2, 26),
    Reject("program_id_axis_variable", "void k(int a) {\n  int i = get_program_id(a);\n}\n",
           "the axis of 'get_program_id' must be an integer constant expression", 2, 26),
    Reject("barrier_value", "void k() {\n  int x = __debug_barrier();\n}\n", "expression of type 'void' used as a value", 2, 11),
    Reject("rand_seed_float", "void k(float *p, float s) {\n  *p = rand(s, 0);\n}\n",
           "the seed of 'rand' must be an integer scalar, not 'float'", 2, 13),
    Reject("rand_seed_tile", "void k(float *p) {\n  int s[8] = 0 ... 8;\n  *(p + s) = rand(s, s);\n}\n",
           "the seed of 'rand' must be an integer scalar, not 'int[8]'", 3, 19),
    Reject("randn_seed_pointer", "void k(float *p) {\n  *p = randn(p, 0);\n}\n",
           "the seed of 'randn' must be an integer scalar, not 'float*'", 2, 14),
    Reject("randint_seed_bool", "void k(unsigned int *p, bool b) {\n  *p = randint(b, 0);\n}\n",
           "the seed of 'randint' must be an integer scalar, not 'bool'", 2, 16),
    Reject("rand_offsets_float", "void k(float *p, long s) {\n  float x[8] = 0.5f;\n  *(p + (0 ... 8)) = rand(s, x);\n}\n",
           "the offsets of 'rand' must be 'int' or 'unsigned int' (a scalar or a tile), not 'float[8]'", 3, 30),
    Reject("rand_offsets_short", "void k(float *p, long s, short o) {\n  *p = rand(s, o);\n}\n",
           "the offsets of 'rand' must be 'int' or 'unsigned int' (a scalar or a tile), not 'short'", 2, 16),
    Reject("randn_offsets_pointer", "void k(float *p, long s) {\n  *p = randn(s, p);\n}\n",
           "the offsets of 'randn' must be 'int' or 'unsigned int' (a scalar or a tile), not 'float*'", 2, 17),
    Reject("randint_offsets_64_bit", "void k(unsigned int *p, long s) {\n  long o[8] = 0 ... 8;\n"
           "  *(p + (0 ... 8)) = randint(s, o);\n}\n",
           "64-bit offsets of 'randint' are not supported ('long[8]'): OpenAI Triton draws them from Philox 4x64, "
           "which tritonc does not implement; convert the offsets to 'int'", 3, 33),
    Reject("rand_arguments", "void k(float *p) {\n  *p = rand(1);\n}\n", "'rand' takes 2 arguments, 1 given", 2, 8),
    Reject("unknown_function", "void k() {\n  foo(1);\n}\n", "unknown function 'foo'", 2, 3),
    Reject("call_variable", "void k(int f) {\n  f(1);\n}\n", "called object 'f' is not a function", 2, 3),
    Reject("undeclared", "void k() {\n  int y = x + 1;\n}\n", "use of undeclared identifier 'x'", 2, 11),
    Reject("not_assignable", "void k(int x) {\n  3 = x;\n}\n", "expression is not assignable", 2, 3),
    Reject("increment_bool", "void k() {\n  bool b = true;\n  b++;\n}\n", "cannot increment value of type 'bool'", 3, 4),
    Reject("conditional_incompatible", "void k(float *p, int c) {\n  float x = c ? p : 1.0;\n}\n",
           "incompatible operand types ('float*' and 'double')", 2, 15),

    # ------------------------------------------------------------------ section 6
    Reject("tile_condition_if", "void k() {\n  int x[16] = 0 ... 16;\n  if (x > 3) x = 0;\n}\n",
           "tile condition in 'if'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 9),
    Reject("tile_condition_while", "void k() {\n  int x[16] = 0 ... 16;\n  while (x < 3) x += 1;\n}\n",
           "tile condition in 'while'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 12),
    Reject("tile_condition_for", "void k() {\n  int x[16] = 0 ... 16;\n  for (int i = 0; x < i; i++) {}\n}\n",
           "tile condition in 'for'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 21),
    Reject("tile_condition_do", "void k() {\n  int x[16] = 0 ... 16;\n  do x += 1; while (x < 3);\n}\n",
           "tile condition in 'do/while'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 23),
    Reject("tile_condition_logical", "void k(int n) {\n  int x[16] = 0 ... 16;\n  if (n > 0 && x > 3) n = 0;\n}\n",
           "tile condition in 'if'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", 3, 13),
    Reject("goto", "void k() {\n  goto out;\n}\n", "'goto' is not supported in Triton-C", 2, 3),
    Reject("switch", "void k(int a) {\n  switch (a) { }\n}\n", "'switch' is not supported in Triton-C; use if/else", 2, 3),
    Reject("case", "void k(int a) {\n  case 1: a = 2;\n}\n",
           "'case' is not supported in Triton-C ('switch' is not supported; use if/else)", 2, 3),
    Reject("asm", "void k() {\n    asm(\"nop\");\n}\n", "inline assembly ('asm') is not supported in Triton-C", 2, 5),
    Reject("asm_gnu", "void k() {\n  __asm__(\"nop\");\n}\n", "inline assembly ('__asm__') is not supported in Triton-C", 2, 3),
    Reject("break_outside_loop", "void k() {\n  break;\n}\n", "'break' statement not in loop statement", 2, 3),
    Reject("continue_outside_loop", "void k() {\n  if (1) continue;\n}\n", "'continue' statement not in loop statement", 2, 10),
    Reject("kernel_returns_a_value", "void k() {\n  return 1;\n}\n", "kernel 'k' should not return a value", 2, 10),
    Reject("device_returns_nothing", "__device__ int f() {\n  return;\n}\n", "non-void function 'f' should return a value", 2, 3),
    Reject("predicate_not_statement", "void k(int *p) {\n  @(*p > 0) if (1) *p = 0;\n}\n",
           "'@mask' applies to an assignment, a store or a masked atomic (atomic_add/atomic_max/atomic_min)", 2, 13),
    Reject("predicate_shape", "void k(float *p) {\n  bool m[32] = 0;\n  @m *(p + (0 ... 16)) = 1;\n}\n",
           "predicate of type 'bool[32]' does not broadcast to the shape [16] of the predicated statement", 3, 4),
]


@pytest.mark.parametrize("case", reject_params(CASES))
def test_rejected(case):
    check_reject(case)


def test_error_inside_a_macro_points_at_its_use():
    err = compile_error("#define TILE float x[48]\nvoid k() {\n  TILE = 0;\n}\n")
    assert (err.message, err.loc.line, err.loc.col) == ("tile dimension 48 is not a power of two", 3, 3)


def test_error_in_command_line_macro_points_at_its_use():
    err = compile_error("void k() {\n  float x[TM] = 0;\n}\n", defines={"TM": "24"})
    assert (err.message, err.loc.line, err.loc.col) == ("tile dimension 24 is not a power of two", 2, 11)
