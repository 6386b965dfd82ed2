"""-lineinfo: .file / .loc directives that map the PTX back to .tri lines (LLVM debug locations
from each op's source location, tritonc/codegen/llvm/debug_info.py), kept by ptxas in the cubin."""
from __future__ import annotations

import re
from pathlib import Path

from tritonc.driver import Compilation
from tritonc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]
SOFTMAX = ROOT / "examples" / "softmax.tri"
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)", re.MULTILINE)
FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', re.MULTILINE)


def _ptx(path, lineinfo: bool, **kw) -> str:
    return Compilation(path, CompileOptions(lineinfo=lineinfo, num_warps=4, **kw)).ptx


def test_softmax_lines_map_to_code():
    ptx = _ptx(SOFTMAX, True)
    files = dict(FILE.findall(ptx))
    assert list(files.values()) == [str(SOFTMAX)]
    source = SOFTMAX.read_text().splitlines()
    locs = [(f, int(line), int(col)) for f, line, col in LOC.findall(ptx)]
    assert len(locs) >= 10
    lines = {line for _, line, _ in locs if line}  # line 0: LLVM's "no single line" (merged code)
    assert len(lines) >= 4
    for f, line, col in locs:
        assert f in files
        if line:
            text = source[line - 1]
            # a line of the kernel's code (not a comment or the preprocessor's), and a column on it
            assert text.strip() and not text.lstrip().startswith(("//", "#")), (line, text)
            assert 0 <= col <= len(text) + 1  # 0: no column (LLVM merges some)
    # the lines of the exps and the stores are all there
    body = {i + 1 for i, t in enumerate(source)
            if not t.lstrip().startswith("//") and ("exp(" in t or "(y_row +" in t)}
    assert body <= lines, (body, lines)


def test_off_by_default():
    ptx = _ptx(SOFTMAX, False)
    assert ".loc" not in ptx and ".file" not in ptx
    assert "!dbg" not in Compilation(SOFTMAX, CompileOptions(num_warps=4)).llir


def test_cubin_keeps_the_line_table():
    with_lines = Compilation(SOFTMAX, CompileOptions(lineinfo=True, num_warps=4)).cubin
    without = Compilation(SOFTMAX, CompileOptions(num_warps=4)).cubin
    assert b".nv_debug_line_sass" in with_lines and b".debug_line" in with_lines
    assert b".debug_line" not in without


def test_included_device_function_names_its_file(tmp_path):
    (tmp_path / "helpers.h").write_text("__device__ float twice(float x) {\n  return x + x;\n}\n")
    src = tmp_path / "k.tri"
    src.write_text('#include "helpers.h"\n'
                   "__global__ void k(float *X, float *Y) {\n"
                   "  int i[128] = 0 ... 128;\n"
                   "  float x[128] = *(X + i);\n"
                   "  *(Y + i) = twice(x) * x;\n"
                   "}\n")
    ptx = _ptx(src, True)
    files = {n: Path(p).name for n, p in FILE.findall(ptx)}
    assert sorted(files.values()) == ["helpers.h", "k.tri"]
    header = next(n for n, p in files.items() if p == "helpers.h")
    assert any(f == header and line == "2" for f, line, _ in LOC.findall(ptx)), ptx
