"""Syntax-level errors: each names the problem and points at the exact file, line and column."""
import pytest

from tritonc.diagnostics import CompileError, SourceLoc, SourceManager
from tritonc.frontend.parser import parse


def error_of(src, path="err.tri", **kw):
    with pytest.raises(CompileError) as info:
        parse(src, path, **kw)
    return info.value


@pytest.mark.parametrize("src, message, line, col", [
    # missing punctuation
    # a missing ';' is reported just after the token it should follow (gcc, clang)
    ("void f() {\n  int x = 1\n  int y = 2;\n}\n", "expected ';' before 'int'", 2, 12),
    ("void f() {\n  int x = 1 int y = 2;\n}\n", "expected ';' before 'int'", 2, 12),
    ("void f() {\n  int x = 1\n\n  // comment\n  int y = 2;\n}\n", "expected ';' before 'int'", 2, 12),
    ("void f(int *p) {\n  *p = 1.5f\n}\n", "expected ';' before '}'", 2, 12),
    ("void f() {\n  return\n}\n", "expected ';' before '}'", 2, 9),
    ("void f() {\n  x = ;\n}\n", "expected expression before ';'", 2, 7),
    ("void f(int a) {\n  if (a > 0 {\n  }\n}\n", "expected ')' before '{'", 2, 13),
    ("void f() {\n  g(a b);\n}\n", "expected ')' before 'b'", 2, 7),
    ("void f() {\n  y = a ? b c;\n}\n", "expected ':' before 'c'", 2, 13),
    ("void f() {\n  int x[16 0];\n}\n", "expected ']' before '0'", 2, 12),
    ("void f() {\n  int x = 1;\n\n", "expected '}' at end of input", 2, 13),
    ("void f() {\n  if x > 0) return;\n}\n", "expected '(' before 'x'", 2, 6),
    ("void f() {\n  else x = 1;\n}\n", "expected expression before 'else'", 2, 3),
    ("void f() {\n  int while = 1;\n}\n", "expected identifier before 'while'", 2, 7),
    ("foo bar;\n", "expected a type name before 'foo'", 1, 1),
    ("void f(int a, 3) {}\n", "expected a type name before '3'", 1, 15),
    ("void f() {\n  int x = 1 $ 2;\n}\n", "stray '$' in program", 2, 13),
    ("void f() {\n  int x = 1 \0 2;\n}\n", "stray '\\0' in program", 2, 13),
    ("void f() {\n  int x = 1 \x7f 2;\n}\n", "stray '\\x7f' in program", 2, 13),
    ("void f() {\n  int x = 1 \u200b 2;\n}\n", "stray '\\u200b' in program", 2, 13),
    ("void f() {\n  int x = 1 \u2192 2;\n}\n", "stray '\u2192' in program", 2, 13),
    # constructs outside Triton-C
    ("void f() {\n  float x[16][8];\n}\n",
     "C arrays of arrays are not tiles: write 'float x[16, 8]' instead of 'float x[16][8]'", 2, 14),
    ("\nstruct S { int a; };\n", "'struct' types are not supported in Triton-C", 2, 1),
    # constant-memory tables of the paper-era shift convolution: what is unsupported, what to write
    ("void shift(int *X) {\n  __constant__ int* delta = alloc_const int[16];\n}\n",
     "constant-memory tables ('__constant__') are not supported in Triton-C; keep the table in a global "
     "array and pass it to the kernel as a pointer argument (e.g. 'int *delta __readonly', then "
     "'*(delta + i)')", 2, 3),
    ("void shift(int *X) {\n  int* delta = alloc_const int[16];\n}\n",
     "'alloc_const' (a constant-memory table) is not supported in Triton-C; keep the table in a global "
     "array and pass it to the kernel as a pointer argument (e.g. 'int *delta __readonly', then "
     "'*(delta + i)')", 2, 16),
    ("union U { int a; };\n", "'union' types are not supported in Triton-C", 1, 1),
    ("enum E { A };\n", "'enum' types are not supported in Triton-C; use macros for constants", 1, 1),
    ("typedef int T;\n", "'typedef' is not supported in Triton-C; use a macro (#define NAME type)", 1, 1),
    ("void f() {\n  goto out;\n}\n", "'goto' is not supported in Triton-C", 2, 3),
    ("void f(int a) {\n  switch (a) { }\n}\n", "'switch' is not supported in Triton-C; use if/else", 2, 3),
    ("void f() {\n    asm(\"nop\");\n}\n", "inline assembly ('asm') is not supported in Triton-C", 2, 5),
    ("void f(void (*g)(int)) {\n}\n", "function pointers are not supported in Triton-C", 1, 13),
    ("void f() {\n  int (*g)(int);\n}\n", "function pointers are not supported in Triton-C", 2, 7),
    ("void f() {\n  int x = \"a\";\n}\n", "string literals are not supported in Triton-C", 2, 11),
    ("int x = 3;\n", "variable 'x' cannot be declared at file scope; use a macro or 'const tunable'", 1, 5),
    ("void f(int x[16]) {\n  int y = x[3];\n}\n",
     "a subscript reshapes, broadcasts, reduces or permutes a tile and never indexes it: "
     "each entry must be ':', 'newaxis', '+', 'max', 'min' or '^k'", 2, 13),
    ("void f() {\n  y = x[:, ^k];\n}\n", "a permutation entry must be '^' followed by an integer literal", 2, 13),
    # bad words and literals
    ("void f() {\n  unsigned float x;\n}\n", "invalid type 'unsigned float'", 2, 3),
    ("void f() {\n  long short x;\n}\n", "invalid type 'long short'", 2, 3),
    ("void f() {\n  int x = 09;\n}\n", "invalid digit '9' in octal constant", 2, 11),
    ("void f() {\n  int x = 1uu;\n}\n", "invalid suffix 'uu' on integer constant", 2, 11),
    ("void f() {\n  double x = 1.0L;\n}\n", "'long double' literals are not supported: '1.0L'", 2, 14),
    ("void f(int) {\n}\n", "parameter name omitted", 1, 8),
    ("void f(int *p __attribute__((foo))) {\n}\n", "unknown attribute 'foo'", 1, 30),
    ("void f(int *p __attribute__((aligned))) {\n}\n", "attribute 'aligned' needs an argument", 1, 30),
])
def test_syntax_errors(src, message, line, col):
    err = error_of(src)
    assert err.message == message
    assert err.loc == SourceLoc("err.tri", line, col)


