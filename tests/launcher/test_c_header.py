"""tritonc.launcher.c_header: the generated header compiles as C99 and C++, and launches
correctly against a fake CUDA driver (tests/launcher/fake_cuda) that logs every call."""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fixture_kernels import SCALAR_ARGS_PARAMS, VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.c_header import find_cuda_include, generate_c_header
from tritonc.launcher.c_launch import c_param_names
from tritonc.launcher.c_text import c_string_literal
from tritonc.launcher.signature import CompiledKernel, KernelParam, parse_signature_lines

FAKE = Path(__file__).parent / "fake_cuda"
CUDA_INCLUDE = find_cuda_include()
CC = shutil.which("cc")
CXX = shutil.which("c++")
pytestmark = pytest.mark.skipif(CUDA_INCLUDE is None or CC is None or CXX is None,
                                reason="needs cc, c++ and cuda.h (nvidia-cuda-runtime wheel)")

C_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
CXX_FLAGS = ["-Wall", "-Wextra", "-Werror"]
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}"
    return proc


def syntax_check(tmp_path: Path, header_text: str, name: str = "k.h") -> None:
    (tmp_path / name).write_text(header_text)
    (tmp_path / "use.c").write_text(f'#include "{name}"\n#include "{name}"\nint main(void) {{ return 0; }}\n')
    (tmp_path / "use.cpp").write_text(f'#include "{name}"\nint main() {{ return 0; }}\n')
    run([CC, *C_FLAGS, "-fsyntax-only", "-I", CUDA_INCLUDE, str(tmp_path / "use.c")])
    run([CC, *C_FLAGS, "-pedantic", "-Wshadow", "-Wconversion", "-fsyntax-only",
         "-isystem", CUDA_INCLUDE, str(tmp_path / "use.c")])
    run([CXX, *CXX_FLAGS, "-fsyntax-only", "-I", CUDA_INCLUDE, str(tmp_path / "use.cpp")])
    run([CXX, "-std=c++11", *CXX_FLAGS, "-pedantic", "-Wshadow", "-fsyntax-only",
         "-isystem", CUDA_INCLUDE, str(tmp_path / "use.cpp")])


# ----------------------------------------------------------------------------- compiles

def test_vector_add_header_compiles(tmp_path, vector_add_kernel):
    syntax_check(tmp_path, generate_c_header(vector_add_kernel))


def test_all_scalar_types_header_compiles(tmp_path, scalar_args_kernel):
    text = generate_c_header(scalar_args_kernel)
    syntax_check(tmp_path, text)
    assert ("CUdeviceptr out, int8_t a, int16_t b, int32_t c, int64_t d, uint8_t e, uint16_t f, "
            "uint32_t g, uint64_t h, TRITONC_FLOAT16 hf, TRITONC_BFLOAT16 bf, float fl, double db, bool bo)"
            in " ".join(text.split()).replace("( ", "(").replace(" ,", ","))


def test_two_kernels_one_header_compiles(tmp_path):
    a = make_kernel("vector_add", VECTOR_ADD_PARAMS, ll_name="both.ll")
    b = make_kernel("scalar_args", SCALAR_ARGS_PARAMS, ll_name="both.ll", shared_bytes=65536)
    text = generate_c_header([a, b], header_name="both.h")
    syntax_check(tmp_path, text)
    assert text.count("tritonc_vector_add_cubin[") == 1
    assert [d["name"] for d in parse_signature_lines(text)] == ["vector_add", "scalar_args"]


def test_awkward_parameter_names_and_defines_compile(tmp_path, vector_add_kernel):
    params = (KernelParam("class", "pointer", "float32"), KernelParam("new", "scalar", "int64", multipleof=8),
              KernelParam("stream", "scalar", "uint64", multipleof=2), KernelParam("int32_t", "scalar", "uint32", multipleof=3),
              KernelParam("tritonc_x", "scalar", "float16"), KernelParam("stream_", "scalar", "bool"),
              KernelParam("bool_", "scalar", "bool"), KernelParam("params", "pointer", "int8", aligned=4),
              KernelParam("err", "scalar", "int32", multipleof=2), KernelParam("loaded", "scalar", "int8"),
              KernelParam("CUDA_SUCCESS", "scalar", "int16"))
    k = make_kernel("vector_add", params, defines={"Q": 'a??=b"\\', "U": "\u00e9", "T": "*/"})
    text = generate_c_header(k, command="tritonc k.tri -D 'T=*/' -o k.h")
    syntax_check(tmp_path, text)
    assert c_param_names(params) == ["class_", "new_", "stream__", "int32_t_", "arg_tritonc_x",
                                     "stream_", "bool_", "params", "err", "loaded", "CUDA_SUCCESS_"]


