"""What ``tritonc`` writes: output kinds and names, stdout, the informational options, the
options that change what is compiled, stdin input and atomic writes."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cli_helpers import ELF_MAGIC, EXAMPLES_DIR, leftovers, tritonc, tritonc_process
from tritonc import __version__
from tritonc.driver import TT_PIPELINE, TTG_PIPELINE
from tritonc.launcher.signature import parse_signature_lines

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"
MATMUL = EXAMPLES_DIR / "matmul.tri"
REDUCE = EXAMPLES_DIR / "reduce.tri"

#: A quick look at each output kind: does the text (or the bytes) look like that kind?
LOOKS_LIKE = {
    "cubin": lambda data: data[:4] == ELF_MAGIC,
    "ptx": lambda data: b".target sm_90" in data and b".entry vector_add" in data,
    "llir": lambda data: b'target triple = "nvptx64-nvidia-cuda"' in data and b"define ptx_kernel" in data,
    "ttir": lambda data: data.startswith(b"module") and b"tt.func @vector_add" in data and b"#blocked" not in data,
    "ttgir": lambda data: b"#ttg.blocked<" in data and b"tt.func @vector_add" in data,
    "header": lambda data: b"#include <cuda.h>" in data and b"tritonc_vector_add_cubin[" in data,
    "py": lambda data: b"def vector_add(" in data and b"_CUBIN" in data,
}
SUFFIXES = {"cubin": ".cubin", "ptx": ".ptx", "llir": ".ll", "ttir": ".ttir", "ttgir": ".ttgir",
            "header": ".h", "py": ".py"}


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def ok(*args, **kw):
    run = tritonc(*args, **kw)
    assert run.status == 0, run.output
    return run


# ----------------------------------------------------------------------------- output files

def test_matmul_to_cubin_in_a_new_folder(in_tmp):
    run = ok(MATMUL, "-o", "OUT/matmul.cubin")
    assert run.stdout == "" and run.stderr == ""
    data = (in_tmp / "OUT" / "matmul.cubin").read_bytes()
    assert data[:4] == ELF_MAGIC and len(data) > 1000
    assert files_in(in_tmp) == ["OUT/matmul.cubin"]


def test_several_kinds_next_to_the_base_name(in_tmp):
    ok(VECTOR_ADD, "--emit=ptx,header,py", "-o", "build/va")
    assert files_in(in_tmp) == ["build/va.h", "build/va.ptx", "build/va.py"]
    for kind in ("ptx", "header", "py"):
        assert LOOKS_LIKE[kind]((in_tmp / "build" / f"va{SUFFIXES[kind]}").read_bytes()), kind


def test_several_kinds_with_a_suffixed_base_name(in_tmp):
    """-o va.cubin --emit=cubin,ptx: the known suffix is dropped from the base name."""
    ok(VECTOR_ADD, "--emit=cubin,ptx", "-o", "va.cubin")
    assert files_in(in_tmp) == ["va.cubin", "va.ptx"]


def test_all_kinds_at_once(in_tmp):
    ok(VECTOR_ADD, "--emit=" + ",".join(SUFFIXES), "-o", "all")
    assert files_in(in_tmp) == sorted(f"all{s}" for s in SUFFIXES.values())
    for kind, suffix in SUFFIXES.items():
        assert LOOKS_LIKE[kind]((in_tmp / f"all{suffix}").read_bytes()), kind


@pytest.mark.parametrize("kind", SUFFIXES)
def test_kind_from_the_output_suffix(in_tmp, kind):
    name = "out" + SUFFIXES[kind]
    ok(VECTOR_ADD, "-o", name)
    assert files_in(in_tmp) == [name]
    assert LOOKS_LIKE[kind]((in_tmp / name).read_bytes())


def test_unknown_suffix_means_cubin(in_tmp):
    ok(VECTOR_ADD, "-o", "kernel.bin")
    assert (in_tmp / "kernel.bin").read_bytes()[:4] == ELF_MAGIC


def test_emit_overrides_the_suffix(in_tmp):
    ok(VECTOR_ADD, "--emit=ptx", "-o", "va.cubin")
    assert LOOKS_LIKE["ptx"]((in_tmp / "va.cubin").read_bytes())


def test_default_output_name_is_the_source_stem_in_cwd(in_tmp):
    ok(VECTOR_ADD)
    ok(VECTOR_ADD, "--emit=ptx,ttir")
    assert files_in(in_tmp) == ["vector_add.cubin", "vector_add.ptx", "vector_add.ttir"]


def test_output_files_have_the_usual_mode(in_tmp):
    old = os.umask(0o022)
    try:
        ok(VECTOR_ADD, "--emit=ptx,cubin", "-o", "va")
    finally:
        os.umask(old)
    assert {(in_tmp / f).stat().st_mode & 0o777 for f in ("va.ptx", "va.cubin")} == {0o644}


# ----------------------------------------------------------------------------- standard output

def test_dash_o_dash_prints_text(in_tmp):
    run = ok(VECTOR_ADD, "--emit=ttir", "-o", "-")
    assert LOOKS_LIKE["ttir"](run.stdout_bytes)
    assert run.stderr == ""
    assert files_in(in_tmp) == []


def test_dash_o_dash_kind_from_emit_only(in_tmp):
    """'-o -' has no suffix: without --emit it is the cubin, as bytes on stdout."""
    run = ok(VECTOR_ADD, "-o", "-")
    assert run.stdout_bytes[:4] == ELF_MAGIC
    assert files_in(in_tmp) == []


# ----------------------------------------------------------------------------- information

def test_version():
    run = ok("--version")
    assert run.stdout == f"tritonc, version {__version__}\n"


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_shows_usage_options_and_examples(flag):
    text = ok(flag).stdout
    assert text.startswith("Usage: tritonc [OPTIONS] SOURCE")
    for option in ("-o, --output", "--emit", "-D NAME[=VALUE]", "-I DIR", "--tune", "--kernel", "--num-warps",
                   "--num-stages", "--arch", "--print-ir-after", "--print-ir-after-all", "--time-passes", "--version"):
        assert option in text, option
    assert "Examples:" in text
    assert "  tritonc matmul.tri -o matmul.cubin" in text
    assert "tritonc matmul.tri -o build/matmul --emit=cubin,ptx,header,py" in text


def test_help_lists_every_codegen_flag():
    import dataclasses

    from tritonc.options import CodegenOptions

    text = ok("--help").stdout
    assert "-f FLAG" in text
    for f in dataclasses.fields(CodegenOptions):
        assert f"{f.name.replace('_', '-')}" in text, f.name


@pytest.mark.parametrize("flags, present, absent", [
    ((), ["rcp.rn.f32"], ["div.rn.f32"]),  # e / e[+]: one reciprocal, multiplies (no div.rn per element)
    (("-ff32-division=rn",), ["div.rn.f32"], ["div.full.f32", "rcp.rn.f32"]),
    (("-fno-read-only-cache",), ["ld.global.b32"], ["ld.global.nc"]),
    (("-fload-cache-op=cg", "-fload-eviction=L1::no_allocate"), ["ld.global.cg.nc.L1::no_allocate.b32"], ["ld.global.nc.b32"]),
    (("-fload-eviction=L1::no_allocate", "-fload-prefetch=L2::256B"), ["ld.global.nc.L1::no_allocate.L2::256B.b32"],
     ["ld.global.nc.b32"]),
    ((), ["ex2.approx.ftz.f32"], ["ex2.approx.f32"]),  # exp flushes subnormal results by default
    (("-fno-exp-ftz",), ["ex2.approx.f32"], ["ex2.approx.ftz.f32"]),
])
def test_codegen_flags_reach_the_ptx(flags, present, absent):
    """-f flags go through the driver to the lowering (softmax: '/' and masked loads)."""
    ptx = ok(EXAMPLES_DIR / "softmax.tri", "-D", "BLOCK=1024", "--arch", "sm_90", *flags, "--emit=ptx", "-o", "-").stdout
    for text in present:
        assert text in ptx, text
    for text in absent:
        assert text not in ptx, text


def test_help_needs_no_source():
    assert tritonc_process("--help").status == 0


# ----------------------------------------------------------------------------- debugging output

FOLDS = "void k(int *p) {\n  int r[16] = 0 ... 16;\n  *(p + r) = (r + 0) * 1;\n}\n"


def dumps(stderr: str) -> list[tuple[str, str]]:
    """``(pass name, dumped text)`` for each IR dump in ``stderr`` (changed or not)."""
    parts = re.split(r"^// -----// IR Dump After (\S+)(?: \(unchanged\))? //----- //\n", stderr, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def test_print_ir_after_one_pass(in_tmp):
    (in_tmp / "k.tri").write_text(FOLDS)
    run = ok("k.tri", "--print-ir-after=canonicalize", "--emit=ttir", "-o", "-")
    shown = dumps(run.stderr)
    assert [name for name, _ in shown] == ["canonicalize"] * TT_PIPELINE.count("canonicalize")
    first = shown[0][1]
    assert "tt.func @k" in first and "arith.muli" not in first and "arith.addi" not in first
    assert run.stdout.startswith("module")  # the dumps do not go to stdout
    assert "IR Dump" not in run.stdout


def test_print_ir_after_a_pass_that_changes_nothing_shows_the_ir(in_tmp):
    """licm has nothing to hoist here: the header says so, and the IR is printed all the same."""
    (in_tmp / "k.tri").write_text(FOLDS)
    run = ok("k.tri", "--print-ir-after=licm", "--emit=ttir", "-o", "-")
    header = "// -----// IR Dump After licm (unchanged) //----- //"
    assert run.stderr.startswith(header + "\nmodule")
    assert "tt.func @k" in run.stderr and "tt.store" in run.stderr


def test_print_ir_after_all(in_tmp):
    run = ok(VECTOR_ADD, "--print-ir-after-all", "--emit=ttgir", "-o", "va.ttgir")
    assert [name for name, _ in dumps(run.stderr)] == list(TT_PIPELINE + TTG_PIPELINE)
    assert run.stdout == ""
    assert files_in(in_tmp) == ["va.ttgir"]


def test_print_ir_after_repeated(in_tmp):
    run = ok(VECTOR_ADD, "--print-ir-after", "cse", "--print-ir-after", "assign-layouts", "--emit=ttgir", "-o", "-")
    names = [name for name, _ in dumps(run.stderr)]
    assert names == [n for n in TT_PIPELINE + TTG_PIPELINE if n in ("cse", "assign-layouts")]
    (layouts,) = [text for name, text in dumps(run.stderr) if name == "assign-layouts"]
    assert "#ttg.blocked<" in layouts


def test_time_passes_prints_a_table(in_tmp):
    run = ok(VECTOR_ADD, "--time-passes", "--emit=ttir", "-o", "va.ttir")
    lines = run.stderr.splitlines()
    assert any("Pass execution timing report" in line for line in lines)
    rows = [m.group(1) for m in (re.match(r"\s+\d+\.\d+ \(\s*\d+\.\d%\)\s+(\S.*)$", line) for line in lines) if m]
    stage_table = rows.index("Total") + 1
    assert rows[:stage_table] == [*TT_PIPELINE, "(verify)", "Total"]
    assert "Compilation stage timing report" in run.stderr
    assert rows[stage_table:] == ["imports (frontend)", "preprocess", "parse", "cost model", "sema + irgen", "grids",
                                  "tt passes", "Total"]
    assert run.stdout == ""


def test_time_passes_covers_every_stage_down_to_the_launchers(in_tmp):
    run = ok(VECTOR_ADD, "--time-passes", "--num-warps", "4", "--num-stages", "3", "--emit=cubin,py", "-o", "va")
    table = run.stderr.split("Compilation stage timing report")[1]
    stages = [m.group(1) for m in (re.match(r"\s+\d+\.\d+ \(\s*\d+\.\d%\)\s+(\S.*)$", line)
                                   for line in table.splitlines()) if m]
    assert stages == ["imports (frontend)", "preprocess", "parse", "sema + irgen", "grids", "tt passes",
                      "ttg passes", "lowering to LLVM IR", "LLVM (opt + NVPTX)", "nvJitLink", "launchers", "Total"]


# ----------------------------------------------------------------------------- what is compiled

@pytest.mark.parametrize("kernel, other", [("row_sum", "col_sum"), ("col_sum", "row_sum")])
def test_kernel_selects_one_of_a_multi_kernel_file(in_tmp, kernel, other):
    ok(REDUCE, "--kernel", kernel, "--emit=ttir,header,py", "-o", "r")
    ttir = (in_tmp / "r.ttir").read_text()
    assert f"tt.func @{kernel}(" in ttir and f"@{other}" not in ttir
    assert [k["name"] for k in parse_signature_lines((in_tmp / "r.h").read_text())] == [kernel]
    assert [k["name"] for k in parse_signature_lines((in_tmp / "r.py").read_text())] == [kernel]


def test_without_kernel_every_kernel_is_compiled(in_tmp):
    ok(REDUCE, "--emit=header", "-o", "r.h")
    assert [k["name"] for k in parse_signature_lines((in_tmp / "r.h").read_text())] == ["row_sum", "col_sum"]


def test_define_sets_a_macro(in_tmp):
    run = ok(VECTOR_ADD, "-D", "BLOCK=256", "--emit=ttir", "-o", "-")
    assert "tt.make_range {end = 256, start = 0} : i32[256]" in run.stdout
    assert "1024" not in run.stdout


def test_define_without_value_and_with_commas(in_tmp):
    """-D NAME is '#define NAME 1'; a value may hold commas (a subscript's entries)."""
    (in_tmp / "k.tri").write_text(
        "#ifdef DOUBLE\n#define F 2\n#else\n#define F 1\n#endif\n"
        "void k(float *p) {\n  float x[8, 16] = 0;\n  *(p + (0 ... 8)) = x[RED] * F;\n}\n")
    run = ok("k.tri", "-D", "DOUBLE", "-D", "RED=:,+", "--emit=ttir", "-o", "-")
    assert "tt.reduce" in run.stdout and "axis = 1" in run.stdout


def test_define_is_recorded_in_the_launchers(in_tmp):
    ok(VECTOR_ADD, "-D", "BLOCK=256", "--emit=header,py", "-o", "va")
    for name in ("va.h", "va.py"):
        (meta,) = parse_signature_lines((in_tmp / name).read_text())
        assert meta["defines"] == {"BLOCK": "256"}


def test_include_dir(in_tmp):
    (in_tmp / "inc").mkdir()
    (in_tmp / "inc" / "config.h").write_text(
        "#define BLOCK 128\n__device__ float[BLOCK] twice(float x[BLOCK]) {\n  return x * 2.0f;\n}\n")
    (in_tmp / "src").mkdir()
    (in_tmp / "src" / "k.tri").write_text(
        '#include "config.h"\nvoid k(float *p) {\n  int r[BLOCK] = 0 ... BLOCK;\n  *(p + r) = twice(*(p + r));\n}\n')
    run = ok("src/k.tri", "-I", "inc", "--emit=ttir", "-o", "-")
    assert "i32[128]" in run.stdout and "arith.mulf" in run.stdout and "tt.call" not in run.stdout
    assert tritonc("src/k.tri", "--emit=ttir", "-o", "-").status == 1  # not found without -I


def test_tune_list_makes_variants_and_ir_shows_the_default(in_tmp):
    # sm_90a, large problem: TM=32 and TM=64 variants, TN / TK from the file's own lists by the
    # cost model; the IR printed is the default variant's, the one the model ranks fastest
    run = ok(MATMUL, "--tune", "TM=32,64", "--emit=ttir", "-o", "-", "-v", "-j", "1")
    assert "tritonc: 2 variant(s), 2 kept, compiled with 1 process(es)" in run.stderr
    m = re.search(r"tritonc:   v\d TM=(\d+): TM=\d+ TN=(\d+) TK=(\d+) .*\(default\)", run.stderr)
    assert m and m.group(1) in ("32", "64")
    assert f"f32[{m.group(1)},{m.group(2)}]" in run.stdout


def test_variants_into_one_header_and_module(in_tmp):
    run = ok(VECTOR_ADD, "--tune", "BLOCK=256,512", "--num-warps", "4,8", "--emit=header,py", "-o", "va", "-j", "2")
    header, module = Path("va.h").read_text(), Path("va.py").read_text()
    assert [d["name"] for d in parse_signature_lines(header)] == [f"vector_add__v{i}" for i in range(4)]
    assert "CUresult vector_add_by_id(CUstream stream," in header and "vector_add_num_variants(void)" in header
    assert "_vector_add_variants = (vector_add__v0, vector_add__v1, vector_add__v2, vector_add__v3,)" in module
    assert run.stderr == ""


@pytest.mark.parametrize("args, message", [
    (["--num-warps", "4,3"], "Invalid value for --num-warps: 3 is not a power of two from 1 to 32"),
    (["--num-stages", "3,0"], "Invalid value for --num-stages: 0 is not a positive number of stages"),
    (["-j", "0"], "Invalid value for -j: 0 is not a positive number of processes"),
    (["--num-warps", "4,8", "--ptxas"], "Invalid value for --ptxas: variants are linked into one cubin by nvJitLink"),
])
def test_variant_list_usage_errors(in_tmp, args, message):
    run = tritonc(VECTOR_ADD, *args, "-o", "v.cubin")
    assert run.status == 2 and message in run.stderr
    assert not Path("v.cubin").exists()


def test_one_value_tune_fixes_a_tunable(in_tmp):
    run = ok(MATMUL, "--tune", "TM=64", "--tune", "TN=64", "--tune", "TK=32", "--emit=ttir", "-o", "-")
    assert "f32[64,64]" in run.stdout


def test_tune_of_a_macro(in_tmp):
    run = ok(VECTOR_ADD, "--tune", "BLOCK=512,1024", "--emit=ttir", "-o", "-")
    assert "i32[512]" in run.stdout and "1024" not in run.stdout


def test_tune_of_a_macro_the_source_only_tests(in_tmp, tmp_path):
    # '#ifndef TM' is a use: --tune TM=... sets the macro the file would otherwise define
    src = tmp_path / "t.tri"
    src.write_text("#ifndef TM\n#define TM 16\n#endif\nvoid k(float *X) {\n  int r[TM] = 0 ... TM;\n"
                   "  *(X + r) = 1.0f;\n}\n")
    run = ok(src, "--tune", "TM=32,64", "--emit=ttir", "-o", "-")
    assert "i32[32]" in run.stdout


def test_verbose_prints_the_cost_models_choice(in_tmp):
    run = ok(MATMUL, "-o", "m.ptx", "-v", "--hint", "M=512,N=512", "--hint", "K=16384")
    assert "problem M=512, N=512, K=16384 (--hint)" in run.stderr
    assert "tritonc:   chose TM=64 TN=64" in run.stderr
    assert run.stderr.rstrip().splitlines()[-1].startswith("tritonc: compiled with TM=64 TN=64")


def test_verbose_with_everything_fixed(in_tmp):
    run = ok(VECTOR_ADD, "-o", "v.ptx", "-v", "--num-warps", "4", "--num-stages", "3")
    assert "every meta-parameter was fixed on the command line; the cost model did not run" in run.stderr


def test_command_line_grid_reaches_the_launchers(in_tmp):
    run = ok(VECTOR_ADD, "--grid", "cdiv(N, BLOCK) * 2", "--emit=py", "-o", "-")
    assert "The declared grid (cdiv(N, 1024) * 2)." in run.stdout


def test_bad_command_line_grid_is_a_located_error(in_tmp):
    run = tritonc(VECTOR_ADD, "--grid", "cdiv(N, Z)", "-o", "v.cubin")
    assert run.status == 1
    assert run.stderr.startswith("<--grid>:1:16: error: grid expressions use integer parameters; 'Z' of kernel "
                                 "'vector_add' is a pointer")
    assert not Path("v.cubin").exists()


def test_define_beats_tune(in_tmp):
    run = ok(MATMUL, "-D", "TM=64", "--tune", "TM=128", "--emit=ttir", "-o", "-")
    assert "i32[64]" in run.stdout and "i32[128]" not in run.stdout


def test_arch_and_num_warps_reach_the_ptx(in_tmp):
    run = ok(VECTOR_ADD, "--arch", "sm_80", "--num-warps", "8", "--emit=ptx", "-o", "-")
    assert ".target sm_80" in run.stdout
    assert re.search(r"\.maxntid 256\b", run.stdout)


# ----------------------------------------------------------------------------- standard input

def test_stdin_source(in_tmp):
    run = ok("-", "--emit=ttir", "-o", "-", input=VECTOR_ADD.read_text())
    assert LOOKS_LIKE["ttir"](run.stdout_bytes)


def test_stdin_source_default_output_name(in_tmp):
    ok("-", input=VECTOR_ADD.read_text())
    assert files_in(in_tmp) == ["a.cubin"]


def test_stdin_through_the_installed_command(tmp_path):
    run = tritonc_process("-", "--emit=ptx", "-o", "-", input=VECTOR_ADD.read_bytes(), cwd=tmp_path)
    assert run.status == 0, run.stderr
    assert LOOKS_LIKE["ptx"](run.stdout_bytes)


# ----------------------------------------------------------------------------- atomic writes

def test_failing_compile_leaves_an_existing_output_untouched(in_tmp):
    ok(VECTOR_ADD, "-o", "va.cubin")
    before = (in_tmp / "va.cubin").read_bytes()
    stamp = (in_tmp / "va.cubin").stat().st_mtime_ns
    (in_tmp / "bad.tri").write_text("void vector_add(float *p) {\n  *p = x;\n}\n")
    assert tritonc("bad.tri", "-o", "va.cubin").status == 1
    assert (in_tmp / "va.cubin").read_bytes() == before
    assert (in_tmp / "va.cubin").stat().st_mtime_ns == stamp
    assert leftovers(in_tmp) == []


def test_failing_compile_leaves_every_existing_output_untouched(in_tmp):
    ok(VECTOR_ADD, "--emit=ptx,header", "-o", "va")
    before = {f: (in_tmp / f).read_bytes() for f in ("va.ptx", "va.h")}
    assert tritonc(VECTOR_ADD, "-D", "BLOCK=48", "--emit=ptx,header", "-o", "va").status == 1
    assert {f: (in_tmp / f).read_bytes() for f in before} == before
    assert files_in(in_tmp) == ["va.h", "va.ptx"]


def test_successful_compile_replaces_the_output(in_tmp):
    (in_tmp / "va.ptx").write_text("old\n")
    ok(VECTOR_ADD, "-o", "va.ptx")
    assert LOOKS_LIKE["ptx"]((in_tmp / "va.ptx").read_bytes())
    assert files_in(in_tmp) == ["va.ptx"]


def test_output_through_a_symlink_keeps_the_link(in_tmp):
    """The link's target is replaced atomically in the target's folder; the link stays."""
    (in_tmp / "out").mkdir()
    (in_tmp / "out" / "real.ptx").write_text("old\n")
    os.symlink("out/real.ptx", in_tmp / "va.ptx")
    ok(VECTOR_ADD, "-o", "va.ptx")
    assert os.path.islink(in_tmp / "va.ptx")
    assert LOOKS_LIKE["ptx"]((in_tmp / "out" / "real.ptx").read_bytes())
    assert leftovers(in_tmp) == [] and leftovers(in_tmp / "out") == []


def test_output_through_a_dangling_symlink_creates_its_target(in_tmp):
    os.symlink("made.ptx", in_tmp / "va.ptx")
    ok(VECTOR_ADD, "-o", "va.ptx")
    assert os.path.islink(in_tmp / "va.ptx") and LOOKS_LIKE["ptx"]((in_tmp / "made.ptx").read_bytes())


def test_output_to_a_fifo_is_written_into_it(in_tmp):
    """A FIFO (like /dev/null, a character device) is written straight into, not replaced."""
    import threading
    import time

    os.mkfifo(in_tmp / "pipe")
    got: list[bytes] = []
    # Non-blocking open: the reader must not wait forever if the FIFO is (wrongly) replaced.
    fd = os.open(in_tmp / "pipe", os.O_RDONLY | os.O_NONBLOCK)

    def read_all() -> None:
        import select

        chunks = []
        while select.select([fd], [], [], 60)[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:  # end of file once the writer is done (before it came: wait)
                if chunks:
                    break
                time.sleep(0.05)
                continue
            chunks.append(chunk)
        got.append(b"".join(chunks))

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    run = tritonc_process(VECTOR_ADD, "--emit=ptx", "-o", in_tmp / "pipe")
    reader.join(timeout=60)
    os.close(fd)
    assert run.status == 0, run.stderr
    assert (in_tmp / "pipe").is_fifo()
    assert got and LOOKS_LIKE["ptx"](got[0])


def test_output_to_a_character_device_keeps_the_device(in_tmp):
    """``-o /dev/null`` writes into the device. As root (where the bug replaced /dev/null with
    a regular file) the test uses its own null device node, so a regression cannot harm the
    machine's; otherwise /dev/null itself, which it cannot replace."""
    import stat

    device = os.devnull
    if os.geteuid() == 0:
        device = str(in_tmp / "null")
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    run = tritonc(VECTOR_ADD, "--emit=ptx", "-o", device)
    assert run.status == 0, run.output
    assert Path(device).is_char_device()
    assert leftovers(in_tmp) == []


@pytest.mark.parametrize("target", ["source", "include", "link to source"])
def test_output_that_is_an_input_is_refused(in_tmp, target):
    """gcc refuses to overwrite its input: exit 1, nothing written, the input unchanged."""
    (in_tmp / "inc.h").write_text("#define BLOCK 1024\n")
    (in_tmp / "k.tri").write_text('#include "inc.h"\n' + VECTOR_ADD.read_text())
    os.symlink("k.tri", in_tmp / "link.tri")
    out = {"source": "k.tri", "include": "inc.h", "link to source": "link.tri"}[target]
    before = {p: (in_tmp / p).read_bytes() for p in ("k.tri", "inc.h")}
    run = tritonc("k.tri", "--emit=header" if target == "include" else "--emit=ptx", "-o", out)
    assert run.status == 1
    named = "inc.h" if target == "include" else "k.tri"
    assert f"output '{out}' is the same file as the input" in run.stderr and named in run.stderr, run.stderr
    assert {p: (in_tmp / p).read_bytes() for p in before} == before
    assert sorted(p.name for p in in_tmp.iterdir()) == ["inc.h", "k.tri", "link.tri"]
