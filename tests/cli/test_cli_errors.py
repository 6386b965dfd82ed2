"""Bad input through the real ``tritonc`` entry point.

Every program error prints ``file:line:col: error: message``, the source line and a caret
under the column, exits with status 1, shows no Python traceback and writes no output file.
Bad usage exits with status 2 and click's message; warnings follow -W flags.
"""
from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli_helpers import EXAMPLES_DIR, assert_clean, leftovers, quoted, tritonc, tritonc_process
from tritonc import cli

HEADER = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: ")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@dataclass(frozen=True)
class Bad:
    """A program that must be rejected: ``error`` is the exact first line tritonc prints."""

    intent: str
    source: str
    error: str
    args: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)  # more files next to bad.tri (headers)
    notes: int = 0  # diagnostics of severity "note" that follow, each with its own quote
    included_from: tuple[str, ...] = ()  # the "In file included from" lines before the error


def case(name: str, bad: Bad, *marks) -> pytest.param:
    return pytest.param(bad, id=name, marks=marks)


CASES = [
    # --- syntax ------------------------------------------------------------------------------
    case("syntax-missing-semicolon", Bad(
        "a missing ';' is reported just after the token it should follow",
        src("""
            void k(int *p) {
              int x = 1
              int y = 2;
            }
        """),
        "bad.tri:2:12: error: expected ';' before 'int'")),
    case("syntax-unclosed-paren", Bad(
        "an unclosed '(' in a condition",
        src("""
            void k(int *p) {
              if (*p > 0 {
              }
            }
        """),
        "bad.tri:2:14: error: expected ')' before '{'")),
    # --- names -------------------------------------------------------------------------------
    case("undeclared-name", Bad(
        "a name that was never declared",
        src("""
            void k(int *p) {
              int y = x + 1;
            }
        """),
        "bad.tri:2:11: error: use of undeclared identifier 'x'")),
    # --- tile shapes -------------------------------------------------------------------------
    case("broadcast-mismatch", Bad(
        "broadcasting [64, 32] with [16] fails (NumPy rules)",
        src("""
            void k(int *p) {
              int a[64, 32] = 0;
              int b[16] = 0;
              int c[64, 32] = a + b;
            }
        """),
        "bad.tri:4:21: error: cannot broadcast shapes [64, 32] and [16]")),
    case("tile-dim-not-power-of-two", Bad(
        "every tile dimension must be a power of two",
        src("""
            void k(float *p) {
              float x[48] = 0;
            }
        """),
        "bad.tri:2:11: error: tile dimension 48 is not a power of two")),
    case("tile-dim-from-D-not-power-of-two", Bad(
        "a -D macro that makes a dimension 48 is reported where the macro is used",
        src("""
            void k(float *p) {
              float t[BLOCK] = 0;
            }
        """),
        "bad.tri:2:11: error: tile dimension 48 is not a power of two", args=("-D", "BLOCK=48"))),
    # --- control flow on tiles ---------------------------------------------------------------
    case("tile-if-condition", Bad(
        "a tile as an 'if' condition suggests a mask",
        src("""
            void k(int *p) {
              int x[16] = 0 ... 16;
              if (x > 3) x = 0;
            }
        """),
        "bad.tri:3:9: error: tile condition in 'if'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')")),
    case("tile-while-condition", Bad(
        "a tile as a 'while' condition suggests a mask",
        src("""
            void k(int *p) {
              int x[16] = 0 ... 16;
              while (x < 3) x += 1;
            }
        """),
        "bad.tri:3:12: error: tile condition in 'while'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')")),
    # --- subscripts --------------------------------------------------------------------------
    case("index-a-tile", Bad(
        "a subscript never indexes a tile element",
        src("""
            void k(int *p) {
              int x[16] = 0 ... 16;
              int y = x[3];
            }
        """),
        "bad.tri:3:13: error: a subscript reshapes, broadcasts, reduces or permutes a tile and never "
        "indexes it: each entry must be ':', 'newaxis', '+', 'max', 'min' or '^k'")),
    case("subscript-axis-twice", Bad(
        "a permutation subscript that takes axis 0 twice",
        src("""
            void k(float *p) {
              float x[16, 8] = 0;
              float y[16, 8] = x[^0, ^0];
            }
        """),
        "bad.tri:3:26: error: subscript uses axis 0 twice")),
    case("reduction-more-entries-than-axes", Bad(
        "a reduction subscript with three entries for two axes",
        src("""
            void k(float *p) {
              float x[16, 8] = 0;
              float y = x[+, +, +];
            }
        """),
        "bad.tri:3:14: error: subscript uses 3 of the 2 axes of 'float[16, 8]'; every axis must appear "
        "exactly once (':' keeps, '+'/'max'/'min' reduce, 'newaxis' inserts)")),
    # --- casts, operators --------------------------------------------------------------------
    case("bitcast-width", Bad(
        "bitcast between types of different widths",
        src("""
            void k(half h) {
              float f = bitcast<float>(h);
            }
        """),
        "bad.tri:2:13: error: bitcast from 'half' (16 bits) to 'float' (32 bits) changes the width")),
    case("deref-non-pointer", Bad(
        "'*' on an int",
        src("""
            void k(int n) {
              *n = 1;
            }
        """),
        "bad.tri:2:3: error: indirection requires pointer operand ('int' invalid)")),
    case("matmul-shape-mismatch", Bad(
        "'@' on [64, 32] and [16, 64]",
        src("""
            void k(float *p) {
              half a[64, 32] = 0;
              half b[16, 64] = 0;
              float c[64, 64] = a @ b;
            }
        """),
        "bad.tri:4:23: error: matrix product shapes [64, 32] and [16, 64] do not agree: "
        "32 columns times 16 rows")),
    # --- ranges ------------------------------------------------------------------------------
    case("range-bounds-not-constant", Bad(
        "'lo ... hi' needs constant bounds",
        src("""
            void k(int n) {
              int r[16] = n ... n + 16;
            }
        """),
        "bad.tri:2:15: error: range bounds must be integer constant expressions")),
    case("range-not-power-of-two", Bad(
        "'0 ... 48' has a length that is not a power of two",
        src("""
            void k(int *p) {
              int r[64] = 0 ... 48;
            }
        """),
        "bad.tri:2:17: error: range length 48 ('0 ... 48') is not a power of two")),
    # --- calls -------------------------------------------------------------------------------
    case("unknown-builtin", Bad(
        "a built-in that does not exist (atomic_sub)",
        src("""
            void k(int *p) {
              atomic_sub(p, 1);
            }
        """),
        "bad.tri:2:3: error: unknown function 'atomic_sub'")),
    case("wrong-argument-count", Bad(
        "atomic_cas with two arguments instead of three",
        src("""
            void k(int *p) {
              int old = atomic_cas(p, 1);
            }
        """),
        "bad.tri:2:13: error: 'atomic_cas' takes 3 arguments, 2 given")),
    case("direct-recursion", Bad(
        "a device function that calls itself",
        src("""
            __device__ int f(int n) {
              return f(n - 1);
            }
            void k(int *p) { *p = f(3); }
        """),
        "bad.tri:2:10: error: recursive call to device function 'f'")),
    case("mutual-recursion", Bad(
        "f calls g calls f; a note shows the cycle",
        src("""
            __device__ int f(int n) {
              return g(n);
            }
            __device__ int g(int n) {
              return f(n);
            }
            void k(int *p) { *p = f(3); }
        """),
        "bad.tri:2:10: error: recursive call to device function 'g'", notes=1)),
    # --- C constructs that are not Triton-C ----------------------------------------------------
    case("goto", Bad(
        "goto is not supported",
        src("""
            void k(int *p) {
              goto out;
            }
        """),
        "bad.tri:2:3: error: 'goto' is not supported in Triton-C")),
    case("switch", Bad(
        "switch is not supported",
        src("""
            void k(int a) {
              switch (a) { }
            }
        """),
        "bad.tri:2:3: error: 'switch' is not supported in Triton-C; use if/else")),
    case("struct", Bad(
        "struct types are not supported",
        src("""
            // a comment first, so the error is not on line 1
            struct S { int a; };
        """),
        "bad.tri:2:1: error: 'struct' types are not supported in Triton-C")),
    case("union", Bad(
        "union types are not supported",
        "union U { int a; };\n",
        "bad.tri:1:1: error: 'union' types are not supported in Triton-C")),
    case("enum", Bad(
        "enum types are not supported; macros are the way",
        "enum E { A };\n",
        "bad.tri:1:1: error: 'enum' types are not supported in Triton-C; use macros for constants")),
    case("typedef", Bad(
        "typedef is not supported; macros are the way",
        "typedef int T;\n",
        "bad.tri:1:1: error: 'typedef' is not supported in Triton-C; use a macro (#define NAME type)")),
    case("nested-c-array", Bad(
        "float x[16][8] is not a tile; the hint names the dimensions: float x[16, 8]",
        src("""
            void k(float *p) {
              float x[16][8];
            }
        """),
        "bad.tri:2:14: error: C arrays of arrays are not tiles: write 'float x[16, 8]' instead of "
        "'float x[16][8]'")),
    case("constant-memory-table", Bad(
        "a paper-era __constant__ table gets a precise diagnostic: what is unsupported, what to write",
        src("""
            #define NB 64
            __constant__ int* delta = alloc_const int[NB];
            void shift(int *X) {
              int r[NB] = 0 ... NB;
              *(X + r) = *(delta + r);
            }
        """),
        "bad.tri:2:1: error: constant-memory tables ('__constant__') are not supported in Triton-C; keep "
        "the table in a global array and pass it to the kernel as a pointer argument (e.g. 'int *delta "
        "__readonly', then '*(delta + i)')")),
    # --- preprocessor ------------------------------------------------------------------------
    case("error-in-included-file", Bad(
        "a syntax error inside an #included header points into that header",
        src("""
            #include "helpers.h"
            void k(float *X) { *X = twice(*X); }
        """),
        "include/helpers.h:3:15: error: expected ';' before '}'",
        args=("-I", "include"), included_from=("In file included from bad.tri:1:",),
        files={"include/helpers.h": src("""
            // helpers
            __device__ float twice(float x) {
              return x * 2
            }
        """)})),
    case("error-in-macro-expansion", Bad(
        "an undeclared name inside a macro body is reported at the macro's use",
        src("""
            #define SCALE(v) ((v) * undefined_y)
            void k(float *p) {
              float x = 1.0f;
              *p = SCALE(x);
            }
        """),
        "bad.tri:4:8: error: use of undeclared identifier 'undefined_y'", notes=1)),
    case("error-directive", Bad(
        "#error stops the compilation with its text",
        src("""
            #ifndef BLOCK
            #error define BLOCK with -D BLOCK=<power of two>
            #endif
            void k(float *p) {}
        """),
        "bad.tri:2:2: error: #error define BLOCK with -D BLOCK=<power of two>")),
    case("missing-include", Bad(
        "an #include that names no file; clang and gcc put the caret on the file name",
        src("""
            #include "nothere.h"
            void k(float *p) {}
        """),
        "bad.tri:1:10: error: 'nothere.h' file not found")),
    case("missing-include-from-macro", Bad(
        "an #include whose file name comes from a macro: the caret is on the macro's use",
        src("""
            #define HEADER "nothere.h"
            #include HEADER
            void k(float *p) {}
        """),
        "bad.tri:2:10: error: 'nothere.h' file not found")),
    case("malformed-include", Bad(
        "an #include of neither \"FILE\" nor <FILE>: the caret is on what follows #include",
        src("""
            #include nothere
            void k(float *p) {}
        """),
        "bad.tri:1:10: error: malformed #include: expected \"FILE\" or <FILE>, got 'nothere'")),
    case("include-nested-too-deeply", Bad(
        "a file that includes itself stops at gcc's depth limit, at the #include's file name",
        src("""
            // includes itself
            #include "bad.tri"
            void k(float *p) {}
        """),
        "bad.tri:2:10: error: #include nested too deeply (more than 200 levels)")),
    case("unterminated-comment-in-header", Bad(
        "a /* never closed in an #included header points into the header",
        src("""
            #include "helpers.h"
            void k(float *p) {}
        """),
        "helpers.h:2:3: error: unterminated /* comment", included_from=("In file included from bad.tri:1:",),
        files={"helpers.h": "__device__ float one() { return 1.0f; }\n  /* the end\n"})),
    case("undefined-function-macro-in-if", Bad(
        "'#if F(1)' with F not a function-like macro is an error (gcc and clang reject it)",
        src("""
            #if 1 && HAS_FEATURE(tiles)
            #endif
            void k(float *p) {}
        """),
        "bad.tri:1:10: error: function-like macro 'HAS_FEATURE' is not defined")),
    case("unterminated-if", Bad(
        "an #if without #endif",
        src("""
            #if 1
            void k(float *p) {}
        """),
        "bad.tri:1:2: error: unterminated conditional directive '#if 1'")),
    # --- nesting limits ----------------------------------------------------------------------
    case("blocks-nested-too-deep", Bad(
        "200 levels of blocks and statements, the function body included, are the limit: the "
        "error points at the first '{' past it",
        "void k(int *p) {\n" + "{" * 200 + "}" * 200 + "\n}\n",
        "bad.tri:2:200: error: nesting too deep: more than 200 levels of nested blocks, statements and '?:'")),
    case("ifs-nested-too-deep", Bad(
        "nested 'if's without braces count as levels too (the 200th 'if' is level 201)",
        "void k(int *p) {\n" + "if (*p) " * 200 + "*p = 1;\n}\n",
        f"bad.tri:2:{1 + 199 * 8}: error: nesting too deep: more than 200 levels of nested blocks, statements "
        "and '?:'")),
    case("conditionals-nested-too-deep", Bad(
        "a '?:' (which may become an scf.if) is a level of nesting",
        "void k(int *p) {\n*p = " + "*p ? " * 200 + "1" + " : 2" * 200 + ";\n}\n",
        f"bad.tri:2:{6 + 199 * 5}: error: nesting too deep: more than 200 levels of nested blocks, statements "
        "and '?:'")),
    case("expression-nested-too-deep", Bad(
        "an expression of 1001 nested '+' is past the limit of 1000 levels in one expression",
        "void k(int *p) {\n*p = " + "+".join(["*p"] * 1002) + ";\n}\n",
        "bad.tri:2:6: error: nesting too deep: more than 1000 levels of nesting in one expression")),
    # --- command-line values -----------------------------------------------------------------
    case("bad-D-tunable-value", Bad(
        "-D on a const tunable needs an integer; the error points at the tunable",
        src("""
            const tunable int TM = {64, 128};
            void k(float *p) {
              float x[TM] = 0;
              *(p + (0 ... TM)) = x;
            }
        """),
        "bad.tri:1:19: error: -D TM=abc: a tunable needs an integer value", args=("-D", "TM=abc"))),
    case("bad-D-tunable-power-of-two", Bad(
        "-D TM=48 is an integer, but not a power of two for the tile that uses it",
        src("""
            const tunable int TM = {64, 128};
            void k(float *p) {
              float x[TM] = 0;
              *(p + (0 ... TM)) = x;
            }
        """),
        "bad.tri:3:11: error: tile dimension 48 is not a power of two", args=("-D", "TM=48"))),
    case("bad-tune-macro-value", Bad(
        "--tune for a macro: its first candidate is used, and checked like any size",
        src("""
            void k(float *p) {
              float x[BLOCK] = 0;
            }
        """),
        "bad.tri:2:11: error: tile dimension 96 is not a power of two", args=("--tune", "BLOCK=96,128"))),
    # --- encoding ----------------------------------------------------------------------------
    case("not-utf8", Bad(
        "a byte that is not UTF-8 is located, not a crash",
        "void k(float *p) {\n  int \udcff x;\n}\n",
        "bad.tri:2:7: error: invalid UTF-8 byte 0xff in source file; Triton-C sources are UTF-8")),
]


