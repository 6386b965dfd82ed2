"""Fatbins (issue 18 item 2): ``--arch sm_80,sm_90a[,...]`` writes a fatbin with each SASS image
and forward-compatible PTX (sm_100 and sm_120 as PTX-only targets), embedded in the header and
the Python module; bad lists are usage errors; each list is its own compile-cache entry."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_helpers import EXAMPLES_DIR, assert_clean, tritonc
from tritonc.codegen.fatbin import FATBIN_MAGIC, build_fatbin, parse_fatbin
from tritonc.multiarch import parse_arch_list, retarget_ptx

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"
PTXAS = shutil.which("ptxas")


def _entries(path: Path) -> list[tuple[str, str]]:
    return [(e.kind, e.arch) for e in parse_fatbin(path.read_bytes())]


def _ptx(path: Path, arch: str) -> str:
    (entry,) = [e for e in parse_fatbin(path.read_bytes()) if e.kind == "ptx" and e.arch == arch]
    assert not entry.compressed
    return entry.payload.rstrip(b"\0").decode()


def test_fatbin_holds_each_sass_image_and_forward_ptx(tmp_path):
    out = tmp_path / "va.fatbin"
    run = tritonc(VECTOR_ADD, "--arch", "sm_80,sm_90a,sm_100,sm_120", "-o", out, "--no-cache")
    assert run.status == 0, run.output
    data = out.read_bytes()
    assert data[:4] == FATBIN_MAGIC == b"\x50\xed\x55\xba"
    assert _entries(out) == [("elf", "sm_80"), ("elf", "sm_90a"), ("ptx", "sm_80"), ("ptx", "sm_100"),
                             ("ptx", "sm_120")]
    # each SASS image is the cubin a one-arch build writes
    for arch in ("sm_80", "sm_90a"):
        cubin = tmp_path / f"{arch}.cubin"
        assert tritonc(VECTOR_ADD, "--arch", arch, "-o", cubin, "--no-cache").status == 0
        (entry,) = [e for e in parse_fatbin(data) if e.kind == "elf" and e.arch == arch]
        assert entry.payload[:len(cubin.read_bytes())] == cubin.read_bytes()
    # PTX: sm_80's for newer GPUs; the PTX-only targets retargeted to a PTX version that knows them
    assert re.search(r"^\.target sm_80$", _ptx(out, "sm_80"), re.MULTILINE)
    for arch, version in (("sm_100", "8.6"), ("sm_120", "8.7")):
        ptx = _ptx(out, arch)
        assert re.search(rf"^\.target {arch}$", ptx, re.MULTILINE)
        assert re.search(rf"^\.version {re.escape(version)}$", ptx, re.MULTILINE)
        assert "wgmma" not in ptx and ".entry vector_add(" in ptx and ".entry vector_add__spec16(" in ptx


@pytest.mark.skipif(PTXAS is None, reason="needs ptxas")
@pytest.mark.parametrize("arch", ["sm_100", "sm_120"])
def test_ptx_only_targets_assemble_for_their_arch(tmp_path, arch):
    """The retargeted PTX is valid for the target (ptxas accepts it), so the driver can JIT it."""
    out = tmp_path / "mm.fatbin"
    run = tritonc(EXAMPLES_DIR / "matmul.tri", "--arch", f"sm_80,{arch}", "-o", out, "--no-cache")
    assert run.status == 0, run.output
    ptx = tmp_path / f"{arch}.ptx"
    ptx.write_text(_ptx(out, arch))
    proc = subprocess.run([PTXAS, f"-arch={arch}", str(ptx), "-o", str(tmp_path / "x.cubin")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "mma.sync" in ptx.read_text()  # the sm_80 path: tensor cores without wgmma


def test_arch_specific_only_list_gets_generic_ptx(tmp_path):
    """sm_90a PTX does not JIT on newer GPUs: a build for sm_90a alone carries sm_90 PTX."""
    run = tritonc(VECTOR_ADD, "--arch", "sm_90a", "--emit=fatbin", "-o", tmp_path / "va.fatbin", "--no-cache")
    assert run.status == 0, run.output
    out = tmp_path / "va.fatbin"
    assert _entries(out) == [("elf", "sm_90a"), ("ptx", "sm_90")]
    assert re.search(r"^\.target sm_90$", _ptx(out, "sm_90"), re.MULTILINE)


def test_newest_generic_arch_gives_the_ptx(tmp_path):
    run = tritonc(VECTOR_ADD, "--arch", "sm_86,sm_80,sm_90a,sm_89", "-o", tmp_path / "v.fatbin", "--no-cache")
    assert run.status == 0, run.output
    assert _entries(tmp_path / "v.fatbin") == [("elf", "sm_86"), ("elf", "sm_80"), ("elf", "sm_90a"),
                                               ("elf", "sm_89"), ("ptx", "sm_89")]


def test_list_without_emit_writes_a_fatbin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tritonc(VECTOR_ADD, "--arch", "sm_80,sm_90", "--no-cache")
    assert run.status == 0, run.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vector_add.fatbin"]


def test_header_and_module_embed_the_fatbin(tmp_path):
    base = tmp_path / "va"
    run = tritonc(VECTOR_ADD, "--arch", "sm_80,sm_90a", "--emit=fatbin,header,py", "-o", base, "--no-cache")
    assert run.status == 0, run.output
    fatbin = (tmp_path / "va.fatbin").read_bytes()
    header = (tmp_path / "va.h").read_text()
    assert f"fatbin of {len(fatbin)} bytes" in header
    start = header.index("_cubin[")
    body = header[header.index("{", start) + 1:header.index("};", start)]
    assert bytes(int(x, 16) for x in re.findall(r"0x([0-9a-fA-F]{2})", body)) == fatbin
    import importlib.util

    spec = importlib.util.spec_from_file_location("va_fatbin_module", tmp_path / "va.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports without a GPU
    assert module._CUBIN == fatbin
    assert module.metadata["vector_add"]["arch"] == "sm_80"


def test_module_loads_a_fatbin_with_from_fatbin(tmp_path):
    """The Python runtime hands a fatbin to cuda.core's ObjectCode.from_fatbin (a cubin to
    from_cubin): checked with a stand-in for cuda.core that records the call."""
    assert tritonc(VECTOR_ADD, "--arch", "sm_80,sm_90a", "--emit=py", "-o", tmp_path / "va.py", "--no-cache").status == 0
    import importlib.util

    spec = importlib.util.spec_from_file_location("va_fatbin_module2", tmp_path / "va.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = []

    class FakeObjectCode:
        @staticmethod
        def from_fatbin(data, name=""):
            calls.append(("fatbin", data[:4]))
            raise RuntimeError("stop here")

        @staticmethod
        def from_cubin(data, name=""):
            calls.append(("cubin", data[:4]))
            raise RuntimeError("stop here")

    class FakeCore:
        ObjectCode = FakeObjectCode

    with pytest.raises(RuntimeError, match="stop here"):
        module._module._kernel(FakeCore, module._vector_add_spec)
    assert calls == [("fatbin", FATBIN_MAGIC)]


@pytest.mark.parametrize("args, message", [
    (["--arch", "sm_80,"], "'sm_80,' has an empty item"),
    (["--arch", "sm_80,sm_70"], "'sm_70' is not one of 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_90a', 'sm_100', "
                                "'sm_120' (sm_100, sm_120: PTX only)"),
    (["--arch", "sm_80,sm_90a,sm_80"], "'sm_80' is listed twice"),
    (["--arch", "sm_100"], "sm_100: PTX-only target need an architecture with SASS in the list too"),
    (["--arch", "sm_100,sm_120"], "sm_100, sm_120: PTX-only targets need an architecture with SASS"),
    (["--arch", "sm_80,sm_90a", "--emit=cubin"], "--emit=cubin is one architecture's output"),
    (["--arch", "sm_80,sm_90a", "--emit=ptx,header"], "--emit=ptx is one architecture's output"),
    (["--arch", "sm_80,sm_90a", "-o", "x.ll"], "--emit=llir is one architecture's output"),
    (["--arch", "sm_80,sm_90a", "--num-warps", "4,8"], "variants (--tune, --num-warps or --num-stages lists) "
                                                       "are not built as fatbins"),
    (["--arch", "sm_80", "--num-stages", "2,3", "--emit=fatbin"], "are not built as fatbins"),
])
def test_bad_arch_lists_are_usage_errors(tmp_path, args, message):
    args = [str(tmp_path / a) if a == "x.ll" else a for a in args]
    if "-o" not in args:
        args += ["-o", str(tmp_path / "out.fatbin")]
    run = tritonc(VECTOR_ADD, *args, "--no-cache")
    assert run.status == 2, run.output
    assert "Invalid value for '--arch'" in run.stderr and message in run.stderr, run.stderr
    assert_clean(run)
    assert list(tmp_path.iterdir()) == []


def test_shared_memory_that_does_not_fit_every_arch_is_an_error(tmp_path):
    """The launchers pass one dynamic shared-memory size per kernel: an sm_80 plan over sm_86's
    99 KiB is refused for a header (a bare fatbin is the user's to launch, per image)."""
    args = [EXAMPLES_DIR / "matmul.tri", "--arch", "sm_80,sm_86", "-D", "TM=128", "-D", "TN=256", "-D", "TK=64",
            "--num-stages", "3", "--num-warps", "8", "--no-cache", "-o", tmp_path / "mm"]
    run = tritonc(*args, "--emit=fatbin,header")
    assert run.status == 1, run.output
    assert "error: kernel 'matmul' needs 147456 bytes of dynamic shared memory on sm_80, more than a CTA of sm_86 " \
           "may have (101376)" in run.stderr
    assert_clean(run)
    assert list(tmp_path.iterdir()) == []
    assert tritonc(*args, "--emit=fatbin").status == 0


def test_each_arch_list_is_its_own_cache_entry(tmp_path, monkeypatch):
    monkeypatch.delenv("TRITONC_NO_CACHE", raising=False)  # tests/conftest.py turns it off elsewhere
    env = {"TRITONC_CACHE_DIR": str(tmp_path / "cache")}
    one, two, again = tmp_path / "one.fatbin", tmp_path / "two.fatbin", tmp_path / "again.fatbin"
    assert tritonc(VECTOR_ADD, "--arch", "sm_80", "--emit=fatbin", "-o", one, env=env).status == 0
    assert tritonc(VECTOR_ADD, "--arch", "sm_80,sm_90", "-o", two, env=env).status == 0
    assert tritonc(VECTOR_ADD, "--arch", "sm_80,sm_90", "-o", again, env=env).status == 0
    assert _entries(one) == [("elf", "sm_80"), ("ptx", "sm_80")]
    assert _entries(two) == [("elf", "sm_80"), ("elf", "sm_90"), ("ptx", "sm_90")]
    assert again.read_bytes() == two.read_bytes()
    assert len(list((tmp_path / "cache").rglob("*fatbin*"))) == 2


def test_parse_arch_list_and_retarget_units():
    assert parse_arch_list("sm_90a") == ("sm_90a",)
    assert parse_arch_list(" sm_80 , sm_120") == ("sm_80", "sm_120")
    with pytest.raises(ValueError, match="'sm_70' is not one of 'sm_80'"):
        parse_arch_list("sm_70")
    ptx = ".version 8.6\n.target sm_86\n.address_size 64\n"
    assert retarget_ptx(ptx, "sm_120", 87) == ".version 8.7\n.target sm_120\n.address_size 64\n"
    assert retarget_ptx(ptx, "sm_100", 80) == ".version 8.6\n.target sm_100\n.address_size 64\n"
    from tritonc.diagnostics import InternalCompilerError

    with pytest.raises(InternalCompilerError):
        retarget_ptx(".target sm_80\n", "sm_100", 86)


def test_build_fatbin_rejects_nothing_and_bad_data():
    with pytest.raises(ValueError, match="at least one image"):
        build_fatbin({}, {})
    with pytest.raises(ValueError, match="bad magic"):
        parse_fatbin(b"\x7fELF" + bytes(60))
    good = build_fatbin({}, {"sm_80": ".version 8.6\n.target sm_80\n.address_size 64\n"})
    with pytest.raises(ValueError):
        parse_fatbin(good[:-8] if len(good) > 24 else good[:20])


def test_build_fatbin_errors(monkeypatch):
    from cuda.bindings import nvfatbin

    from tritonc.diagnostics import CompileError, InternalCompilerError

    with pytest.raises(InternalCompilerError, match="nvFatbin rejected an image: ERROR_ELF_SIZE_MISMATCH"):
        build_fatbin({"sm_80": b"\x7fELFgarbage"}, {})
    with pytest.raises(InternalCompilerError, match="ERROR_MISSING_PTX_VERSION"):
        build_fatbin({}, {"sm_80": "not PTX"})
    with pytest.raises(ValueError, match="not an SM architecture"):
        build_fatbin({}, {"compute_80": ".version 8.6\n.target sm_80\n"})

    def missing(*args):
        raise RuntimeError('Failure finding "libnvfatbin.so.13"\nmore lines')

    monkeypatch.setattr(nvfatbin, "create", missing)
    with pytest.raises(CompileError, match='nvFatbin is not available \\(Failure finding "libnvfatbin.so.13"\\); '
                                           'install the nvidia-nvfatbin wheel'):
        build_fatbin({}, {"sm_80": ".version 8.6\n.target sm_80\n"})


def test_fatbin_build_needs_the_primary_compilation():
    from tritonc.driver import Compilation
    from tritonc.multiarch import FatbinBuild
    from tritonc.options import CompileOptions

    comp = Compilation(VECTOR_ADD, CompileOptions(arch="sm_90a"))
    with pytest.raises(ValueError, match="the compilation is for sm_90a, not the first architecture with SASS of "
                                         "sm_80,sm_90a"):
        FatbinBuild(comp, ("sm_80", "sm_90a"))
    with pytest.raises(ValueError, match="--emit=ptx is one architecture's output"):
        FatbinBuild(comp, ("sm_90a",)).emit("ptx")
