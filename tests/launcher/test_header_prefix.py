"""--symbol-prefix / --cpp-namespace (issue 18 item 5): two headers of examples/matmul.tri built
with different tile sizes go into one C program and one C++ program, compile, link and launch
their own cubins against the fake CUDA driver (tests/launcher/fake_cuda)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tritonc.launcher.c_header import check_cpp_namespace, check_symbol_prefix, find_cuda_include

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).parent / "fake_cuda"
TRITONC = Path(sys.executable).parent / "tritonc"
CUDA_INCLUDE = find_cuda_include()
CC = shutil.which("cc")
CXX = shutil.which("c++")
needs_cc = pytest.mark.skipif(CUDA_INCLUDE is None or CC is None or CXX is None,
                              reason="needs cc, c++ and cuda.h (nvidia-cuda-runtime wheel)")

TILES = {"64": ("64", "64", "32"), "128": ("128", "128", "32")}
MATMUL_SIZES = "fake_num_params = 0;"


def run(cmd, **kw):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}"
    return proc


def matmul_header(out: Path, tile: str, *extra: str) -> Path:
    tm, tn, tk = TILES[tile]
    run([TRITONC, ROOT / "examples" / "matmul.tri", "--emit=header", "-o", out, "--no-cache",
         "--tune", f"TM={tm}", "--tune", f"TN={tn}", "--tune", f"TK={tk}", *extra])
    return out


@pytest.fixture(scope="module")
def headers(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("prefixed")
    matmul_header(d / "mm64.h", "64", "--symbol-prefix", "mm64_")
    matmul_header(d / "mm128.h", "128", "--symbol-prefix", "mm128_")
    matmul_header(d / "ns64.h", "64", "--cpp-namespace", "tiles::t64")
    matmul_header(d / "ns128.h", "128", "--cpp-namespace", "tiles::t128")
    return d


def defined_names(text: str) -> set[str]:
    """Every file-scope name a header defines: functions, objects, structs and macros."""
    names = set(re.findall(r"^#define (\w+)", text, re.MULTILINE))
    names |= set(re.findall(r"^struct (\w+) \{", text, re.MULTILINE))
    names |= set(re.findall(r"^static [^(=;]*?\b(\w+)(?:\(|\[| =| \w+ =)", text, re.MULTILINE))
    names |= set(re.findall(r"^\w+_(?:API|DATA) [^(=;]*?\b(\w+)(?:\(| \w+ =)", text, re.MULTILINE))
    return names


def test_every_defined_name_starts_with_the_prefix(headers):
    for name, prefix in (("mm64.h", "mm64_"), ("mm128.h", "mm128_")):
        names = defined_names((headers / name).read_text())
        p, m = prefix, prefix.upper()
        assert {f"{p}matmul", f"{p}matmul_load", f"{p}matmul_with_grid", f"{p}matmul_metadata",
                f"{p}tritonc_matmul_cubin", f"{p}kernel_metadata", f"{p}grid_cdiv", f"{m}MAX_CONTEXTS",
                f"{m}KERNEL_METADATA_V1", f"{m}UNUSED"} <= names, sorted(names)
        bad = sorted(n for n in names if not n.startswith((prefix, prefix.upper())))
        assert not bad, f"{name} defines names outside its prefix: {bad}"
    default = defined_names((headers / "ns64.h").read_text())
    assert {"matmul", "tritonc_matmul_cubin", "tritonc_kernel_metadata", "TRITONC_MAX_CONTEXTS"} <= default


PROGRAM = r"""
#include <stdio.h>
#include "fake_cuda.h"
#include "{a}"
#include "{b}"
#include "{a}"
#define CHECK(x) printf("RESULT %s %d\n", #x, (int)(x))
/* a host function with the kernel's name clashes with neither header */
static int matmul(int x) {{ return x + 1; }}
int main(void)
{{
    {sizes}
    fake_current_context = fake_context(5);
    CHECK(matmul(1));
    CHECK({f64}(NULL, 0x1000, 0x2000, 0x3000, 256, 256, 64, 256, 256, 256));
    CHECK({f128}(NULL, 0x1000, 0x2000, 0x3000, 256, 256, 64, 256, 256, 256));
    printf("TILES %u %u\n", {m64}.shared_bytes > 0u, {m128}.shared_bytes > 0u);
    return 0;
}}
"""


def check_two_cubins(lines: list[str]) -> None:
    assert "RESULT matmul(1) 2" in lines
    loads = [line for line in lines if line.startswith("CALL cuModuleLoadData")]
    assert len(loads) == 2, lines  # each header loads its own cubin
    launches = [line for line in lines if line.startswith("CALL cuLaunchKernel")]
    # the declared grid cdiv(M, TM), cdiv(N, TN) of each build: 64 and 128 tiles
    assert "grid=4,4,1" in launches[0] and "grid=2,2,1" in launches[1], launches
    assert launches[0].split("module=")[1].split()[0] != launches[1].split("module=")[1].split()[0]
    assert sum(line.startswith("RESULT") and line.endswith(" 0") for line in lines) == 2


@needs_cc
def test_two_prefixed_headers_in_one_c_program(headers, tmp_path):
    src = tmp_path / "main.c"
    src.write_text(PROGRAM.format(a="mm64.h", b="mm128.h", sizes=MATMUL_SIZES, f64="mm64_matmul",
                                  f128="mm128_matmul", m64="mm64_matmul_metadata", m128="mm128_matmul_metadata"))
    exe = tmp_path / "main"
    run([CC, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", CUDA_INCLUDE, "-I", FAKE, "-I", headers,
         src, FAKE / "fake_cuda.c", "-o", exe])
    check_two_cubins(run([exe]).stdout.splitlines())


@needs_cc
@pytest.mark.parametrize("a,b,f64,f128,m64,m128", [
    ("mm64.h", "mm128.h", "mm64_matmul", "mm128_matmul", "mm64_matmul_metadata", "mm128_matmul_metadata"),
    ("ns64.h", "ns128.h", "tiles::t64::matmul", "tiles::t128::matmul", "tiles::t64::matmul_metadata",
     "tiles::t128::matmul_metadata"),
])
def test_two_headers_in_one_cxx_program(headers, tmp_path, a, b, f64, f128, m64, m128):
    src = tmp_path / "main.cpp"
    src.write_text(PROGRAM.format(a=a, b=b, sizes=MATMUL_SIZES, f64=f64, f128=f128, m64=m64, m128=m128))
    obj = tmp_path / "fake_cuda.o"
    run([CC, "-std=c99", "-c", "-I", CUDA_INCLUDE, FAKE / "fake_cuda.c", "-o", obj])
    exe = tmp_path / "main"
    run([CXX, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", CUDA_INCLUDE, "-I", FAKE,
         "-I", headers, src, obj, "-o", exe])
    check_two_cubins(run([exe]).stdout.splitlines())


@needs_cc
def test_namespaced_header_is_unchanged_for_c(headers, tmp_path):
    (tmp_path / "main.c").write_text('#include "ns64.h"\nint main(void) { return matmul_load() == 0; }\n')
    run([CC, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", CUDA_INCLUDE, "-I", headers,
         tmp_path / "main.c"])


def test_prefix_and_namespace_checks():
    check_symbol_prefix("")
    check_symbol_prefix("mm64_")
    for bad in ("9x", "a-b", "tritonc_x", "TRITONC_"):
        with pytest.raises(ValueError):
            check_symbol_prefix(bad)
    assert check_cpp_namespace(None) == []
    assert check_cpp_namespace("a::b") == ["a", "b"]
    for bad in ("a::", "::a", "class", "a b", "a::9"):
        with pytest.raises(ValueError):
            check_cpp_namespace(bad)


@pytest.mark.parametrize("option,value,what", [
    ("--symbol-prefix", "9x", "is not the start of a C identifier"),
    ("--symbol-prefix", "tritonc_", "reserved for the launcher"),
    ("--cpp-namespace", "a::class", "is not an identifier"),
])
def test_cli_rejects_bad_prefix_or_namespace(tmp_path, option, value, what):
    out = tmp_path / "k.h"
    proc = subprocess.run([str(TRITONC), str(ROOT / "examples" / "vector_add.tri"), "--emit=header", "-o",
                           str(out), option, value], capture_output=True, text=True)
    assert proc.returncode == 2 and what in proc.stderr and option in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()