def _write(folder: Path, bad: Bad) -> None:
    (folder / "bad.tri").write_bytes(bad.source.encode("utf-8", errors="surrogateescape"))
    for name, text in bad.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


@pytest.mark.parametrize("bad", CASES)
def test_program_error(bad: Bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, bad)
    run = tritonc("bad.tri", *bad.args, "-o", "out/bad.cubin")

    assert_clean(run)
    assert run.status == 1, run.output
    lines = run.err_lines
    assert lines[:len(bad.included_from)] == list(bad.included_from), run.stderr
    lines = lines[len(bad.included_from):]
    assert lines[0] == bad.error, f"{bad.intent}:\n{run.stderr}"
    m = HEADER.match(bad.error)
    assert lines[1:3] == quoted(tmp_path / m["file"], int(m["line"]), int(m["col"])), run.stderr
    notes = [line for line in lines[3:] if ": note: " in line]
    assert len(notes) == bad.notes and len(lines) == 3 * (1 + bad.notes), run.stderr
    assert run.stdout == ""
    assert not (tmp_path / "out").exists()
    assert leftovers(tmp_path) == []


def test_mutual_recursion_note_shows_the_cycle(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (bad,) = [p.values[0] for p in CASES if p.id == "mutual-recursion"]
    _write(tmp_path, bad)
    lines = tritonc("bad.tri", "-o", "bad.cubin").err_lines
    assert lines[3:] == ["bad.tri:2:10: note: call cycle: f -> g -> f", *quoted(tmp_path / "bad.tri", 2, 10)]


def test_error_on_stdin_is_named_stdin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tritonc("-", "-o", "out.cubin", input="void k(int *p) {\n  int y = x;\n}\n")
    assert run.status == 1
    assert run.err_lines == ["<stdin>:2:11: error: use of undeclared identifier 'x'",
                             "      int y = x;", "              ^"]
    assert not (tmp_path / "out.cubin").exists()


# ----------------------------------------------------------------------------- errors without a place

def test_kernel_option_names_a_missing_kernel(tmp_path):
    run = tritonc(EXAMPLES_DIR / "reduce.tri", "--kernel", "mean", "-o", tmp_path / "r.cubin")
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: no kernel named 'mean' in this file (kernels: row_sum, col_sum)"]
    assert list(tmp_path.iterdir()) == []


def test_kernel_warps_names_a_missing_kernel(tmp_path):
    run = tritonc(EXAMPLES_DIR / "rmsnorm.tri", "--kernel-warps", "nosuch=4", "-o", tmp_path / "l.cubin")
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: --kernel-warps names no kernel of this file: nosuch "
                             "(kernels: rmsnorm_bwd, rmsnorm_fwd)"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["foo", "rmsnorm_fwd=3", "rmsnorm_fwd=64"])
