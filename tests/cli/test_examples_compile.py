"""Every example under examples/ compiles, through the ``tritonc`` command, for sm_80 and
sm_90; its C header compiles as C99 and C++; its Python module imports without a GPU and
checks arguments before any CUDA call.

Each (example, arch) is compiled once per test session, even across pytest-xdist workers:
the outputs go to a folder shared by the workers, guarded by a file lock.
"""
from __future__ import annotations

import fcntl
import importlib.util
import itertools
import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_helpers import ELF_MAGIC, EXAMPLES_DIR, tritonc
from tritonc.launcher.c_header import find_cuda_include
from tritonc.tools.examples import EXAMPLES, Example

ARCHS = ("sm_80", "sm_90", "sm_90a")  # sm_90a: the default (wgmma for the matmul examples)
#: Every example file, so a new one is tested as soon as it exists; the settings come from
#: tritonc.tools.examples.EXAMPLES when it has an entry, else the file's own defaults.
SETTINGS = {e.name: e for e in EXAMPLES}
NAMES = sorted(p.stem for p in EXAMPLES_DIR.glob("*.tri"))
PAIRS = [(name, arch) for name in NAMES for arch in ARCHS]


def example(name: str) -> Example:
    return SETTINGS.get(name, Example(name))


def command_line(e: Example, arch: str) -> list[str]:
    args = [str(e.path), "--arch", arch, "--num-warps", str(e.num_warps)]
    for key, value in e.defines.items():
        args += ["-D", f"{key}={value}"]
    for key, values in e.tune.items():
        args += ["--tune", f"{key}={','.join(map(str, values))}"]
    return args


@dataclass(frozen=True)
class Built:
    """The outputs of ``tritonc EXAMPLE --emit=cubin,ptx,header,py -o BASE``."""

    name: str
    arch: str
    status: int
    stderr: str
    base: Path

    def read(self, suffix: str) -> bytes:
        return self.base.with_name(self.base.name + suffix).read_bytes()

    def path(self, suffix: str) -> Path:
        return self.base.with_name(self.base.name + suffix)

    def check(self) -> None:
        assert self.status == 0, f"tritonc {' '.join(command_line(example(self.name), self.arch))}:\n{self.stderr}"


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """``built(name, arch)``: the example compiled once for this session (shared by workers)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if base.name.startswith("popen-gw") else base  # xdist: pytest-N/popen-gwK
    root = shared / "cli-examples"
    cache: dict[tuple[str, str], Built] = {}

    def get(name: str, arch: str) -> Built:
        if (name, arch) not in cache:
            folder = root / f"{name}-{arch}"
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / ".lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                result = folder / "result.json"
                if not result.exists():
                    run = tritonc(*command_line(example(name), arch), "--emit=cubin,ptx,header,py",
                                  "-o", folder / name)
                    result.write_text(json.dumps({"status": run.status, "stderr": run.stderr}))
                done = json.loads(result.read_text())
            cache[name, arch] = Built(name, arch, done["status"], done["stderr"], folder / name)
        return cache[name, arch]

    return get


def test_examples_are_found():
    assert {"vector_add", "softmax", "layernorm", "transpose", "reduce", "matmul"} <= set(NAMES)
    assert not set(SETTINGS) - set(NAMES), "EXAMPLES lists files that do not exist"


# ----------------------------------------------------------------------------- cubin and PTX

@pytest.mark.parametrize("name, arch", PAIRS, ids=[f"{n}-{a}" for n, a in PAIRS])
def test_compiles_to_cubin(built, name, arch):
    b = built(name, arch)
    b.check()
    assert b.read(".cubin")[:4] == ELF_MAGIC
    ptx = b.read(".ptx").decode()
    assert f".target {arch}" in ptx
    assert ".extern .func" not in ptx, "the PTX calls a function nobody defines"
    assert ".entry " in ptx


# ----------------------------------------------------------------------------- C header

CUDA_INCLUDE = find_cuda_include()
CC, CXX = shutil.which("cc"), shutil.which("c++")


@pytest.mark.skipif(CUDA_INCLUDE is None or CC is None or CXX is None,
                    reason="needs cc, c++ and cuda.h (nvidia-cuda-runtime wheel)")
@pytest.mark.parametrize("arch", ARCHS)
def test_headers_compile_as_c99_and_cxx(built, arch, tmp_path):
    """One cc and one c++ run check every example's header (each in its own translation
    unit, included twice to check the include guard)."""
    units = []
    for name in NAMES:
        b = built(name, arch)
        if b.status != 0:
            continue  # test_compiles_to_cubin reports it
        header = b.path(".h")
        body = f'#include "{header}"\n#include "{header}"\n'
        (tmp_path / f"{name}.c").write_text(body + "int main(void) { return 0; }\n")
        (tmp_path / f"{name}.cpp").write_text(body + "int main() { return 0; }\n")
        units.append(name)
    assert units, "no example compiled"
    for compiler, flags, suffix in ((CC, ["-std=c99", "-Wall", "-Wextra", "-Werror"], ".c"),
                                    (CXX, ["-Wall", "-Werror"], ".cpp")):
        cmd = [compiler, *flags, "-fsyntax-only", "-I", CUDA_INCLUDE, *(f"{n}{suffix}" for n in units)]
        proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


# ----------------------------------------------------------------------------- Python module

_counter = itertools.count()

#: __cuda_array_interface__ typestr per element type (bfloat16 has none: numpy lacks it).
TYPESTR = {"bool": "|b1", "int8": "|i1", "int16": "<i2", "int32": "<i4", "int64": "<i8",
           "uint8": "|u1", "uint16": "<u2", "uint32": "<u4", "uint64": "<u8",
           "float16": "<f2", "float32": "<f4", "float64": "<f8"}
ADDRESS = 0x7F00_0000_0000  # a device address aligned to anything a promise can ask for


class CAI:
    """A device array as CuPy or Numba show it (only ``__cuda_array_interface__``)."""

    def __init__(self, typestr: str, ptr: int = ADDRESS):
        self.__cuda_array_interface__ = {"data": (ptr, False), "typestr": typestr, "shape": (16,),
                                         "strides": None, "version": 3}


def good_argument(param: dict):
    if param["kind"] == "pointer":
        return CAI(TYPESTR[param["dtype"]]) if param["dtype"] in TYPESTR else ADDRESS
    if param["dtype"] == "bool":
        return True
    if param["dtype"].startswith(("int", "uint")):
        return param.get("multipleof", 1)
    return 1.0


def broken_promise(param: dict):
    """An argument that breaks the param's __multipleof/__aligned promise, or None."""
    m = max(param.get("multipleof", 1), param.get("aligned", 1))
    if m == 1:
        return None
    return ADDRESS + 1 if param["kind"] == "pointer" else m + 1


