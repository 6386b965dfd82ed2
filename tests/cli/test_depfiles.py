"""Make dependency rules: ``-M``, ``-MM``, ``-MD``, ``-MMD``, ``-MF``, ``-MT``, ``-MQ``, ``-MP``
(tritonc/depfile.py), checked against gcc's text where gcc is installed, and the project
Makefile's ``examples`` target rebuilding only what changed."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cli_helpers import ROOT, TRITONC_BIN, assert_clean, leftovers, quoted, tritonc
from tritonc.depfile import make_rule, quote_for_make, strip_dot_slash

KERNEL = """\
#include "inc/scale.h"
__global__ void add(float* x, float* y, int n) {
  int i[128] = get_program_id(0) * 128 + 0 ... 128;
  float v[128] = *?(i < n)(x + i);
  *?(i < n)(y + i) = v * SCALE;
}
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A kernel ``k.tri`` including ``inc/scale.h``, which includes ``inc/more.h`` (through
    ``-I inc``), in the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text('#include "more.h"\n#define SCALE (2 * MORE)\n')
    (tmp_path / "inc" / "more.h").write_text("#define MORE 3\n")
    (tmp_path / "k.tri").write_text(KERNEL)
    return tmp_path


def ok(*args, **kw):
    run = tritonc(*args, **kw)
    assert run.status == 0, run.output
    assert_clean(run)
    return run


def files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# ------------------------------------------------------------------------------ rule text

@pytest.mark.parametrize("name, spelled", [
    ("a b.h", r"a\ b.h"),
    ("x$y#z.h", r"x$$y\#z.h"),
    ("tab\there", "tab\\\there"),
    ("back\\ slash", "back\\\\\\ slash"),   # N backslashes before a blank: 2N+1
    ("dir\\file", "dir\\file"),              # elsewhere a backslash stays as it is
    ("plain/path.h", "plain/path.h"),
])
def test_quote_for_make(name, spelled):
    assert quote_for_make(name) == spelled


def test_strip_dot_slash():
    assert strip_dot_slash("./a/b.h") == "a/b.h"
    assert strip_dot_slash(".//./a") == "a"
    assert strip_dot_slash("../a") == "../a"
    assert strip_dot_slash(".hidden") == ".hidden"


def test_rule_wraps_before_column_72_as_gcc():
    # gcc -MM -MT aaa...: a name that would end past column 72 goes on a new line after " \".
    deps = ["m.c", "a b.h", "inc/x$y#z.h", "inc/sys.h"]
    assert make_rule(["a" * 61], deps) == "a" * 61 + ": m.c a\\ b.h \\\n inc/x$$y\\#z.h inc/sys.h\n"
    assert make_rule(["a" * 62], deps).splitlines()[0] == "a" * 62 + ": m.c \\"
    assert make_rule(["a" * 68], deps).splitlines()[0] == "a" * 68 + ": m.c \\"
    assert make_rule(["a" * 69], deps).splitlines()[0] == "a" * 69 + ": \\"
    assert all(len(line) <= 74 for line in make_rule(["t"], [f"dir/header_{i}.h" for i in range(40)]).splitlines())