def test_kernel_warps_malformed_is_bad_usage(tmp_path, value):
    run = tritonc(EXAMPLES_DIR / "rmsnorm.tri", "--kernel-warps", value, "-o", tmp_path / "l.cubin")
    assert_clean(run)
    assert run.status == 2
    assert f"Invalid value for --kernel-warps: '{value}' is not NAME=N with N a power of two from 1 to 32" in run.output
    assert list(tmp_path.iterdir()) == []


TWO_DEFINE_SETS = src("""
    __global__ void add(float *X, float *Y) {
      int r[BLOCK] = 0 ... BLOCK;
      *(Y + r) = *(X + r) + 1.0f;
    }
    __global__ void other(TYPE *X) {
      TYPE x[TM] = *(X + (0 ... TM));
      *(X + (0 ... TM)) = x * 2;
    }
""")


def test_kernel_option_builds_one_kernel_of_a_file_that_needs_different_defines(tmp_path, monkeypatch):
    """With --kernel K the other kernels are not parsed: their macros (even types) may be undefined."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "two.tri").write_text(TWO_DEFINE_SETS)
    run = tritonc("two.tri", "--kernel", "add", "-D", "BLOCK=64", "--emit=ttir,ptx", "-o", "add")
    assert (run.status, run.stderr) == (0, ""), run.output
    ttir = (tmp_path / "add.ttir").read_text()
    assert "tt.func @add" in ttir and "other" not in ttir
    run = tritonc("two.tri", "--kernel", "other", "-D", "TYPE=half", "-D", "TM=128", "--emit=ttir", "-o", "other.ttir")
    assert (run.status, run.stderr) == (0, ""), run.output
    assert "tt.func @other(%X: ptr<f16>)" in (tmp_path / "other.ttir").read_text()
    run = tritonc("two.tri", "-D", "BLOCK=64", "--emit=ttir", "-o", "all.ttir")
    assert run.status == 1
    assert run.err_lines[0] == "two.tri:5:23: error: expected ')' before 'TYPE'"
    assert not (tmp_path / "all.ttir").exists()


def test_input_file_missing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tritonc("missing.tri", "-o", "m.cubin")
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: cannot read 'missing.tri': No such file or directory"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_input_file_unreadable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "secret.tri").write_text("void k(float *p) {}\n")
    (tmp_path / "secret.tri").chmod(0)
    run = tritonc("secret.tri", "-o", "s.cubin")
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: cannot read 'secret.tri': Permission denied"]
    assert not (tmp_path / "s.cubin").exists()


def test_input_is_a_directory_is_bad_usage(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kernels").mkdir()
    run = tritonc("kernels", "-o", "k.cubin")
    assert_clean(run)
    assert run.status == 2
    assert run.err_lines[-1] == "Error: Invalid value for 'SOURCE': File 'kernels' is a directory."


GOOD = "void k(float *p) {\n  *p = 1.0f;\n}\n"


@pytest.mark.parametrize("output, message", [
    ("good.tri/k.cubin", "cannot write 'good.tri/k.cubin': Not a directory"),  # a file where a folder should be
    ("taken.cubin", "cannot write 'taken.cubin': Is a directory"),            # the output is a folder
])
def test_output_path_unwritable(tmp_path, monkeypatch, output, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.tri").write_text(GOOD)
    (tmp_path / "taken.cubin").mkdir()
    run = tritonc("good.tri", "-o", output)
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == [f"tritonc: error: {message}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.tri", "taken.cubin"]
    assert list((tmp_path / "taken.cubin").iterdir()) == []


def test_one_unwritable_output_of_several_writes_none(tmp_path, monkeypatch):
    """-o base with several kinds: base.cubin is a folder, so base.ptx must not appear either."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.tri").write_text(GOOD)
    (tmp_path / "base.cubin").mkdir()
    run = tritonc("good.tri", "-o", "base", "--emit=ptx,cubin,ttir")
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: cannot write 'base.cubin': Is a directory"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.cubin", "good.tri"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_output_folder_read_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.tri").write_text(GOOD)
    (tmp_path / "ro").mkdir(mode=0o500)
    run = tritonc("good.tri", "-o", "ro/k.cubin")
    assert run.status == 1
    assert run.err_lines == ["tritonc: error: cannot write 'ro/k.cubin': Permission denied"]
    assert list((tmp_path / "ro").iterdir()) == []