def test_error_inside_macro_expansion_points_at_the_invocation():
    err = error_of("#define BAD 1 +\nvoid f() {\n  int x =   BAD;\n}\n")
    assert (err.message, err.loc) == ("expected expression before ';'", SourceLoc("err.tri", 3, 16))
    err = error_of("#define DECL int x\nvoid f() {\n    DECL y;\n}\n")
    assert (err.message, err.loc) == ("expected ';' before 'y'", SourceLoc("err.tri", 3, 9))


def test_missing_semicolon_after_a_macro_invocation_points_past_the_invocation():
    """The token before the missing ';' came from a macro: the caret goes just past the whole
    invocation, its arguments and ')' included (clang's "expansion range")."""
    err = error_of("#define F(a, b) ((a) + (b))\nvoid f() {\n  int x = F(1,\n            2)\n  int y;\n}\n")
    assert (err.message, err.loc) == ("expected ';' before 'int'", SourceLoc("err.tri", 4, 15))
    err = error_of("#define ID(a) a\nvoid f() {\n  int x = ID(  7  )\n}\n")
    assert err.loc == SourceLoc("err.tri", 3, 20)
    err = error_of("void f() {\n  int x = N\n}\n", defines={"N": "1 + 2"})
    assert err.loc == SourceLoc("err.tri", 2, 12)


def test_error_from_command_line_macro_points_at_its_use():
    err = error_of("void f() {\n  float x[TM, TN] = 0;\n}\n", defines={"TM": "16", "TN": "8 9"})
    assert (err.message, err.loc) == ("expected ']' before '9'", SourceLoc("err.tri", 2, 15))


def test_syntax_error_inside_included_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "helpers.h").write_text(
        "// helpers\n__device__ float twice(float x) {\n  return x * 2\n}\n")
    sources = SourceManager()
    err = error_of('#include "helpers.h"\nvoid k(float *X) { *X = twice(*X); }\n',
                   path="main.tri", include_dirs=["include"], sources=sources)
    assert err.message == "expected ';' before '}'"
    assert err.loc == SourceLoc("include/helpers.h", 3, 15)
    assert sources.render(err.diagnostic).splitlines() == [
        "In file included from main.tri:1:",
        "include/helpers.h:3:15: error: expected ';' before '}'", "      return x * 2", "                  ^"]


def test_error_after_include_points_back_into_main_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.h").write_text("#define TM 64\n\n\n\n")
    err = error_of('#include "ok.h"\nvoid f() {\n  int x[TM] = 0 ... TM\n}\n', path="main.tri")
    assert err.loc == SourceLoc("main.tri", 3, 23)


@pytest.mark.parametrize("body, message, line, col", [
    ("{" * 200 + "}" * 200, "nesting too deep: more than 200 levels of nested blocks, statements and '?:'", 2, 200),
    ("while (1) " * 150 + "for (;;) {" * 50 + "}" * 50,
     "nesting too deep: more than 200 levels of nested blocks, statements and '?:'", 2, 1501 + 24 * 10 + 9),
    ("x = " + "x ? " * 200 + "1" + " : 2" * 200 + ";",
     "nesting too deep: more than 200 levels of nested blocks, statements and '?:'", 2, 5 + 199 * 4),
    ("x = " + "-".join(["x"] * 1000) + ";",
     "nesting too deep: more than 1000 levels of nesting in one expression", 2, 5),
    ("x = " + "(" * 1100 + "1" + ")" * 1100 + ";", None, 0, 0),  # parentheses add no level
    ("{" * 198 + "x = " + "+".join(["x"] * 998) + ";" + "}" * 198, None, 0, 0),  # both limits, not past them
])
def test_nesting_limits(body, message, line, col):
    """The function body is level 1 of statement nesting; the error points at the first construct
    past the limit."""
    src = "void f(int x) {\n" + body + "\n}\n"
    if message is None:
        parse(src, "deep.tri")
        return
    err = error_of(src)
    assert err.message == message
    assert err.loc == SourceLoc("err.tri", line, col)


def test_render_with_caret_on_the_user_line():
    sources = SourceManager()
    with pytest.raises(CompileError) as info:
        parse("void f() {\n\tint y = x[1];\n}\n", "tab.tri", sources=sources)
    assert sources.render(info.value.diagnostic).splitlines()[1:] == ["     int y = x[1];", "               ^"]


def test_render_shows_control_characters_as_pictures():
    """A NUL or ESC in the quoted line would garble the terminal: each is shown as one printable
    column (U+2400 + code), so the caret still lines up."""
    sources = SourceManager()
    with pytest.raises(CompileError) as info:
        parse("void f() {\n  int y = x\0; \x1b\n}\n", "ctl.tri", sources=sources)
    assert sources.render(info.value.diagnostic).splitlines() == [
        "ctl.tri:2:12: error: stray '\\0' in program", "      int y = x\u2400; \u241b", "               ^"]
