"""Preprocessor: macros, conditionals, includes, -D, and exact positions of every token."""
import pytest

from tritonc.diagnostics import CompileError, DiagnosticSink, SourceLoc, SourceManager
from tritonc.frontend.preprocess import preprocess


def tokens(text, **kw):
    """(value, line, col, file) of every output token."""
    pre = preprocess(text, "main.tri", **kw)
    return [(t.value, t.loc.line, t.loc.col, t.loc.file) for t in pre.tokens]


def find(toks, value, nth=0):
    matches = [t for t in toks if t[0] == value]
    return matches[nth]


def test_plain_tokens_keep_line_and_column():
    toks = tokens("/* a\n multi */ int x = 1;\n\n  float\ty;\n")
    assert find(toks, "int")[1:3] == (2, 11)
    assert find(toks, "x")[1:3] == (2, 15)
    assert find(toks, "float")[1:3] == (4, 3)
    assert find(toks, "y")[1:3] == (4, 9)          # a tab counts as one column


def test_crlf_and_trailing_whitespace_do_not_shift_columns():
    toks = tokens("int a;   \r\nint b;\t \r\n  int c;\r\n")
    assert find(toks, "b")[1:3] == (2, 5)
    assert find(toks, "c")[1:3] == (3, 7)


def test_object_macro_tokens_point_at_the_invocation():
    toks = tokens("#define TM 128\nint x = TM + y;\n")
    assert find(toks, "128")[1:3] == (2, 9)
    assert find(toks, "+")[1:3] == (2, 12)          # text after the expansion keeps its column
    assert find(toks, "y")[1:3] == (2, 14)


def test_function_macro_arguments_keep_their_spelling_location():
    toks = tokens("#define F(a, b) ((a) + b)\n  y = F(x,\n     z) * 2;\n")
    assert find(toks, "(")[1:3] == (2, 7)           # from the body: the invocation
    assert find(toks, "x")[1:3] == (2, 9)           # argument: where it is written
    assert find(toks, "z")[1:3] == (3, 6)
    assert find(toks, "*")[1:3] == (3, 9)


def test_prelude_infinity_expands_without_shifting_lines():
    pre = preprocess("x = -F32_INFINITY;\ny = F16_INFINITY;\n", "main.tri")
    assert "bitcast<float>(0x7F800000)" in pre.text
    assert "bitcast<half>((int16)0x7C00)" in pre.text
    bitcasts = [t for t in pre.tokens if t.value == "bitcast"]
    assert [(t.loc.line, t.loc.col) for t in bitcasts] == [(1, 6), (2, 5)]


def test_adjacent_pieces_stay_glued_and_expansions_do_not_paste():
    pre = preprocess("#define NEG -x\na = 1.5f + 2e-3 - NEG; b = 0...8;\n", "main.tri")
    assert "1.5f" in pre.text and "2e-3" in pre.text and "0...8" in pre.text
    assert "- -x" in pre.text                       # never '--x'


def test_stringize_and_paste():
    pre = preprocess('#define STR(x) #x\n#define NAME(x) kernel_##x\nNAME(add) STR(a b)\n', "main.tri")
    assert "kernel_add" in pre.text
    assert '"a b"' in pre.text


def test_if_arithmetic_elif_else_and_defined():
    src = ("#if TM * TN >= 64 * 64 && defined(SPLIT)\nbig\n"
           "#elif TM > 16\nmedium\n#else\nsmall\n#endif\n")
    assert preprocess(src, "m.tri", {"TM": "128", "TN": "64", "SPLIT": None}).text.strip() == "big"
    assert preprocess(src, "m.tri", {"TM": "32", "TN": "64"}).text.strip() == "medium"
    assert preprocess(src, "m.tri", {"TM": "8", "TN": "8"}).text.strip() == "small"


def test_true_false_in_if():
    assert preprocess("#if true && !false\nyes\n#endif\n", "m.tri").text.strip() == "yes"


def test_command_line_defines_with_commas_and_bare_names():
    pre = preprocess("#ifdef FLAG\nx[RED];\n#endif\n", "m.tri", {"FLAG": None, "RED": "+,:"})
    assert pre.text.replace(" ", "") == "x[+,:];"
    red = [t for t in pre.tokens if t.value in "+,:"]
    assert {(t.loc.line, t.loc.col) for t in red} == {(2, 3)}


def test_function_like_command_line_define():
    pre = preprocess("y = SQ(a);\n", "m.tri", {"SQ(x)": "((x)*(x))"})
    assert pre.text.replace(" ", "") == "y=((a)*(a));"


def test_include_with_search_path_positions_point_into_the_header(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "defs.h").write_text("#define TM 64\n\nint from_header;\n")
    sources = SourceManager()
    pre = preprocess('#include "defs.h"\nint x[TM];\n', "main.tri", include_dirs=["inc"], sources=sources)
    locs = {t.value: t.loc for t in pre.tokens}
    assert locs["from_header"] == SourceLoc("inc/defs.h", 3, 5)
    assert locs["64"] == SourceLoc("main.tri", 2, 7)
    assert sources.line("inc/defs.h", 3) == "int from_header;"


def test_quoted_include_is_found_next_to_the_including_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.h").write_text("int a;\n")
    pre = preprocess('#include "a.h"\n', "src/main.tri")
    assert pre.tokens[1].loc == SourceLoc("src/a.h", 1, 5)