# ----------------------------------------------------------------------------- internal errors

def test_internal_error_is_one_line_and_status_3(tmp_path, monkeypatch):
    """A crash inside the compiler (here: a compilation stage that raises KeyError) is
    reported as a tritonc bug with exit status 3, not as a traceback."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.tri").write_text(GOOD)

    def crash(self, kind):
        raise KeyError("boom")

    monkeypatch.setattr("tritonc.driver.Compilation.emit", crash)
    run = tritonc("good.tri", "-o", "k.cubin")
    assert_clean(run)
    assert run.status == 3
    assert run.err_lines == [
        "tritonc: internal compiler error: KeyError: 'boom'",
        "tritonc: note: this is a tritonc bug; TRITONC_TRACEBACK=1 shows the Python traceback"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.tri"]

    result = CliRunner().invoke(cli.tritonc, ["good.tri", "-o", "k.cubin"], env={"TRITONC_TRACEBACK": "1"})
    assert isinstance(result.exception, KeyError)  # the traceback is there when asked for


def _nested_blocks(depth: int) -> str:
    return "void k(int *p) {\n" + "{" * depth + "}" * depth + "\n}\n"


def _nested_ifs(depth: int) -> str:
    return "void k(int *p) {\n" + "if (*p) " * depth + "*p = 1;\n}\n"


def _self_include() -> str:
    return '#include "bad.tri"\nvoid k(float *p) {}\n'


PATHOLOGICAL = [
    pytest.param(_nested_blocks(1000), id="1000-nested-blocks"),
    pytest.param(_nested_ifs(250), id="250-nested-ifs"),
    pytest.param(_self_include(), id="file-includes-itself"),
]


@pytest.mark.parametrize("text", PATHOLOGICAL)
def test_pathological_input_never_shows_a_traceback(tmp_path, monkeypatch, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.tri").write_text(text)
    run = tritonc("bad.tri", "-o", "bad.cubin")
    assert_clean(run)
    assert run.status in (1, 3), run.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tri"]


@pytest.mark.parametrize("text", [
    pytest.param(_nested_blocks(1000), id="1000-nested-blocks"),
    pytest.param(_nested_ifs(250), id="250-nested-ifs"),
    pytest.param(_self_include(), id="file-includes-itself"),
])
def test_pathological_input_is_a_located_error(tmp_path, monkeypatch, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.tri").write_text(text)
    run = tritonc("bad.tri", "-o", "bad.cubin")
    assert run.status == 1, run.output
    assert HEADER.match(run.err_lines[0]) and run.err_lines[0].startswith("bad.tri:"), run.output


def test_unterminated_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.tri").write_text("void k(float *p) {}\n/* never closed\n")
    run = tritonc("bad.tri", "-o", "bad.cubin")
    assert run.status == 1
    assert run.err_lines[0] == "bad.tri:2:1: error: unterminated /* comment"


def test_nul_byte_is_named_printably(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.tri").write_text("void k() {\n  int \0 x;\n}\n")
    run = tritonc("bad.tri", "-o", "bad.cubin")
    assert run.status == 1
    assert run.err_lines[0].startswith("bad.tri:2:7: error: stray ")
    assert run.err_lines[0].isprintable(), repr(run.err_lines[0])
    assert run.err_lines[0] == "bad.tri:2:7: error: stray '\\0' in program"
    # the quoted line shows the NUL as the one-column control picture, so the caret lines up
    assert run.err_lines[1:] == ["      int \u2400 x;", "          ^"]


def test_control_character_is_named_by_its_escape(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.tri").write_text("void k() {\n  int \x1b x;\n}\n")
    run = tritonc("bad.tri", "-o", "bad.cubin")
    assert run.status == 1
    assert run.err_lines == ["bad.tri:2:7: error: stray '\\x1b' in program", "      int \u241b x;", "          ^"]


def test_undefined_function_like_macro_in_if(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.tri").write_text("#if HAS_FEATURE(x)\n#endif\nvoid k(float *p) {}\n")
    run = tritonc("bad.tri", "-o", "bad.cubin")
    assert run.status == 1, run.output
    assert run.err_lines[0].startswith("bad.tri:1:")
    assert run.err_lines[0] == "bad.tri:1:5: error: function-like macro 'HAS_FEATURE' is not defined"


def test_undefined_function_like_macro_in_a_skipped_group_is_fine(tmp_path, monkeypatch):
    """As in gcc: an #if inside a group that is skipped is not evaluated."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.tri").write_text("#if 0\n#if HAS_FEATURE(x)\n#endif\n#endif\nvoid k(float *p) {}\n")
    run = tritonc("ok.tri", "--emit=ttir", "-o", "-")
    assert run.status == 0, run.output
    assert "tt.func @k" in run.stdout