def test_zero_parameter_kernel_compiles(tmp_path):
    k = make_kernel("vector_add", (), shared_bytes=100 * 1024)
    text = generate_c_header(k)
    syntax_check(tmp_path, text)
    assert "stream, NULL, NULL)" in text


def test_header_is_deterministic_and_has_banner(vector_add_kernel):
    a, b = generate_c_header(vector_add_kernel), generate_c_header(vector_add_kernel)
    assert a == b
    assert "DO NOT EDIT" in a and "#pragma once" in a and 'extern "C"' in a
    meta = parse_signature_lines(a)
    assert meta == [vector_add_kernel.metadata()]


def test_c_string_literal():
    assert c_string_literal('a"b\\c?\n') == '"a\\"b\\\\c\\?\\n"'
    assert c_string_literal("\u00e9") == '"\\303\\251"'


def test_rejects_mixed_cubins_and_colliding_names(vector_add_kernel, scalar_args_kernel):
    with pytest.raises(ValueError, match="different cubins"):
        generate_c_header([vector_add_kernel, scalar_args_kernel])
    other = make_kernel("vector_add_load", VECTOR_ADD_PARAMS, ll_name="vector_add.ll")
    with pytest.raises(ValueError, match="'vector_add_load'"):
        generate_c_header([vector_add_kernel, other])
    with pytest.raises(ValueError, match="at least one"):
        generate_c_header([])


# ----------------------------------------------------------------------------- runs (fake driver)

def build_and_run(tmp_path: Path, header_text: str, body: str, *, defines=()) -> list[str]:
    """Compile ``body`` (the inside of main) against the header and the fake driver, run it,
    and return its output lines."""
    (tmp_path / "k.h").write_text(header_text)
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include <string.h>\n#include "fake_cuda.h"\n#include "k.h"\n'
        "#define CHECK(x) printf(\"RESULT %s %d\\n\", #x, (int)(x))\n"
        f"int main(void)\n{{\n{body}\n    return 0;\n}}\n")
    exe = tmp_path / "main"
    run([CC, *C_FLAGS, *[f"-D{d}" for d in defines], "-I", CUDA_INCLUDE, "-I", str(FAKE),
         str(tmp_path / "main.c"), str(FAKE / "fake_cuda.c"), "-o", str(exe)])
    return run([str(exe)]).stdout.splitlines()


def calls(lines, name):
    return [line for line in lines if line.startswith(f"CALL {name}")]


def le(fmt, value) -> str:
    return struct.pack("<" + fmt, value).hex()


VECTOR_ADD_SIZES = "fake_num_params = 4; fake_param_sizes[0] = 8; fake_param_sizes[1] = 8; " \
                   "fake_param_sizes[2] = 8; fake_param_sizes[3] = 4;"