def test_phony_rules_and_no_rule_without_files():
    assert make_rule(["k.cubin"], ["k.tri", "a.h", "b c.h"], phony=True) == "k.cubin: k.tri a.h b\\ c.h\na.h:\nb\\ c.h:\n"
    assert make_rule(["k.cubin"], [], phony=True) == ""  # gcc writes nothing then


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_same_text_as_gcc(tmp_path, monkeypatch):
    """One include tree (blanks, '$', '#' in names, a -I folder, a './' spelling), read by gcc
    -MM and by tritonc -M: the same rule, byte for byte."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inc").mkdir()
    (tmp_path / "a b.h").write_text('#include "inc/x$y#z.h"\n')
    (tmp_path / "inc" / "x$y#z.h").write_text("#include <deep.h>\n")
    (tmp_path / "inc" / "deep.h").write_text("#define DEEP 1\n")
    for long in ("", "_" + "w" * 40):
        (tmp_path / f"m{long}.c").write_text('#include "a b.h"\nint main(void) { return DEEP; }\n')
        (tmp_path / f"m{long}.tri").write_text(f'#include "a b.h"\n__global__ void k(int* p) {{ *p = DEEP; }}\n')
        for flags in (["-MT", "target x"], ["-MQ", "target $x", "-MP"], ["-MT", "t" * 50, "-MP"]):
            gcc = subprocess.run(["gcc", "-MM", "-I./inc", *flags, f"./m{long}.c"], capture_output=True, text=True,
                                 check=True).stdout
            run = ok("-M", "-I./inc", *flags, f"./m{long}.tri")
            assert run.stdout == gcc.replace(f"m{long}.c", f"m{long}.tri")


# ------------------------------------------------------------------------------ -M and -MM

def test_M_prints_the_rule_and_writes_nothing(tree):
    run = ok("-M", "-I", "inc", "k.tri")
    assert run.stdout == "k.cubin: k.tri inc/scale.h inc/more.h\n" and run.stderr == ""
    assert files_in(tree) == ["inc/more.h", "inc/scale.h", "k.tri"]


def test_MM_is_M(tree):
    assert ok("-MM", "-I", "inc", "k.tri").stdout == ok("-M", "-I", "inc", "k.tri").stdout


def test_M_targets_are_the_outputs_the_command_would_write(tree):
    run = ok("-M", "-MP", "-I", "inc", "k.tri", "-o", "build/k", "--emit=ptx,header")
    assert run.stdout == ("build/k.ptx build/k.h: k.tri inc/scale.h inc/more.h\n"
                          "inc/scale.h:\ninc/more.h:\n")
    assert not (tree / "build").exists()


def test_M_with_MF_MT_MQ(tree):
    run = ok("-M", "-MF", "deps/k.d", "-MT", "$(OUT)/k.cubin", "-MQ", "my k$.cubin", "-I", "inc", "k.tri")
    assert run.stdout == ""
    assert (tree / "deps" / "k.d").read_text() == "$(OUT)/k.cubin my\\ k$$.cubin: k.tri inc/scale.h inc/more.h\n"
    assert leftovers(tree) == []
    assert ok("-M", "-MF", "-", "-I", "inc", "k.tri").stdout == "k.cubin: k.tri inc/scale.h inc/more.h\n"


def test_M_compiles_nothing(tree):
    """-M only preprocesses: a program with a type error still gets its rule."""
    (tree / "bad.tri").write_text('#include "inc/more.h"\n__global__ void k(int* p) { *p = undeclared; }\n')
    assert ok("-M", "bad.tri").stdout == "bad.cubin: bad.tri inc/more.h\n"


def test_M_lists_only_files_read(tree):
    """An #include in a skipped #if branch is not read and not listed; one chosen by a -D or a
    --tune macro is; a --tune of a `const tunable` is no macro (as in the compile)."""
    (tree / "big.h").write_text("#define BIG_TILES 1\n")
    (tree / "tm.h").write_text("#define TM_IS_A_MACRO 1\n")
    (tree / "c.tri").write_text(
        "const tunable int TM = {64, 128};\n"
        "#if BLOCK > 512\n#include \"big.h\"\n#endif\n"
        "#ifdef TM\n#include \"tm.h\"\n#endif\n"
        "__global__ void k(float* p) { float x[TM] = 0; *(p + 0 ... TM) = x; }\n")
    assert ok("-M", "c.tri").stdout == "c.cubin: c.tri\n"
    assert ok("-M", "c.tri", "-D", "BLOCK=1024").stdout == "c.cubin: c.tri big.h\n"
    assert ok("-M", "c.tri", "--tune", "BLOCK=1024,256", "--tune", "TM=128").stdout == "c.cubin: c.tri big.h\n"
    assert ok("-M", "c.tri", "--tune", "BLOCK=256").stdout == "c.cubin: c.tri\n"
    # a --tune list of a macro: the files read for any of its values (each may be built, as a variant)
    assert ok("-M", "c.tri", "--tune", "BLOCK=256,1024", "--tune", "TM=64,128").stdout == "c.cubin: c.tri big.h\n"
    # the compile reads the same files
    ok("-MD", "c.tri", "--tune", "BLOCK=1024,256", "--tune", "TM=128", "--emit=ttir")
    assert (tree / "c.d").read_text() == "c.ttir: c.tri big.h\n"


def test_M_from_stdin_lists_the_headers_only(tree):
    run = ok("-M", "-", "-I", "inc", input=KERNEL.encode())
    assert run.stdout == "a.cubin: inc/scale.h inc/more.h\n"
    assert ok("-M", "-", input=b"__global__ void k(int* p) { *p = 1; }\n").stdout == ""  # no file: no rule


def test_M_keeps_warnings(tree):
    (tree / "w.tri").write_text('#warning "careful"\n#include "inc/more.h"\n__global__ void k(int* p) { *p = 1; }\n')
    run = ok("-M", "w.tri")
    assert run.stdout == "w.cubin: w.tri inc/more.h\n"
    assert run.err_lines == ['w.tri:1:2: warning: #warning "careful" [-Wcpp]', '    #warning "careful"', "     ^"]
    run = ok("-MD", "w.tri", "--emit=ttir")  # the compile reports it, once
    assert run.err_lines == ['w.tri:1:2: warning: #warning "careful" [-Wcpp]', '    #warning "careful"', "     ^"]
    assert (tree / "w.d").read_text() == "w.ttir: w.tri inc/more.h\n"
    run = tritonc("-M", "-Werror", "w.tri")
    assert run.status == 1 and run.stdout == ""
    assert run.err_lines[0] == 'w.tri:1:2: error: #warning "careful" [-Wcpp]'


def test_M_error_in_the_preprocessor(tree):
    (tree / "missing.tri").write_text('#include "inc/more.h"\n#include "nothere.h"\n__global__ void k(int* p) {}\n')
    run = tritonc("-M", "-MF", "missing.d", "missing.tri")
    assert run.status == 1 and run.stdout == ""
    assert_clean(run)
    assert run.err_lines[0] == "missing.tri:2:10: error: 'nothere.h' file not found"
    assert run.err_lines[1:3] == quoted(tree / "missing.tri", 2, 10)
    assert not (tree / "missing.d").exists()


# ------------------------------------------------------------------------------ -MD and -MMD

def test_MD_writes_the_rule_next_to_the_output(tree):
    run = ok("-MD", "-I", "inc", "k.tri", "-o", "out/k.ptx")
    assert run.stdout == "" and run.stderr == ""
    assert files_in(tree / "out") == ["k.d", "k.ptx"]
    assert (tree / "out" / "k.d").read_text() == "out/k.ptx: k.tri inc/scale.h inc/more.h\n"
    assert leftovers(tree) == []


def test_MMD_MP_with_several_outputs(tree):
    ok("-MMD", "-MP", "-I", "inc", "k.tri", "-o", "out/k", "--emit=ttir,ptx")
    assert (tree / "out" / "k.d").read_text() == ("out/k.ttir out/k.ptx: k.tri inc/scale.h inc/more.h\n"
                                                  "inc/scale.h:\ninc/more.h:\n")


def test_MD_without_o_and_with_MF(tree):
    ok("-MD", "-I", "inc", "k.tri", "--emit=ttir")
    assert (tree / "k.d").read_text() == "k.ttir: k.tri inc/scale.h inc/more.h\n"
    ok("-MD", "-MF", "d/k.dep", "-MT", "all", "-I", "inc", "k.tri", "--emit=ttir", "-o", "x.ttir")
    assert (tree / "d" / "k.dep").read_text() == "all: k.tri inc/scale.h inc/more.h\n"
    assert not (tree / "x.d").exists()


def test_MD_with_output_to_stdout(tree):
    run = ok("-MD", "-MT", "ir", "-I", "inc", "k.tri", "--emit=ttir", "-o", "-")
    assert run.stdout.startswith("module")
    assert (tree / "k.d").read_text() == "ir: k.tri inc/scale.h inc/more.h\n"
    run = ok("-MD", "-MF", "-", "-I", "inc", "k.tri", "--emit=ttir", "-o", "k.ttir")
    assert run.stdout == "k.ttir: k.tri inc/scale.h inc/more.h\n"


def test_MD_not_written_on_error(tree):
    (tree / "k.d").write_text("old\n")
    (tree / "bad.tri").write_text('#include "inc/more.h"\n__global__ void k(int* p) {\n  *p = undeclared;\n}\n')
    run = tritonc("-MD", "bad.tri", "-o", "k.ptx")
    assert run.status == 1
    assert_clean(run)
    assert run.err_lines[0] == "bad.tri:3:8: error: use of undeclared identifier 'undeclared'"
    assert (tree / "k.d").read_text() == "old\n" and not (tree / "k.ptx").exists()
    assert leftovers(tree) == []


def test_MD_refuses_to_overwrite_the_source(tree):
    run = tritonc("-MD", "-MF", "inc/more.h", "-I", "inc", "k.tri", "--emit=ttir")
    assert run.status == 1
    assert "output 'inc/more.h' is the same file as the input 'inc/more.h'" in run.stderr
    assert (tree / "inc" / "more.h").read_text() == "#define MORE 3\n" and not (tree / "k.ttir").exists()


# ------------------------------------------------------------------------------ usage errors

@pytest.mark.parametrize("args, message", [
    (["-MF", "k.d"], "-MF needs -M, -MM, -MD or -MMD"),
    (["-MT", "x"], "-MT needs -M, -MM, -MD or -MMD"),
    (["-MQ", "x"], "-MQ needs -M, -MM, -MD or -MMD"),
    (["-MP"], "-MP needs -M, -MM, -MD or -MMD"),
    (["-MD", "-o", "-", "--emit=ttir"], "the dependency rule has no target"),
    (["-M", "-o", "-", "--emit=ttir"], "the dependency rule has no target"),
    (["-MD", "-o", "k.d", "--emit=ttir"], "the dependency file 'k.d' is also an output"),
])
def test_usage_errors(tree, args, message):
    run = tritonc("k.tri", "-I", "inc", *args)
    assert run.status == 2, run.output
    assert message in run.stderr
    assert_clean(run)
    assert files_in(tree) == ["inc/more.h", "inc/scale.h", "k.tri"]


# ------------------------------------------------------------------------------ make

def _make(*args, cwd=ROOT):
    proc = subprocess.run(["make", "--no-print-directory", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _built(out: str) -> list[str]:
    """The kernels a make run compiled, from the commands it printed."""
    return sorted(re.findall(r"(\w+)\.tri(?: --arch \S+)? .*-MMD", out))


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_examples_rebuilds_only_what_changed(tmp_path):
    """The project Makefile's `examples` target, on kernels of our own (EXAMPLES_DIR): a second
    `make -j` does nothing; touching a header rebuilds exactly the kernels that include it,
    also through a nested #include."""
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir()
    (src / "common.h").write_text('#include "inner.h"\n#define SCALE INNER\n')
    (src / "inner.h").write_text("#define INNER 2\n")
    (src / "other.h").write_text("#define OTHER 3\n")
    body = "__global__ void k(float* p) {{ float x[128] = {}; *(p + 0 ... 128) = x; }}\n"
    (src / "uses_common.tri").write_text('#include "common.h"\n' + body.format("SCALE"))
    (src / "uses_other.tri").write_text('#include "other.h"\n' + body.format("OTHER"))
    (src / "plain.tri").write_text(body.format("1"))
    args = ["-j2", "examples", f"EXAMPLES_DIR={src}", f"BUILD={build}", "ARCH=sm_80",
            f"TRITONC={TRITONC_BIN}"]
    assert _built(_make(*args)) == ["plain", "uses_common", "uses_other"]
    assert sorted(p.name for p in (build / "examples").iterdir()) == [
        "plain.cubin", "plain.d", "uses_common.cubin", "uses_common.d", "uses_other.cubin", "uses_other.d"]
    assert _built(_make(*args)) == []

    def change(name: str) -> None:
        """Date every source an hour back, every output half an hour back, and ``name`` just
        after the outputs: only the kernels depending on it are out of date."""
        t = time.time()
        for p in src.iterdir():
            os.utime(p, (t - 3600, t - 3600))
        for p in (build / "examples").iterdir():
            os.utime(p, (t - 1800, t - 1800))
        os.utime(src / name, (t - 1700, t - 1700))

    for name, expected in (("inner.h", ["uses_common"]), ("common.h", ["uses_common"]),
                           ("other.h", ["uses_other"]), ("plain.tri", ["plain"])):
        change(name)
        assert _built(_make(*args)) == expected, name
        assert _built(_make(*args)) == [], name
    # -MP: a header that is no longer included may be deleted; make does not stop at it
    (src / "inner.h").unlink()
    (src / "common.h").write_text("#define SCALE 5\n")
    change("common.h")
    assert _built(_make(*args)) == ["uses_common"]
    assert _built(_make(*args)) == []


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_examples_covers_every_example(tmp_path):
    """`make -n examples` would build each examples/*.tri to a cubin with -MMD -MP; no tile or
    problem-shape -D for the convolutions (only their element type)."""
    out = _make("-n", "examples", f"BUILD={tmp_path}")
    names = sorted(p.stem for p in (ROOT / "examples").glob("*.tri"))
    assert _built(out) == names
    for line in out.splitlines():
        if ".tri " in line:
            assert "-MMD -MP -o" in line
    for name in ("conv2d", "conv2d_nhwc", "shift_conv"):
        line = next(li for li in out.splitlines() if f"{name}.tri " in li)
        assert re.search(rf"{name}\.tri\s+(--arch \S+\s+)?-D TYPE=half -MMD", line), line
        assert "-D TM" not in line and "-D HH" not in line