def test_nesting_up_to_the_limits_compiles(tmp_path, monkeypatch):
    """199 nested 'if's in the function body (200 levels) go all the way to PTX; an expression
    of 997 nested '+' (1000 levels with the statement around it) and 200 nested #include files
    compile too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ifs.tri").write_text("void k(int *p) {\n" + "if (*p) " * 199 + "*p = 1;\n}\n")
    run = tritonc("ifs.tri", "-o", "ifs.ptx")
    assert run.status == 0, run.output
    assert ".entry k" in (tmp_path / "ifs.ptx").read_text()
    (tmp_path / "sum.tri").write_text("void k(int *p) {\n*p = " + "+".join(["*p"] * 998) + ";\n}\n")
    run = tritonc("sum.tri", "--emit=ttir", "-o", "-")
    assert run.status == 0, run.output
    for i in range(200):  # h0.h includes h1.h ... includes h199.h
        (tmp_path / f"h{i}.h").write_text(f'#include "h{i + 1}.h"\n' if i < 199 else "#define DEEP 1\n")
    (tmp_path / "inc.tri").write_text('#include "h0.h"\nvoid k(int *p) { *p = DEEP; }\n')
    run = tritonc("inc.tri", "--emit=ttir", "-o", "-")
    assert run.status == 0, run.output
    (tmp_path / "h199.h").write_text('#include "h200.h"\n')
    (tmp_path / "h200.h").write_text("#define DEEP 1\n")
    run = tritonc("inc.tri", "--emit=ttir", "-o", "-")
    assert run.status == 1
    lines = run.err_lines  # gcc's include stack first: one line per open #include, innermost first
    assert lines[0] == "In file included from h198.h:1,"
    assert lines[1:199] == [f"                 from h{i}.h:1," for i in range(197, -1, -1)]
    assert lines[199:201] == ["                 from inc.tri:1:",
                              "h199.h:1:10: error: #include nested too deeply (more than 200 levels)"]


# ----------------------------------------------------------------------------- no kernel

@pytest.mark.parametrize("kind", ["ttgir", "llir", "ptx", "cubin", "header", "py"])
@pytest.mark.parametrize("text", [
    pytest.param("", id="empty-file"),
    pytest.param("// kernels come later\n", id="comment-only"),
    pytest.param("__device__ float twice(float x) {\n  return 2.0f * x;\n}\n", id="device-functions-only"),
])
def test_no_kernel_is_an_error_for_gpu_outputs(tmp_path, monkeypatch, kind, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "none.tri").write_text(text)
    run = tritonc("none.tri", f"--emit={kind}", "-o", "out")
    assert_clean(run)
    assert run.status == 1, run.output
    first = text.splitlines()[:1]
    assert run.err_lines == ["none.tri:1:1: error: no kernel in this file",
                             *(["    " + first[0], "    ^"] if first else [])]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["none.tri"]


def test_no_kernel_error_leaves_no_other_output(tmp_path, monkeypatch):
    """--emit=ttir,cubin: the tile IR could be printed, but the cubin cannot, so neither is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "none.tri").write_text("")
    run = tritonc("none.tri", "--emit=ttir,cubin", "-o", "out")
    assert run.status == 1
    assert run.err_lines == ["none.tri:1:1: error: no kernel in this file"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["none.tri"]


def test_tile_ir_of_a_file_without_kernels_is_allowed(tmp_path, monkeypatch):
    """--emit=ttir needs no kernel: a file of device functions (for #include) can be checked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib.tri").write_text("__device__ float twice(float x) {\n  return 2.0f * x;\n}\n")
    run = tritonc("lib.tri", "--emit=ttir", "-o", "-")
    assert run.status == 0, run.output
    assert run.stdout.startswith("module") and "kernel" not in run.stdout


# ----------------------------------------------------------------------------- bad usage: exit 2

USAGE = [
    # (intent, args after the source, click's last line; "..." ends a prefix)
    ("unknown option", ["--no-such-flag"], "Error: No such option '--no-such-flag'."),
    ("unknown --emit kind", ["--emit=exe"],
     "Error: Invalid value for --emit: unknown output kind 'exe'; expected one of "
     "ttir, ttgir, llir, ptx, cubin, fatbin, header, py"),
    ("empty --emit", ["--emit="],
     "Error: Invalid value for --emit: no output kind given; expected one of "
     "ttir, ttgir, llir, ptx, cubin, fatbin, header, py"),
    ("unknown --arch", ["--arch", "sm_70"],
     "Error: Invalid value for '--arch': 'sm_70' is not one of 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_90a'."),
    ("-o - with several kinds", ["-o", "-", "--emit=ptx,cubin"],
     "Error: Invalid value for -o: '-o -' writes one output kind to stdout; pick one with --emit"),
    ("-D name starting with a digit", ["-D", "3X=1"], "Error: Invalid value for -D: '3X=1' is not NAME or NAME=VALUE"),
    ("-D without a name", ["-D", "=1"], "Error: Invalid value for -D: '=1' is not NAME or NAME=VALUE"),
    ("-D name with a dash", ["-D", "A-B"], "Error: Invalid value for -D: 'A-B' is not NAME or NAME=VALUE"),
    ("--tune without values", ["--tune", "TM"], "Error: Invalid value for --tune: 'TM' is not NAME=a,b,..."),
    ("--tune with non-integers", ["--tune", "TM=a,b"],
     "Error: Invalid value for --tune: 'a,b' is not a comma-separated list of integers"),
    ("--tune with no values after =", ["--tune", "TM="],
     "Error: Invalid value for --tune: '' is not a comma-separated list of integers"),
    ("--tune of a name the file never uses", ["--tune", "FOO=1,2"],
     "Error: Invalid value for --tune: 'FOO' is neither a const tunable of good.tri nor a macro its source uses"),
    ("--hint of an unknown size", ["--hint", "M=64,Q=4"],
     "Error: Invalid value for --hint: 'Q=4' is not one of M=SIZE, N=SIZE, K=SIZE, B=SIZE"),
    ("--hint of a zero size", ["--hint", "K=0"],
     "Error: Invalid value for --hint: 'K=0': the size must be a positive integer"),
    ("unknown -W flag", ["-Wfoo"], "Error: Invalid value for -W: unknown warning flag '-Wfoo'"),
    ("unknown -Wno- flag", ["-Wno-foo"], "Error: Invalid value for -W: unknown warning flag '-Wno-foo'"),
    ("unknown -f flag", ["-ffoo"], "Error: Invalid value for -f: unknown code-generation flag '-ffoo' (flags: ..."),
    ("-f bool flag with a value", ["-fwide-addresses=0"],
     "Error: Invalid value for -f: '-fwide-addresses=0': -fwide-addresses takes no value"),
    ("-f flag with a bad value", ["-ff32-division=fast"],
     "Error: Invalid value for -f: '-ff32-division=fast': expected one of full, rn"),
    ("-f flag without its value", ["-fload-cache-op"],
     "Error: Invalid value for -f: '-fload-cache-op': use -fload-cache-op=VALUE with VALUE one of '', ca, cg, cs, lu, cv"),
    ("--num-warps not a number", ["--num-warps", "x"],
     "Error: Invalid value for --num-warps: 'x' is not a comma-separated list of integers"),
    ("--num-warps 0", ["--num-warps", "0"], "Error: Invalid value for --num-warps: 0 is not a power of two from 1 to 32"),
    ("--num-warps 3", ["--num-warps", "3"], "Error: Invalid value for --num-warps: 3 is not a power of two from 1 to 32"),
    ("--num-warps 64 (2048 threads)", ["--num-warps", "64"],
     "Error: Invalid value for --num-warps: 64 is not a power of two from 1 to 32"),
    ("--num-stages 0", ["--num-stages", "0"], "Error: Invalid value for --num-stages: 0 is not a positive number of stages"),
    ("--print-ir-after an unknown pass", ["--print-ir-after", "nopass"],
     "Error: Invalid value for --print-ir-after: unknown pass 'nopass'; the passes are ..."),
]


@pytest.mark.parametrize("intent, args, last", USAGE, ids=[u[0] for u in USAGE])
def test_bad_usage(tmp_path, monkeypatch, intent, args, last):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.tri").write_text(GOOD)
    run = tritonc("good.tri", *args)
    assert_clean(run)
    assert run.status == 2, run.output
    lines = run.err_lines
    assert lines[:2] == ["Usage: tritonc [OPTIONS] SOURCE", "Try 'tritonc --help' for help."]
    if last.endswith("..."):  # the rest is a list that grows with the compiler (the passes)
        assert lines[-1].startswith(last[:-3]), lines[-1]
    else:
        assert lines[-1] == last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.tri"]


def test_missing_source_argument():
    run = tritonc()
    assert run.status == 2
    assert run.err_lines[-1] == "Error: Missing argument 'SOURCE'."


def test_option_missing_its_value():
    run = tritonc("good.tri", "--kernel")
    assert_clean(run)
    assert run.status == 2
    assert run.err_lines == ["Error: Option '--kernel' requires an argument."]


# ----------------------------------------------------------------------------- warnings

PROMOTES = src("""
    void k(float *p) {
      float x[16] = 0 ... 16;
      *(p + (0 ... 16)) = x * 1.5;
    }
""")
PROMOTION = ("unsuffixed literal '1.5' is a 'double' and promotes 'float[16]' to 'double[16]'; "
             "write '1.5f' to stay in single precision [-Wdouble-promotion]")


def test_warning_is_located_and_compilation_succeeds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.tri").write_text(PROMOTES)
    run = tritonc("w.tri", "-o", "w.cubin")
    assert run.status == 0, run.output
    assert run.err_lines == [f"w.tri:3:27: warning: {PROMOTION}", *quoted(tmp_path / "w.tri", 3, 27)]
    assert (tmp_path / "w.cubin").read_bytes()[:4] == b"\x7fELF"


def test_werror_turns_the_warning_into_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.tri").write_text(PROMOTES)
    run = tritonc("w.tri", "-Werror", "-o", "w.cubin")
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == [f"w.tri:3:27: error: {PROMOTION}", *quoted(tmp_path / "w.tri", 3, 27)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.tri"]


def test_wno_silences_the_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.tri").write_text(PROMOTES)
    run = tritonc("w.tri", "-Wno-double-promotion", "-o", "w.cubin")
    assert run.status == 0
    assert run.stderr == ""
    assert (tmp_path / "w.cubin").exists()


def test_positive_w_flag_keeps_the_warning_on(tmp_path, monkeypatch):
    """``-W<name>`` is accepted wherever ``-Wno-<name>`` is; the last one wins (gcc)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.tri").write_text(PROMOTES)
    run = tritonc("w.tri", "-Wno-double-promotion", "-Wdouble-promotion", "-o", "w.cubin")
    assert run.status == 0
    assert run.err_lines[0] == f"w.tri:3:27: warning: {PROMOTION}"
    run = tritonc("w.tri", "-Wdouble-promotion", "-Wno-double-promotion", "-o", "w.cubin")
    assert run.status == 0 and run.stderr == ""


READONLY_STORE = """__global__ void copy(float *X __noalias __readonly, float *Y __noalias __readonly) {
  int r[128] = 0 ... 128;
  *(Y + r) = *(X + r);
}
"""


def test_store_through_readonly_warns_and_is_kept(tmp_path, monkeypatch):
    """Spec section 4: the store is kept (no LLVM ``readonly`` on Y, a ``st.global`` in the PTX),
    X keeps its promise (``ld.global.nc``), and ``-Wno-readonly-store`` silences the warning."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.tri").write_text(READONLY_STORE)
    run = tritonc("c.tri", "--emit=llir,ptx", "-o", "c")
    assert run.status == 0, run.output
    assert run.err_lines == ["c.tri:3:12: warning: store through 'Y', which is declared __readonly; the store is "
                             "kept and the promise is not used [-Wreadonly-store]", *quoted(tmp_path / "c.tri", 3, 12)]
    llir = (tmp_path / "c.ll").read_text()
    assert "noalias readonly align 4 %X" in llir.replace('"', "") and "readonly align 4 %Y" not in llir, llir
    ptx = (tmp_path / "c.ptx").read_text()
    assert "st.global" in ptx and "ld.global.nc" in ptx
    run = tritonc("c.tri", "-Wno-readonly-store", "--emit=ptx", "-o", "c.ptx")
    assert run.status == 0 and run.stderr == ""
    assert (tmp_path / "c.ptx").read_text() == ptx


def test_warnings_before_an_error_are_shown_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.tri").write_text(PROMOTES.replace("}\n", "  int y = z;\n}\n"))
    run = tritonc("w.tri", "-o", "w.cubin")
    assert run.status == 1
    assert run.err_lines == [f"w.tri:3:27: warning: {PROMOTION}", *quoted(tmp_path / "w.tri", 3, 27),
                             "w.tri:4:11: error: use of undeclared identifier 'z'", *quoted(tmp_path / "w.tri", 4, 11)]
    assert not (tmp_path / "w.cubin").exists()


SHADOWS = src("""
    void matmul(restrict read_only fp32 *a, fp32 *c) {
      fp32 *pa[16] = a + (0 ... 16);
      fp32 a[16] = *pa;
      *(c + (0 ... 16)) = a;
    }
""")
SHADOW = "declaration of 'a' shadows a parameter; from here on 'a' means the new variable [-Wshadow]"


@pytest.mark.parametrize("flags, warned", [
    ((), True), (("-Wshadow",), True), (("-Wno-shadow",), False), (("-Wno-shadow", "-Wshadow"), True),
    (("-Wshadow", "-Wno-shadow"), False), (("-Wno-double-promotion",), True)])
def test_shadow_warning_follows_its_flags(tmp_path, monkeypatch, flags, warned):
    """A paper-era kernel redeclares its parameter 'a': accepted, with -Wshadow (on by default; the
    last of -Wshadow / -Wno-shadow wins)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.tri").write_text(SHADOWS)
    run = tritonc("s.tri", *flags, "--emit=ttir", "-o", "s.ttir")
    assert run.status == 0, run.output
    if warned:
        assert run.err_lines == [f"s.tri:3:8: warning: {SHADOW}", *quoted(tmp_path / "s.tri", 3, 8),
                                 "s.tri:1:38: note: shadowed declaration is here", *quoted(tmp_path / "s.tri", 1, 38)]
    else:
        assert run.stderr == ""
    assert "tt.load" in (tmp_path / "s.ttir").read_text()


def test_werror_makes_the_shadow_warning_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.tri").write_text(SHADOWS)
    run = tritonc("s.tri", "-Werror", "--emit=ttir", "-o", "s.ttir")
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines[0] == f"s.tri:3:8: error: {SHADOW}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.tri"]
    run = tritonc("s.tri", "-Werror", "-Wno-error", "--emit=ttir", "-o", "s.ttir")
    assert run.status == 0 and run.err_lines[0] == f"s.tri:3:8: warning: {SHADOW}"


