"""The compile cache (tritonc/cache.py): a second identical run is served from it; any change
of the source, an included file, a define, an option, the arch or a version misses; --no-cache
neither reads nor writes it; what was printed (warnings, -v) is replayed on a hit."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import EXAMPLES_DIR, tritonc
from tritonc import cache as cache_mod
from tritonc.cache import CompileCache, cache_key
from tritonc.options import CompileOptions

VECTOR_ADD = EXAMPLES_DIR / "vector_add.tri"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(root))
    monkeypatch.delenv("TRITONC_NO_CACHE", raising=False)  # tests/conftest.py turns it off elsewhere
    monkeypatch.chdir(tmp_path)
    return root


def entries(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("*/*") if p.is_dir() and not p.name.startswith("."))


def no_compile(monkeypatch):
    """Make any compilation fail: a run that still succeeds was served by the cache."""
    from tritonc import driver

    def boom(self, kind):
        raise AssertionError("compiled although the cache holds the output")

    monkeypatch.setattr(driver.Compilation, "emit", boom)


def test_second_run_is_served_from_the_cache(cache, monkeypatch):
    first = tritonc(VECTOR_ADD, "-o", "a.ptx")
    assert first.status == 0 and len(entries(cache)) == 1
    no_compile(monkeypatch)
    second = tritonc(VECTOR_ADD, "-o", "b.ptx")
    assert second.status == 0
    assert Path("a.ptx").read_bytes() == Path("b.ptx").read_bytes()
    # another kind of the same compilation is not in the entry: it is compiled
    assert compiled(tritonc(VECTOR_ADD, "-o", "c.cubin"))


def compiled(run) -> bool:
    """The run tried to compile (no_compile made that an internal error)."""
    return run.status == 3 and "compiled although the cache holds the output" in run.stderr


@pytest.mark.parametrize("change", [
    ["-D", "BLOCK=512"],              # a define
    ["--num-warps", "8"],             # an option
    ["--arch", "sm_80"],              # the target
    ["--no-specialize"],              # specialisation
])
def test_a_changed_define_option_or_arch_misses(cache, change):
    assert tritonc(VECTOR_ADD, "-o", "a.ptx").status == 0
    assert tritonc(VECTOR_ADD, *change, "-o", "b.ptx").status == 0
    assert len(entries(cache)) == 2


def test_no_cache_neither_reads_nor_writes(cache, monkeypatch):
    assert tritonc(VECTOR_ADD, "--no-cache", "-o", "a.ptx").status == 0
    assert not cache.exists() or entries(cache) == []
    assert tritonc(VECTOR_ADD, "-o", "a.ptx").status == 0
    no_compile(monkeypatch)
    assert compiled(tritonc(VECTOR_ADD, "--no-cache", "-o", "b.ptx"))


def test_warnings_and_verbose_output_are_replayed(cache, monkeypatch, tmp_path):
    src = tmp_path / "w.tri"
    src.write_text("void k(float *p) {\n  float x[16] = 0 ... 16;\n  *(p + (0 ... 16)) = x * 1.5;\n}\n")
    first = tritonc(src, "-o", "w.ptx", "-v")
    assert "-Wdouble-promotion" in first.stderr and "tritonc: compiled with" in first.stderr
    no_compile(monkeypatch)
    second = tritonc(src, "-o", "w2.ptx", "-v")
    assert second.status == 0 and second.stderr == first.stderr


def test_no_cache_environment_variable(cache, monkeypatch):
    monkeypatch.setenv("TRITONC_NO_CACHE", "1")
    assert tritonc(VECTOR_ADD, "-o", "a.ptx").status == 0
    assert not cache.exists() or entries(cache) == []


def test_pass_dumps_bypass_the_cache(cache):
    assert tritonc(VECTOR_ADD, "--time-passes", "-o", "a.ptx").status == 0
    assert not cache.exists() or entries(cache) == []


def test_errors_are_not_cached(cache, tmp_path):
    src = tmp_path / "bad.tri"
    src.write_text("void k(float *X) {\n  *X = ;\n}\n")
    assert tritonc(src, "-o", "x.ptx").status == 1
    assert not cache.exists() or entries(cache) == []


def test_key_covers_source_includes_options_and_versions(tmp_path, monkeypatch):
    base = cache_key("src", "pre", CompileOptions())
    assert cache_key("src ", "pre", CompileOptions()) != base           # the source text
    assert cache_key("src", "pre2", CompileOptions()) != base            # an included file changed
    assert cache_key("src", "pre", CompileOptions(arch="sm_80")) != base
    assert cache_key("src", "pre", CompileOptions(defines={"A": "1"})) != base
    assert cache_key("src", "pre", CompileOptions(), {"verbose": True}) != base
    assert cache_key("src", "pre", CompileOptions()) == base
    monkeypatch.setattr(cache_mod, "_versions", lambda: {"tritonc": "9.9"})
    assert cache_key("src", "pre", CompileOptions()) != base


def test_key_covers_the_compilers_own_files(tmp_path, monkeypatch):
    """A development tree whose code changed under the same version number misses the cache."""
    import os

    package = tmp_path / "tritonc"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "pass_a.py").write_text("x = 1\n")
    first = cache_mod.compiler_fingerprint(package)
    assert cache_mod.compiler_fingerprint(package) == first
    (package / "sub" / "pass_a.py").write_text("x = 22\n")                # edited
    assert cache_mod.compiler_fingerprint(package) != first
    second = cache_mod.compiler_fingerprint(package)
    st = (package / "sub" / "pass_a.py").stat()
    os.utime(package / "sub" / "pass_a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # same size, touched
    assert cache_mod.compiler_fingerprint(package) != second
    base = cache_key("src", "pre", CompileOptions())
    monkeypatch.setattr(cache_mod, "compiler_fingerprint", lambda: "another tree")
    assert cache_key("src", "pre", CompileOptions()) != base


def test_cache_entry_round_trip_and_partial_hits(tmp_path):
    c = CompileCache(tmp_path)
    c.put("ab" * 32, {"ptx": "text", "cubin": b"\x7fELF"}, "warned\n")
    assert c.get("ab" * 32, ["ptx", "cubin"]) == ({"ptx": b"text", "cubin": b"\x7fELF"}, "warned\n")
    assert c.get("ab" * 32, ["ttir"]) is None and c.get("cd" * 32, ["ptx"]) is None
    c.put("ab" * 32, {"ttir": "ir"}, "warned\n")  # added; the others kept
    assert c.get("ab" * 32, ["ttir", "cubin"])[0] == {"ttir": b"ir", "cubin": b"\x7fELF"}


def test_an_included_file_change_misses(cache, tmp_path):
    (tmp_path / "inc.h").write_text("#define BLOCK 256\n")
    src = tmp_path / "i.tri"
    src.write_text('#include "inc.h"\nvoid k(float *X) {\n  int r[BLOCK] = 0 ... BLOCK;\n  *(X + r) = 1.0f;\n}\n')
    assert tritonc(src, "-o", "a.ptx").status == 0
    (tmp_path / "inc.h").write_text("#define BLOCK 512\n")
    assert tritonc(src, "-o", "b.ptx").status == 0
    assert len(entries(cache)) == 2
    assert "512" in Path("b.ptx").read_text() or Path("a.ptx").read_text() != Path("b.ptx").read_text()
