"""Context of a diagnostic, gcc- and clang-style: "In file included from" lines before an error
or warning in an #include'd file, and a note "expanded from macro 'NAME'" after one located at
a macro invocation, pointing into the macro's body."""
from __future__ import annotations

import pytest

from cli_helpers import assert_clean, quoted, tritonc
from tritonc.diagnostics import Diagnostic, SourceLoc, SourceManager


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def failed(*args):
    run = tritonc(*args, "--emit=ttir", "-o", "out.ttir")
    assert_clean(run)
    assert run.status == 1, run.output
    return run.err_lines


# ----------------------------------------------------------------------------- include stack

def test_error_in_a_nested_include(in_tmp):
    (in_tmp / "inc").mkdir()
    (in_tmp / "top.tri").write_text('// kernels\n#include "b.h"\n__global__ void k(float *p) { *p = twice(*p); }\n')
    (in_tmp / "inc" / "b.h").write_text('\n\n#include "c.h"\n')
    (in_tmp / "inc" / "c.h").write_text("__device__ float twice(float x) {\n  return x * 2\n}\n")
    lines = failed("top.tri", "-I", "inc")
    assert lines == ["In file included from inc/b.h:3,",
                     "                 from top.tri:2:",
                     "inc/c.h:2:15: error: expected ';' before '}'",
                     *quoted(in_tmp / "inc" / "c.h", 2, 15)]


def test_warning_in_an_include_has_the_stack_too(in_tmp):
    (in_tmp / "w.h").write_text('#warning "old header"\n')
    (in_tmp / "k.tri").write_text('#include "w.h"\n__global__ void k(float *p) { *p = 1.0f; }\n')
    run = tritonc("k.tri", "--emit=ttir", "-o", "out.ttir")
    assert run.status == 0
    assert run.err_lines == ["In file included from k.tri:1:", 'w.h:1:2: warning: #warning "old header" [-Wcpp]',
                             *quoted(in_tmp / "w.h", 1, 2)]


def test_error_in_the_main_file_after_an_include_has_no_stack(in_tmp):
    (in_tmp / "ok.h").write_text("#define N 4\n")
    (in_tmp / "k.tri").write_text('#include "ok.h"\n__global__ void k(float *p) { *p = nothing; }\n')
    assert failed("k.tri")[0] == "k.tri:2:36: error: use of undeclared identifier 'nothing'"


def test_header_included_twice_keeps_its_first_site(in_tmp):
    (in_tmp / "g.h").write_text("#ifndef G_H\n#define G_H\n__device__ float g(float x) { return y; }\n#endif\n")
    (in_tmp / "a.h").write_text('#include "g.h"\n')
    (in_tmp / "k.tri").write_text('#include "g.h"\n#include "a.h"\n__global__ void k(float *p) { *p = g(*p); }\n')
    lines = failed("k.tri")
    assert lines[:2] == ["In file included from k.tri:1:", "g.h:3:38: error: use of undeclared identifier 'y'"]


def test_include_stack_unit():
    sources = SourceManager()
    sources.register("m.tri", "#include \"a.h\"\n")
    sources.register("a.h", "\n#include \"b.h\"\n")
    sources.register("b.h", "int\n")
    sources.register_include("a.h", SourceLoc("m.tri", 1, 10))
    sources.register_include("b.h", SourceLoc("a.h", 2, 10))
    sources.register_include("b.h", SourceLoc("m.tri", 9, 1))  # a later site does not replace the first
    assert sources.include_stack("b.h") == [SourceLoc("a.h", 2, 10), SourceLoc("m.tri", 1, 10)]
    assert sources.include_stack("m.tri") == []
    text = sources.render(Diagnostic("error", "bad", SourceLoc("b.h", 1, 1)))
    assert text.splitlines()[:3] == ["In file included from a.h:2,", "                 from m.tri:1:",
                                     "b.h:1:1: error: bad"]
    note = sources.render(Diagnostic("note", "here", SourceLoc("b.h", 1, 1)))  # notes carry no stack
    assert note.splitlines()[0] == "b.h:1:1: note: here"


# ----------------------------------------------------------------------------- macro expansions

def test_function_like_macro_note(in_tmp):
    (in_tmp / "k.tri").write_text(
        "#define SCALE(v) ((v) * undefined_y)\n__global__ void k(float *p) {\n  *p = SCALE(*p);\n}\n")
    assert failed("k.tri") == [
        "k.tri:3:8: error: use of undeclared identifier 'undefined_y'", *quoted(in_tmp / "k.tri", 3, 8),
        "k.tri:1:25: note: expanded from macro 'SCALE'", *quoted(in_tmp / "k.tri", 1, 25)]


def test_macro_defined_in_a_header_points_into_the_header(in_tmp):
    (in_tmp / "m.h").write_text("// helpers\n#define BAD_TILE float t[8] = 0 ... 8 + oops\n")
    (in_tmp / "k.tri").write_text('#include "m.h"\n__global__ void k(float *p) {\n    BAD_TILE;\n}\n')
    lines = failed("k.tri")
    assert lines[0] == "k.tri:3:5: error: use of undeclared identifier 'oops'"
    assert lines[3:] == ["m.h:2:41: note: expanded from macro 'BAD_TILE'", *quoted(in_tmp / "m.h", 2, 41)]


def test_nested_macros_note_the_innermost_body(in_tmp):
    (in_tmp / "k.tri").write_text("#define INNER(v) (v + missing_z)\n#define OUTER(v) INNER(v)\n"
                                  "__global__ void k(float *p) { *p = OUTER(*p); }\n")
    lines = failed("k.tri")
    assert lines[0] == "k.tri:3:36: error: use of undeclared identifier 'missing_z'"
    assert lines[3:] == ["k.tri:1:23: note: expanded from macro 'INNER'", *quoted(in_tmp / "k.tri", 1, 23)]


def test_no_note_for_command_line_macros_or_arguments(in_tmp):
    (in_tmp / "k.tri").write_text("#define ID(v) v\n__global__ void k(float *p) { *p = ID(gone) + BAD; }\n")
    lines = failed("k.tri", "-D", "BAD=gone2")
    assert lines == ["k.tri:2:39: error: use of undeclared identifier 'gone'", *quoted(in_tmp / "k.tri", 2, 39)]
    (in_tmp / "k.tri").write_text("__global__ void k(float *p) { *p = BAD; }\n")
    lines = failed("k.tri", "-D", "BAD=gone2")
    assert lines == ["k.tri:1:36: error: use of undeclared identifier 'gone2'", *quoted(in_tmp / "k.tri", 1, 36)]


def test_warning_from_a_macro_has_the_note(in_tmp):
    (in_tmp / "k.tri").write_text("#define HALF_OF(x) (x * 0.5)\n__global__ void k(float *p) {\n"
                                  "  float t[16] = 1.0f;\n  *(p + 0 ... 16) = HALF_OF(t);\n}\n")
    run = tritonc("k.tri", "--emit=ttir", "-o", "out.ttir")
    assert run.status == 0, run.output
    lines = run.err_lines
    assert lines[0].startswith("k.tri:4:21: warning: unsuffixed literal '0.5'")
    assert lines[3:] == ["k.tri:1:25: note: expanded from macro 'HALF_OF'", *quoted(in_tmp / "k.tri", 1, 25)]