def test_launch_passes_arguments_and_shape(tmp_path, vector_add_kernel):
    lines = build_and_run(tmp_path, generate_c_header(vector_add_kernel), f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(7);
    CHECK(vector_add((CUstream)5, 3, 2, 1, 0x1000, 0x2008, 0x3004, 1024));
    CHECK(vector_add((CUstream)5, 1, 1, 1, 0x1010, 0x2010, 0x3000, -8));
    CHECK(vector_add_last_error() == NULL);
    CHECK(vector_add_metadata.num_warps);
    CHECK(vector_add_metadata.block_threads);
    CHECK(strcmp(vector_add_metadata.defines, "TM=128"));
    CHECK(strcmp(vector_add_metadata.arch, "sm_90"));
    """)
    loads = calls(lines, "cuModuleLoadData")
    assert loads == ["CALL cuModuleLoadData context=7 elf=1 aligned16=1"]
    assert calls(lines, "cuModuleGetFunction") == ["CALL cuModuleGetFunction module=1 name=vector_add"]
    assert not calls(lines, "cuFuncSetAttribute")
    launches = calls(lines, "cuLaunchKernel")
    args0 = ",".join([le("Q", 0x1000), le("Q", 0x2008), le("Q", 0x3004), le("i", 1024)])
    assert launches[0] == ("CALL cuLaunchKernel name=vector_add module=1 grid=3,2,1 block=128,1,1 "
                           f"shared=0 stream=5 params_null=0 extra_null=1 args={args0}")
    assert launches[1].endswith("args=" + ",".join([le("Q", 0x1010), le("Q", 0x2010), le("Q", 0x3000),
                                                     le("i", -8)]))
    assert "RESULT vector_add((CUstream)5, 3, 2, 1, 0x1000, 0x2008, 0x3004, 1024) 0" in lines
    assert "RESULT vector_add_metadata.num_warps 4" in lines
    assert "RESULT vector_add_metadata.block_threads 128" in lines
    assert "RESULT strcmp(vector_add_metadata.defines, \"TM=128\") 0" in lines
    assert "RESULT strcmp(vector_add_metadata.arch, \"sm_90\") 0" in lines


@pytest.mark.parametrize("args,what", [
    ("0x1008, 0x2008, 0x3000, 1024", "'x' is not a multiple of 16 bytes, breaking __aligned(16)"),
    ("0x1000, 0x2004, 0x3000, 1024", "'y' is not a multiple of 8 bytes, breaking __multipleof(8)"),
    ("0x1000, 0x2008, 0x3000, 1022", "'n' is not a multiple of 4, breaking __multipleof(4)"),
])
def test_broken_promise_is_refused_before_any_cuda_call(tmp_path, vector_add_kernel, args, what):
    lines = build_and_run(tmp_path, generate_c_header(vector_add_kernel), f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(7);
    CHECK(vector_add(NULL, 1, 1, 1, {args}) == CUDA_ERROR_INVALID_VALUE);
    printf("MESSAGE %s\\n", vector_add_last_error());
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2008, 0x3000, 1024));
    CHECK(vector_add_last_error() == NULL);
    """)
    assert lines[0] == f"RESULT vector_add(NULL, 1, 1, 1, {args}) == CUDA_ERROR_INVALID_VALUE 1"
    assert lines[1] == f"MESSAGE vector_add: the address passed for {what}" or \
        lines[1] == f"MESSAGE vector_add: the value passed for {what}"
    assert len(calls(lines, "cuLaunchKernel")) == 1  # only the good launch
    assert "RESULT vector_add_last_error() == NULL 1" in lines


def test_empty_grid_and_missing_context(tmp_path, vector_add_kernel):
    lines = build_and_run(tmp_path, generate_c_header(vector_add_kernel), f"""
    {VECTOR_ADD_SIZES}
    CHECK(vector_add(NULL, 0, 1, 1, 0, 0, 0, 0) == CUDA_SUCCESS);
    CHECK(vector_add(NULL, 4, 1, 0, 0, 0, 0, 0) == CUDA_SUCCESS);
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0) == CUDA_ERROR_INVALID_CONTEXT);
    CHECK(vector_add_load() == CUDA_ERROR_INVALID_CONTEXT);
    fake_module_load_result = CUDA_ERROR_NO_BINARY_FOR_GPU;
    fake_current_context = fake_context(3);
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    CHECK(fake_launches);
    """)
    assert all(line.endswith(" 1") for line in lines if line.startswith("RESULT") and "==" in line), lines
    assert "RESULT fake_launches 0" in lines


