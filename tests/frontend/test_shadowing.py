"""Shadowing (spec section 2): a local may reuse a parameter's name, even in the function's
outermost block, or an enclosing block's variable; from there on the name means the new
variable, and the compiler warns (-Wshadow). Also the named-warning flags (-W<name>/-Wno-<name>)."""
import numpy as np
import pytest

from fe_helpers import compile_module, error_of, run, warnings_of
from tritonc.diagnostics import WARNING_FLAGS, CompileError, DiagnosticSink, parse_warning_flags

PAPER_MATMUL = """
void matmul(restrict read_only fp32 *a, fp32 *c, int n) {
  int r[16] = 0 ... 16;
  fp32 *pa[16] = a + r;
  fp32 a[16] = *pa;
  *(c + r) = a * 2.0f + n;
}"""


def test_parameter_redeclared_in_the_outermost_block_is_a_warning():
    assert warnings_of(PAPER_MATMUL) == [
        "5:8: declaration of 'a' shadows a parameter; from here on 'a' means the new variable [-Wshadow]"]


def test_after_the_redeclaration_the_name_means_the_new_variable():
    x = np.arange(16, dtype=np.float32)
    c = np.zeros(16, np.float32)
    run(PAPER_MATMUL, "matmul", 1, x, c, 3)
    np.testing.assert_array_equal(c, x * 2 + 3)


def test_the_initializer_still_sees_the_parameter():
    src = """
void k(int *p, int n) {
  int n = n + 1;
  *p = n;
}"""
    p = np.zeros(1, np.int32)
    run(src, "k", 1, p, 41)
    assert p[0] == 42


def test_the_shadow_note_points_at_the_parameter():
    diag = DiagnosticSink()
    compile_module(PAPER_MATMUL, diag=diag)
    (w,) = diag.warnings
    assert [(n.message, n.loc.line, n.loc.col) for n in w.notes] == [("shadowed declaration is here", 2, 38)]


def test_inner_block_shadowing_warns_and_ends_with_the_block():
    src = """
void k(int *p) {
  int v = 1;
  for (int i = 0; i < 1; i++) {
    int v = 10;
    *(p + 1) = v;
  }
  *p = v;
}"""
    assert warnings_of(src) == ["5:9: declaration of 'v' shadows a variable of an enclosing block [-Wshadow]"]
    p = np.zeros(2, np.int32)
    run(src, "k", 1, p)
    assert p.tolist() == [1, 10]


def test_no_warning_without_shadowing_and_none_for_tunables():
    assert warnings_of("""
const tunable int TM = {16};
void k(int *p) {
  { int a = 1; *p = a; }
  { int a = 2; *(p + 1) = a; }
}""") == []


def test_no_shadow_warning_when_disabled():
    diag = DiagnosticSink(disabled=frozenset({"shadow"}))
    compile_module(PAPER_MATMUL, diag=diag)
    assert diag.warnings == []


def test_werror_makes_shadowing_an_error():
    with pytest.raises(CompileError) as info:
        compile_module(PAPER_MATMUL, diag=DiagnosticSink(werror=True))
    assert (info.value.loc.line, info.value.loc.col) == (5, 8)
    assert info.value.diagnostic.notes[0].message == "shadowed declaration is here"


def test_a_second_declaration_in_one_block_is_still_a_redefinition():
    err = error_of("void k(int n) {\n  int n = 2;\n  float n = 3;\n}\n")
    assert (err.message, err.loc.line, err.loc.col) == ("redefinition of 'n'", 3, 9)
    err = error_of("void k(int n, float n) {\n}\n")
    assert err.message == "redefinition of 'n'"


@pytest.mark.parametrize("flags, off, werror", [
    ([], set(), False),
    (["no-shadow"], {"shadow"}, False),
    (["no-shadow", "shadow"], set(), False),
    (["shadow", "no-shadow", "no-double-promotion"], {"shadow", "double-promotion"}, False),
    (["error"], set(), True),
    (["error", "no-error"], set(), False),
])
def test_warning_flags_last_one_wins(flags, off, werror):
    assert parse_warning_flags(flags) == (frozenset(off), werror)


@pytest.mark.parametrize("flag", ["foo", "no-foo", "no-", ""])
def test_unknown_warning_flag_is_an_error(flag):
    with pytest.raises(ValueError, match=f"unknown warning flag '-W{flag}'"):
        parse_warning_flags([flag])


def test_every_warning_the_frontend_emits_is_a_known_flag():
    assert {"double-promotion", "return-type", "shadow", "cpp"} <= set(WARNING_FLAGS)