def load_module(path: Path):
    name = f"tritonc_example_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def block_cuda(monkeypatch) -> None:
    """Make every ``import cuda...`` fail: reaching one means the argument checks are over."""
    for name in [m for m in sys.modules if m == "cuda" or m.startswith("cuda.")] + ["cuda"]:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize("name, arch", PAIRS, ids=[f"{n}-{a}" for n, a in PAIRS])
def test_python_module_checks_arguments_before_cuda(built, monkeypatch, name, arch):
    b = built(name, arch)  # built first: assembling the cubin needs nvJitLink from cuda.bindings
    b.check()
    block_cuda(monkeypatch)
    module = load_module(b.path(".py"))
    assert module.metadata, "no kernels in the module"
    for kernel, meta in module.metadata.items():
        launch = getattr(module, kernel)
        params = meta["params"]
        good = [good_argument(p) for p in params]

        # good arguments: every check passes and the launcher goes on to CUDA
        with pytest.raises(ImportError, match="cuda"):
            launch(*good, grid=1)
        assert launch(*good, grid=0) is None  # an empty grid launches nothing and needs no CUDA

        # wrong number of arguments
        with pytest.raises(TypeError):
            launch(*good[:-1], grid=1)
        with pytest.raises(TypeError):
            launch(*good, good[-1], grid=1)

        # wrong element type behind a pointer
        for i, p in enumerate(params):
            if p["kind"] == "pointer":
                wrong = "<f8" if p["dtype"] != "float64" else "<f4"
                with pytest.raises(TypeError, match=p["name"]):
                    launch(*good[:i], CAI(wrong), *good[i + 1:], grid=1)

        # a broken __multipleof / __aligned promise
        for i, p in enumerate(params):
            bad = broken_promise(p)
            if bad is not None:
                with pytest.raises(ValueError, match="promise"):
                    launch(*good[:i], bad, *good[i + 1:], grid=1)


def test_some_example_makes_promises():
    """The promise checks above are not vacuous: matmul promises __aligned and __multipleof."""
    text = (EXAMPLES_DIR / "matmul.tri").read_text()
    assert "__aligned(16)" in text and "__multipleof(8)" in text


def test_python_modules_import_without_cuda_or_tritonc(built, tmp_path):
    """In a fresh interpreter where cuda, torch, cupy and tritonc cannot be imported, every
    example's module imports, shows its metadata and rejects a bad argument."""
    paths = []
    for name in NAMES:
        b = built(name, "sm_90")
        if b.status == 0:
            paths.append(str(b.path(".py")))
    script = textwrap.dedent("""
        import importlib.util, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("tritonc", "cuda", "torch", "cupy"):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        for i, path in enumerate(sys.argv[1:]):
            spec = importlib.util.spec_from_file_location(f"m{i}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            for kernel, meta in module.metadata.items():
                assert meta["arch"] == "sm_90", meta
                try:
                    getattr(module, kernel)(*([None] * len(meta["params"])), grid=1)
                except TypeError:
                    print("ok", kernel)
    """)
    proc = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) >= len(paths), proc.stdout