def test_module_per_context_lazy_load_and_unload(tmp_path, vector_add_kernel):
    lines = build_and_run(tmp_path, generate_c_header(vector_add_kernel), f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(1);
    CHECK(vector_add_load());
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0));
    fake_current_context = fake_context(2);
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0));
    fake_current_context = fake_context(1);
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0));
    CHECK(vector_add_unload());
    CHECK(vector_add_unload());
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0));
    fake_current_context = fake_context(3);
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0) == CUDA_ERROR_OUT_OF_MEMORY);
    """, defines=["TRITONC_MAX_CONTEXTS=2"])
    assert calls(lines, "cuModuleLoadData") == [
        "CALL cuModuleLoadData context=1 elf=1 aligned16=1",
        "CALL cuModuleLoadData context=2 elf=1 aligned16=1",
        "CALL cuModuleLoadData context=1 elf=1 aligned16=1"]
    assert calls(lines, "cuModuleUnload") == ["CALL cuModuleUnload module=1"]
    modules = [line.split(" module=")[1].split()[0] for line in calls(lines, "cuLaunchKernel")]
    assert modules == ["1", "2", "1", "3"]
    assert lines[-1] == "RESULT vector_add(NULL, 1, 1, 1, 0, 0, 0, 0) == CUDA_ERROR_OUT_OF_MEMORY 1"


def test_every_scalar_width(tmp_path, scalar_args_kernel):
    sizes = [8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1]
    set_sizes = f"fake_num_params = {len(sizes)}; " + " ".join(
        f"fake_param_sizes[{i}] = {s};" for i, s in enumerate(sizes))
    half_bits = int(np.float16(1.5).view(np.uint16))
    bf16_bits = 0x4049  # 3.140625
    lines = build_and_run(tmp_path, generate_c_header(scalar_args_kernel), f"""
    {set_sizes}
    fake_current_context = fake_context(1);
    CHECK(scalar_args(NULL, 1, 1, 1, 0xdeadbeef00ull, -5, -300, -70000, -5000000000ll, 250, 65000,
                      4000000000u, 18000000000000000000ull, {half_bits}, {bf16_bits}, 2.5f, -0.125, true));
    CHECK(scalar_args(NULL, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0.0, 0));
    """)
    launches = calls(lines, "cuLaunchKernel")
    expected = [le("Q", 0xdeadbeef00), le("b", -5), le("h", -300), le("i", -70000), le("q", -5000000000),
                le("B", 250), le("H", 65000), le("I", 4000000000), le("Q", 18000000000000000000),
                le("H", half_bits), le("H", bf16_bits), le("f", 2.5), le("d", -0.125), "01"]
    assert launches[0].split("args=")[1] == ",".join(expected)
    assert " block=32,1,1 " in launches[0]
    assert launches[1].split("args=")[1].endswith(",00")


def test_two_kernels_share_one_module_and_big_shared_memory(tmp_path):
    a = make_kernel("vector_add", VECTOR_ADD_PARAMS, ll_name="both.ll")
    b = make_kernel("scalar_args", SCALAR_ARGS_PARAMS, ll_name="both.ll", shared_bytes=65536, num_warps=8)
    lines = build_and_run(tmp_path, generate_c_header([a, b]), """
    fake_current_context = fake_context(9);
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0));
    CHECK(scalar_args(NULL, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0.0, 0));
    CHECK(scalar_args_unload());
    CHECK(vector_add(NULL, 1, 1, 1, 0, 0, 0, 0));
    CHECK(scalar_args_metadata.shared_bytes);
    """)
    assert len(calls(lines, "cuModuleLoadData")) == 2  # once, then again after the unload
    assert calls(lines, "cuModuleGetFunction")[:2] == ["CALL cuModuleGetFunction module=1 name=vector_add",
                                                      "CALL cuModuleGetFunction module=1 name=scalar_args"]
    assert calls(lines, "cuFuncSetAttribute")[0] == (
        f"CALL cuFuncSetAttribute name=scalar_args attribute="
        f"{CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES} value=65536")
    launches = calls(lines, "cuLaunchKernel")
    assert "name=scalar_args module=1 grid=2,1,1 block=256,1,1 shared=65536" in launches[1]
    assert "name=vector_add module=2" in launches[2]
    assert "RESULT scalar_args_metadata.shared_bytes 65536" in lines


def test_two_translation_units_link(tmp_path, vector_add_kernel):
    (tmp_path / "k.h").write_text(generate_c_header(vector_add_kernel))
    (tmp_path / "a.c").write_text('#include "k.h"\nCUresult launch_a(void) { return vector_add(NULL, 1, 1, 1, 0, 0, 0, 0); }\n')
    (tmp_path / "b.cpp").write_text('#include "k.h"\nextern "C" CUresult launch_a(void);\n'
                                    '#include "fake_cuda.h"\n#include <cstdio>\n'
                                    'int main() { fake_current_context = fake_context(1);\n'
                                    '  std::printf("%d %d\\n", (int)launch_a(), (int)vector_add(NULL, 1, 1, 1, 0, 0, 0, 0)); return 0; }\n')
    objs = []
    for src, compiler, flags in (("a.c", CC, C_FLAGS), ("b.cpp", CXX, CXX_FLAGS), (str(FAKE / "fake_cuda.c"), CC, C_FLAGS)):
        obj = tmp_path / (Path(src).stem + ".o")
        run([compiler, *flags, "-c", "-I", CUDA_INCLUDE, "-I", str(FAKE), str(tmp_path / src), "-o", str(obj)])
        objs.append(str(obj))
    run([CXX, *objs, "-o", str(tmp_path / "prog")])
    out = run([str(tmp_path / "prog")]).stdout.splitlines()
    # Each translation unit has its own module table, so each loads the cubin once.
    assert len(calls(out, "cuModuleLoadData")) == 2
    assert out[-1] == "0 0"


def test_driver_program_compiles_against_real_cuda_h(tmp_path, vector_add_kernel):
    """The GPU test's C driver (tests/gpu/vector_add_driver.c) compiles here; linking needs libcuda."""
    driver = Path(__file__).parent.parent / "gpu" / "vector_add_driver.c"
    (tmp_path / "vector_add.h").write_text(generate_c_header(vector_add_kernel))
    run([CC, *C_FLAGS, "-c", "-I", CUDA_INCLUDE, "-I", str(tmp_path), str(driver), "-o", str(tmp_path / "d.o")])
    assert (tmp_path / "d.o").stat().st_size > 0