# ----------------------------------------------------------------------------- as a real process

def test_process_program_error(tmp_path):
    """The installed command: a program error is exit status 1 at the OS level."""
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "helpers.h").write_text("__device__ float twice(float x) {\n  return x * 2\n}\n")
    (tmp_path / "bad.tri").write_text('#include "helpers.h"\nvoid k(float *X) { *X = twice(*X); }\n')
    run = tritonc_process("bad.tri", "-I", "include", "-o", "out/bad.cubin", cwd=tmp_path)
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines == ["In file included from bad.tri:1:",
                             "include/helpers.h:2:15: error: expected ';' before '}'", "      return x * 2",
                             "                  ^"]
    assert not (tmp_path / "out").exists()


def test_process_missing_include_and_no_output(tmp_path):
    (tmp_path / "bad.tri").write_text('#include "nothere.h"\nvoid k(float *p) {}\n')
    run = tritonc_process("bad.tri", "-o", "bad.cubin", cwd=tmp_path)
    assert_clean(run)
    assert run.status == 1
    assert re.match(r"bad\.tri:1:\d+: error: 'nothere\.h' file not found$", run.err_lines[0]), run.stderr
    assert run.err_lines[1] == '    #include "nothere.h"'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tri"]


def test_process_unreadable_input_and_unwritable_output(tmp_path):
    run = tritonc_process("missing.tri", cwd=tmp_path)
    assert (run.status, run.stderr) == (1, "tritonc: error: cannot read 'missing.tri': No such file or directory\n")
    (tmp_path / "good.tri").write_text(GOOD)
    run = tritonc_process("good.tri", "-o", "good.tri/k.ptx", cwd=tmp_path)
    assert (run.status, run.stderr) == (1, "tritonc: error: cannot write 'good.tri/k.ptx': Not a directory\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.tri"]


def test_process_bad_usage_is_status_2(tmp_path):
    run = tritonc_process("x.tri", "--no-such-flag", cwd=tmp_path)
    assert_clean(run)
    assert run.status == 2
    assert run.err_lines[-1] == "Error: No such option '--no-such-flag'."


def test_process_non_utf8_stdin(tmp_path):
    run = tritonc_process("-", "-o", "k.cubin", input=b"void k(float *p) {\n  int \xff x;\n}\n", cwd=tmp_path)
    assert_clean(run)
    assert run.status == 1
    assert run.err_lines[0] == "<stdin>:2:7: error: invalid UTF-8 byte 0xff in source file; Triton-C sources are UTF-8"
    assert list(tmp_path.iterdir()) == []


def test_process_pathological_input_has_no_traceback(tmp_path):
    (tmp_path / "bad.tri").write_text(_nested_blocks(1000))
    run = tritonc_process("bad.tri", "-o", "bad.cubin", cwd=tmp_path)
    assert_clean(run)
    assert run.status in (1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tri"]
