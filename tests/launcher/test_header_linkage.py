"""stb-style linkage of the C header (issue 18 item 5): one file of a program defines
TRITONC_IMPLEMENTATION (or <PREFIX>IMPLEMENTATION) before including the header and holds the
one copy of the cubin; the others define TRITONC_EXTERN (or <PREFIX>EXTERN) and see only
declarations; with neither, the header stays self-contained (everything static)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from fixture_kernels import VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.c_header import find_cuda_include, generate_c_header

FAKE = Path(__file__).parent / "fake_cuda"
CUDA_INCLUDE = find_cuda_include()
CC = shutil.which("cc")
CXX = shutil.which("c++")
NM = shutil.which("nm")
pytestmark = pytest.mark.skipif(CUDA_INCLUDE is None or CC is None or CXX is None or NM is None,
                                reason="needs cc, c++, nm and cuda.h (nvidia-cuda-runtime wheel)")
FLAGS = ["-Wall", "-Wextra", "-Werror"]
SIZES = "fake_num_params = 4; fake_param_sizes[0] = 8; fake_param_sizes[1] = 8; " \
        "fake_param_sizes[2] = 8; fake_param_sizes[3] = 4;"


def run(cmd):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}"
    return proc


def program(tmp_path: Path, header: str, first: str, second: str, *, cxx: bool = False,
            prefix: str = "") -> tuple[list[str], dict[str, str]]:
    """Build main (including the header after ``first``) and other (after ``second``) into
    one program with the fake driver; return its output and ``nm`` of each object."""
    (tmp_path / "k.h").write_text(header)
    ext = "cpp" if cxx else "c"
    f = f"{prefix}vector_add"
    (tmp_path / f"main.{ext}").write_text(
        f'#include <stdio.h>\n#include "fake_cuda.h"\n{first}\n#include "k.h"\n'
        "int other(void);\n"
        f"int main(void)\n{{\n    {SIZES}\n    fake_current_context = fake_context(9);\n"
        f"    printf(\"MAIN %d\\n\", (int){f}((CUstream)1, 1, 1, 1, 0x1000, 0x2008, 0x3004, 64));\n"
        "    printf(\"OTHER %d\\n\", other());\n"
        f"    printf(\"WARPS %u\\n\", {f}_metadata.num_warps);\n    return 0;\n}}\n")
    (tmp_path / f"other.{ext}").write_text(
        f'{second}\n#include "k.h"\n'
        "int other(void);\n"
        f"int other(void) {{ return (int){f}((CUstream)2, 2, 1, 1, 0x1000, 0x2008, 0x3004, 64)"
        f" + (int){f}_metadata.num_params * 100; }}\n")
    compiler = [CXX, "-std=c++11", *FLAGS, "-Wmissing-declarations"] if cxx else \
        [CC, "-std=c99", *FLAGS, "-Wmissing-prototypes", "-Wstrict-prototypes"]
    objs = {}
    for name in ("main", "other"):
        obj = tmp_path / f"{name}.o"
        run([*compiler, "-c", "-I", CUDA_INCLUDE, "-I", FAKE, "-I", tmp_path, tmp_path / f"{name}.{ext}", "-o", obj])
        objs[name] = run([NM, "-C", obj]).stdout
    fake = tmp_path / "fake_cuda.o"
    run([CC, "-std=c99", "-c", "-I", CUDA_INCLUDE, FAKE / "fake_cuda.c", "-o", fake])
    exe = tmp_path / "prog"
    run([CXX if cxx else CC, tmp_path / "main.o", tmp_path / "other.o", fake, "-o", exe])
    return run([exe]).stdout.splitlines(), objs


@pytest.fixture(scope="module")
def kernel():
    return make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})


def cubin_in(nm_text: str, mod: str) -> bool:
    return any(line.split()[-1] == f"{mod}_cubin" for line in nm_text.splitlines() if line.strip())


@pytest.mark.parametrize("impl,ext,cxx", [
    ("#define TRITONC_IMPLEMENTATION", "#define TRITONC_EXTERN", False),
    ("#define TRITONC_IMPLEMENTATION", "#define TRITONC_EXTERN", True),
])
def test_one_copy_of_the_cubin(tmp_path, kernel, impl, ext, cxx):
    lines, objs = program(tmp_path, generate_c_header(kernel), impl, ext, cxx=cxx)
    assert cubin_in(objs["main"], "tritonc_vector_add") and not cubin_in(objs["other"], "tritonc_vector_add")
    # the launcher is defined once, with external linkage, and called from the other file
    assert any(line.endswith(" T vector_add") for line in objs["main"].splitlines())
    assert any(line.strip() == "U vector_add" for line in objs["other"].splitlines())
    assert any(line.strip() == "U vector_add_metadata" for line in objs["other"].splitlines())
    # one module table for the program: the second file's launch reuses the loaded module
    assert len([x for x in lines if x.startswith("CALL cuModuleLoadData")]) == 1, lines
    assert len([x for x in lines if x.startswith("CALL cuLaunchKernel")]) == 2
    assert "MAIN 0" in lines and "OTHER 400" in lines and "WARPS 4" in lines


def test_prefixed_macros_select_the_mode(tmp_path, kernel):
    text = generate_c_header(kernel, symbol_prefix="va_")
    lines, objs = program(tmp_path, text, "#define VA_IMPLEMENTATION", "#define VA_EXTERN", prefix="va_")
    assert cubin_in(objs["main"], "va_tritonc_vector_add") and not cubin_in(objs["other"], "va_tritonc_vector_add")
    assert len([x for x in lines if x.startswith("CALL cuModuleLoadData")]) == 1, lines
    assert "OTHER 400" in lines


def test_default_stays_static_one_copy_per_file(tmp_path, kernel):
    lines, objs = program(tmp_path, generate_c_header(kernel), "", "")
    assert cubin_in(objs["main"], "tritonc_vector_add") and cubin_in(objs["other"], "tritonc_vector_add")
    assert not any(line.endswith(" T vector_add") for text in objs.values() for line in text.splitlines())
    # each file keeps its own module table, so each loads the cubin
    assert len([x for x in lines if x.startswith("CALL cuModuleLoadData")]) == 2, lines
    assert "MAIN 0" in lines and "OTHER 400" in lines


def test_dispatcher_and_declared_grid_in_two_files(tmp_path):
    """A header with variants (a dispatcher) and a declared grid: every public function,
    one-line ones included, is declared in the EXTERN file and defined once."""
    from tritonc.options import CompileOptions
    from tritonc.variants import VariantBuild

    text = (Path(__file__).resolve().parents[2] / "examples" / "vector_add.tri").read_text()
    build = VariantBuild(text, "t.tri", CompileOptions(arch="sm_90", tune={"BLOCK": [512, 1024]},
                                                       symbol_prefix="d_"), None, None, 2).build()
    header = build.emit("header")
    assert "d_vector_add_by_id" in header
    (tmp_path / "k.h").write_text(header)
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "fake_cuda.h"\n#define TRITONC_IMPLEMENTATION\n#include "k.h"\n'
        "int other(void);\nint main(void)\n{\n"
        "    fake_num_params = 0;\n    fake_current_context = fake_context(4);\n"
        "    printf(\"MAIN %d\\n\", (int)d_vector_add(NULL, 0x1000, 0x2000, 0x3000, 5000));\n"
        "    printf(\"OTHER %d\\n\", other());\n    return 0;\n}\n")
    (tmp_path / "other.c").write_text(
        '#define D_EXTERN\n#include "k.h"\nint other(void);\n'
        "int other(void) { return (int)d_vector_add_by_id(NULL, 0x1000, 0x2000, 0x3000, 5000, 1) + "
        "(int)d_vector_add_num_variants() * 10 + (int)d_vector_add_variant_metadata(1)->num_params * 100; }\n")
    objs = []
    for name in ("main", "other"):
        obj = tmp_path / f"{name}.o"
        run([CC, "-std=c99", *FLAGS, "-Wmissing-prototypes", "-c", "-I", CUDA_INCLUDE, "-I", FAKE,
             tmp_path / f"{name}.c", "-o", obj])
        objs.append(obj)
    fake = tmp_path / "fake_cuda.o"
    run([CC, "-std=c99", "-c", "-I", CUDA_INCLUDE, FAKE / "fake_cuda.c", "-o", fake])
    run([CC, *objs, fake, "-o", tmp_path / "prog"])
    lines = run([tmp_path / "prog"]).stdout.splitlines()
    assert "MAIN 0" in lines and "OTHER 420" in lines, lines
    assert len([x for x in lines if x.startswith("CALL cuModuleLoadData")]) == 1
    names = [x.split(" name=")[1].split()[0] for x in lines if x.startswith("CALL cuLaunchKernel")]
    assert names == ["vector_add__v0", "vector_add__v1"]