def test_compiled_kernel_validation(vector_add_kernel):
    with pytest.raises(ValueError, match="ELF"):
        CompiledKernel(vector_add_kernel.signature, 4, 0, "sm_90", b"not a cubin")
    with pytest.raises(ValueError, match="num_warps"):
        CompiledKernel(vector_add_kernel.signature, 0, 0, "sm_90", vector_add_kernel.cubin)
    with pytest.raises(ValueError, match="arch"):
        CompiledKernel(vector_add_kernel.signature, 4, 0, "sm_70", vector_add_kernel.cubin)


# ----------------------------------------------------------------------------- specialised variants

def vector_add_with_variant(shared_bytes=1024):
    """The fixture kernel with a variant assuming more of y, z and n (as the specialize pass makes)."""
    import dataclasses

    from tritonc.launcher.signature import KernelVariant

    return dataclasses.replace(make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"}), variants=(
        KernelVariant("vector_add__spec16", (("y", "align16"), ("z", "align16"), ("n", "div16")), shared_bytes),))


def test_header_with_variants_compiles_and_describes_them(tmp_path):
    k = vector_add_with_variant()
    text = generate_c_header(k)
    syntax_check(tmp_path, text)
    assert "runs the variant vector_add__spec16 when y % 16 == 0, z % 16 == 0, n % 16 == 0" in text
    assert parse_signature_lines(text)[0]["variants"] == [
        {"name": "vector_add__spec16", "facts": {"y": "align16", "z": "align16", "n": "div16"},
         "specialization": "y % 16 == 0, z % 16 == 0, n % 16 == 0", "shared_bytes": 1024}]
    assert "vector_add__spec16(" not in text  # no public function for a variant


STRIDED_PARAMS = (KernelParam("x", "pointer", "float32"), KernelParam("s", "scalar", "int64"),
                  KernelParam("n", "scalar", "uint32"))


def strided_with_variants():
    """A kernel with an ``eq1`` variant (a unit stride), then an all-``div16`` one (as the
    specialize pass makes for a stride-like parameter)."""
    import dataclasses

    from tritonc.launcher.signature import KernelVariant

    return dataclasses.replace(make_kernel("strided", STRIDED_PARAMS, ll_name="vector_add.ll"), variants=(
        KernelVariant("strided__spec_s1_d16", (("x", "align16"), ("s", "eq1"), ("n", "div16"))),
        KernelVariant("strided__spec_s1", (("x", "align16"), ("s", "eq1"))),
        KernelVariant("strided__spec16", (("x", "align16"), ("s", "div16"), ("n", "div16")))))