def test_tunable_name_is_not_expanded_and_override_is_reported():
    src = "const tunable int TM = {64, 128};\nint x[TM];\n"
    pre = preprocess(src, "m.tri", {"TM": "128"})
    assert pre.text.startswith("const tunable int TM = {64, 128};")
    assert "x[128]" in pre.text.replace(" ", "")
    assert pre.tunable_overrides == {"TM": "128"}
    assert preprocess(src, "m.tri").tunable_overrides == {}


def test_sources_registered_for_carets():
    sources = SourceManager()
    preprocess("int a;\nint b;\n", "k.tri", sources=sources)
    assert sources.line("k.tri", 2) == "int b;"


@pytest.mark.parametrize("src, message, line, col", [
    ("#if 1\n  #error bad config\n#endif\n", "#error bad config", 2, 4),
    ('\n#include "nope.h"\n', "'nope.h' file not found", 2, 10),  # at the file name, as in clang and gcc
    ("\n#  include <nope.h>\n", "'nope.h' file not found", 2, 12),
    ("#define H(x) x\n#include H(\"nope.h\")\n", "'nope.h' file not found", 2, 12),  # a macro argument
    ("int a;\n/* never\nclosed\n", "unterminated /* comment", 2, 1),
    ("#if 1\n#elif F(2)\n#endif\n#if 0\n#elif 1 + G(3)\n#endif\n", "function-like macro 'G' is not defined", 5, 11),
    ("int a;\n#frobnicate\n", "invalid preprocessing directive '#frobnicate'", 2, 2),
    ("#if 1\nint a;\n", "unterminated conditional directive '#if 1'", 1, 2),
    ("#if 1 +\n#endif\n", "invalid expression in #if: '1 +'", 1, 2),
    ("#define F(a, b) a + b\nint x =\n   F(1);\n", "macro 'F' requires 2 arguments but was passed 1", 3, 4),
])
def test_preprocessor_errors_are_located(src, message, line, col):
    with pytest.raises(CompileError) as info:
        preprocess(src, "pp.tri")
    assert info.value.message == message
    assert info.value.loc == SourceLoc("pp.tri", line, col)


def test_error_directive_inside_included_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.h").write_text("\n\n#error from header\n")
    with pytest.raises(CompileError) as info:
        preprocess('#include "bad.h"\n', "main.tri")
    assert info.value.loc == SourceLoc("bad.h", 3, 2)


def test_bad_define_name_is_a_usage_error():
    with pytest.raises(CompileError) as info:
        preprocess("", "m.tri", {"1X": "2"})
    assert info.value.loc is None
    assert "invalid macro name '1X'" in info.value.message


def test_lines_after_a_continued_macro_definition_are_exact():
    toks = tokens("#define G(a) \\\n   a + \\\n   1\nint z = G(q);\n  w;\nx = a +\\\n  b;\n")
    assert find(toks, "q")[1:3] == (4, 11)
    assert find(toks, "1")[1:3] == (4, 9)
    assert find(toks, "w")[1:3] == (5, 3)
    assert find(toks, "b")[1:3] == (7, 3)


def test_warning_directive_goes_to_the_sink():
    sink = DiagnosticSink()
    preprocess("int a;\n#warning check TM\n", "w.tri", sink=sink)
    (warning,) = sink.warnings
    assert (warning.message, warning.loc) == ("#warning check TM [-Wcpp]", SourceLoc("w.tri", 2, 2))


def test_pragmas_are_ignored():
    assert preprocess("#pragma unroll\n#pragma\nint a;\n", "p.tri").text == "int a;"


@pytest.mark.parametrize("src, message", [
    ("#ifdef\n#endif\n", "#ifdef needs an argument"),
    ("#define\n", "#define needs an argument"),
    ("#else\n", "misplaced #else"),
    ("#endif\n", "misplaced #endif"),
    ("#line 3\n", "'#line' directives are not supported"),
    ("#define F(1) a\n", "invalid macro argument"),
])
def test_malformed_directives(src, message):
    with pytest.raises(CompileError) as info:
        preprocess(src, "d.tri")
    assert (info.value.message, info.value.loc) == (message, SourceLoc("d.tri", 1, 2))


def test_malformed_include_points_at_what_follows_it():
    with pytest.raises(CompileError) as info:
        preprocess("#include FOO\n", "d.tri")
    assert info.value.message == "malformed #include: expected \"FILE\" or <FILE>, got 'FOO'"
    assert info.value.loc == SourceLoc("d.tri", 1, 10)


def test_comment_start_inside_a_line_comment_or_a_closed_comment_is_not_unterminated():
    assert preprocess("int a; // not a /* comment\nint b; /* a /* */ int c;\n", "c.tri").text == "int a;\nint b; int c;"
    assert preprocess('int a = "/*";\n', "s.tri").text == 'int a = "/*";'  # the parser rejects the string


def test_file_including_itself_stops_at_the_include_depth_limit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "self.h").write_text('#pragma once_not_supported\n#include "self.h"\n')
    with pytest.raises(CompileError) as info:
        preprocess('#include "self.h"\n', "main.tri")
    assert info.value.message == "#include nested too deeply (more than 200 levels)"
    assert info.value.loc == SourceLoc("self.h", 2, 10)
