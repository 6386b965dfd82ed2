"""--kernel K (spec section 2): after preprocessing, only K, the functions it calls and the
file-scope declarations are parsed and checked; the other functions need balanced braces only."""
import pytest

from fe_helpers import compile_module
from tritonc.diagnostics import CompileError, DiagnosticSink, SourceManager
from tritonc.frontend_stage import frontend
from tritonc.frontend.parser import parse
from tritonc.options import CompileOptions

# 'other' needs -D TYPE=... -D TM=...: a macro used as a type, so it does not even parse without them.
TWO_KERNELS = """
const tunable int BLOCK = {16, 32};
__device__ float twice(float v) { return 2.0f * v; }
__device__ float twice_via(float v) { return twice(v); }
__device__ TYPE unused(TYPE v) { return v; }
__global__ void add(float *X, float *Y) {
  int r[BLOCK] = 0 ... BLOCK;
  *(Y + r) = twice_via(*(X + r));
}
__global__ void other(TYPE *X, TYPE *Y) {
  TYPE x[TM] = *(X + (0 ... TM));
  *(Y + (0 ... TM)) = x;
}
"""


def names(tu):
    return [d.name for d in tu.decls]


def test_only_the_kernel_and_the_functions_it_calls_are_parsed():
    tu = parse(TWO_KERNELS, "k.tri", kernel="add")
    assert names(tu) == ["BLOCK", "twice", "twice_via", "add"]


def test_without_kernel_the_other_kernel_does_not_parse():
    with pytest.raises(CompileError) as info:
        parse(TWO_KERNELS, "k.tri")
    assert info.value.loc.line == 5  # 'TYPE' in 'unused', the first use of the undefined macro


def test_the_other_kernel_builds_with_its_own_defines():
    tu = parse(TWO_KERNELS, "k.tri", defines={"TYPE": "half", "TM": "64"}, kernel="other")
    assert names(tu) == ["BLOCK", "other"]


def test_the_kept_kernel_compiles_and_keeps_its_locations():
    diag = DiagnosticSink()
    module = frontend(TWO_KERNELS, "k.tri", CompileOptions(kernel="add"), SourceManager(), diag)
    # the tile call makes element-wise instances of both device functions (spec section 2)
    assert [f.name for f in module.functions] == ["twice", "twice_via", "add", "twice_via__ew16", "twice__ew16"]
    assert next(f for f in module.functions if f.name == "add").loc.line == 6
    bad = TWO_KERNELS.replace("twice_via(*(X + r))", "twice_via(*(X + q))")
    with pytest.raises(CompileError) as info:
        frontend(bad, "k.tri", CompileOptions(kernel="add"), SourceManager(), diag)
    assert (info.value.message, info.value.loc.line, info.value.loc.col) == ("use of undeclared identifier 'q'", 8, 30)


def test_skipped_functions_need_balanced_braces_only():
    src = TWO_KERNELS + """
__global__ void junk(NOT A TYPE ***) {
  struct S { "strings", 'c', goto ; } ( [ ;
}
"""
    assert names(parse(src, "k.tri", kernel="add")) == ["BLOCK", "twice", "twice_via", "add"]


def test_unbalanced_braces_elsewhere_are_reported_by_the_parser():
    src = TWO_KERNELS + "__global__ void junk(float *X) {\n  {\n}\n"
    with pytest.raises(CompileError) as info:
        parse(src, "k.tri", kernel="add")
    assert info.value.message == "expected '}' at end of input: this function body's '{' is never closed"
    assert (info.value.loc.line, info.value.loc.col) == (14, 32)


def test_file_scope_declarations_are_still_checked():
    src = TWO_KERNELS.replace("{16, 32}", "{16, 3 2}")
    with pytest.raises(CompileError) as info:
        parse(src, "k.tri", kernel="add")
    assert info.value.loc.line == 2


def test_a_called_kernel_is_kept_so_the_call_is_the_error():
    src = """
__global__ void helper(float *X) { }
__global__ void k(float *X) { helper(X); }
"""
    with pytest.raises(CompileError) as info:
        compile_module_kernel(src, "k")
    assert info.value.message == "cannot call kernel 'helper'; only '__device__' functions can be called"


def compile_module_kernel(src, kernel):
    return frontend(src, "k.tri", CompileOptions(kernel=kernel), SourceManager(), DiagnosticSink())


@pytest.mark.parametrize("kernel", ["nope", "twice"])
def test_unknown_kernel_lists_the_kernels(kernel):
    with pytest.raises(CompileError) as info:
        parse(TWO_KERNELS, "k.tri", kernel=kernel)
    assert info.value.message == f"no kernel named '{kernel}' in this file (kernels: add, other)"
    assert info.value.loc is None


def test_paper_kernel_keyword_and_qualifiers_are_recognised():
    src = """
kernel void first(float *X) { *X = 1.0f; }
void second(TYPE *X) { *X = 2; }
__device__ int idx(int i) { return i; }
__global__ void third(float *X) { *(X + idx(1)) = 3.0f; }
"""
    assert names(parse(src, "k.tri", kernel="first")) == ["first"]
    assert names(parse(src, "k.tri", kernel="third")) == ["idx", "third"]


def test_without_kernel_option_everything_is_kept():
    module = compile_module(TWO_KERNELS.split("__global__ void other")[0].replace(
        "__device__ TYPE unused(TYPE v) { return v; }\n", ""))
    assert [f.name for f in module.functions] == ["twice", "twice_via", "add", "twice_via__ew16", "twice__ew16"]