def test_launch_dispatches_on_unit_strides(tmp_path):
    text = generate_c_header(strided_with_variants())
    assert "(s == INT64_C(1))" in text and "(n % 16u) == 0" in text
    assert "runs the variant strided__spec_s1_d16 when x % 16 == 0, s == 1, n % 16 == 0" in text
    lines = build_and_run(tmp_path, text, """
    fake_num_params = 3; fake_param_sizes[0] = 8; fake_param_sizes[1] = 8; fake_param_sizes[2] = 4;
    fake_current_context = fake_context(1);
    CHECK(strided(NULL, 1, 1, 1, 0x1000, 1, 32));    /* unit stride, n % 16 == 0 */
    CHECK(strided(NULL, 1, 1, 1, 0x1000, 1, 33));    /* unit stride only */
    CHECK(strided(NULL, 1, 1, 1, 0x1000, 16, 32));   /* everything a multiple of 16 */
    CHECK(strided(NULL, 1, 1, 1, 0x1000, -1, 32));   /* a stride of -1 is not 1 */
    CHECK(strided(NULL, 1, 1, 1, 0x1004, 1, 32));    /* unaligned: the generic kernel */
    """)
    launches = [line.split(" name=")[1].split()[0] for line in calls(lines, "cuLaunchKernel")]
    assert launches == ["strided__spec_s1_d16", "strided__spec_s1", "strided__spec16", "strided", "strided"]


def test_launch_dispatches_to_the_variant_whose_assumptions_hold(tmp_path):
    lines = build_and_run(tmp_path, generate_c_header(vector_add_with_variant()), f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(4);
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2010, 0x3000, 1024));  /* all assumptions hold */
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2008, 0x3000, 1024));  /* y only 8-byte aligned */
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2010, 0x3004, 1024));  /* z only 4-byte aligned */
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2010, 0x3000, 1028));  /* n % 16 == 4 */
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2010, 0x3000, -32));   /* negative multiples count */
    CHECK(vector_add(NULL, 1, 1, 1, 0x1008, 0x2010, 0x3000, 1024) == CUDA_ERROR_INVALID_VALUE);
    """)
    assert calls(lines, "cuModuleGetFunction") == ["CALL cuModuleGetFunction module=1 name=vector_add",
                                                   "CALL cuModuleGetFunction module=1 name=vector_add__spec16"]
    launches = [(line.split(" name=")[1].split()[0], line.split(" shared=")[1].split()[0])
                for line in calls(lines, "cuLaunchKernel")]
    assert launches == [("vector_add__spec16", "1024"), ("vector_add", "0"), ("vector_add", "0"),
                        ("vector_add", "0"), ("vector_add__spec16", "1024")]
    assert all(line.endswith(" 0") or line.endswith(" 1") for line in lines if line.startswith("RESULT"))


def test_variant_with_big_shared_memory_gets_the_limit_raised(tmp_path):
    lines = build_and_run(tmp_path, generate_c_header(vector_add_with_variant(shared_bytes=80 * 1024)), f"""
    {VECTOR_ADD_SIZES}
    fake_current_context = fake_context(1);
    CHECK(vector_add(NULL, 1, 1, 1, 0x1000, 0x2010, 0x3000, 16));
    """)
    assert calls(lines, "cuFuncSetAttribute") == [
        f"CALL cuFuncSetAttribute name=vector_add__spec16 attribute="
        f"{CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES} value={80 * 1024}"]
    assert " shared=81920 " in calls(lines, "cuLaunchKernel")[0]


def test_launch_dispatches_on_a_bound(tmp_path):
    """``le1024``: the C test ``(n <= 1024u)`` (n is unsigned here) picks the variant with the one-tile branch decided."""
    import dataclasses

    from tritonc.launcher.signature import KernelVariant

    k = dataclasses.replace(make_kernel("strided", STRIDED_PARAMS, ll_name="vector_add.ll"), variants=(
        KernelVariant("strided__spec16_le", (("x", "align16"), ("n", "div16"), ("n", "le1024"))),
        KernelVariant("strided__spec16", (("x", "align16"), ("n", "div16")))))
    text = generate_c_header(k)
    assert "(n <= 1024u)" in text and "when x % 16 == 0, n % 16 == 0, n <= 1024" in text
    lines = build_and_run(tmp_path, text, """
    fake_num_params = 3; fake_param_sizes[0] = 8; fake_param_sizes[1] = 8; fake_param_sizes[2] = 4;
    fake_current_context = fake_context(1);
    CHECK(strided(NULL, 1, 1, 1, 0x1000, 1, 1024));   /* n <= 1024 */
    CHECK(strided(NULL, 1, 1, 1, 0x1000, 1, 1040));   /* above the bound */
    CHECK(strided(NULL, 1, 1, 1, 0x1000, 1, 1000));   /* under it, not a multiple of 16 */
    """)
    launches = [line.split(" name=")[1].split()[0] for line in calls(lines, "cuLaunchKernel")]
    assert launches == ["strided__spec16_le", "strided__spec16", "strided"]
