"""``--symbol-prefix`` in the Python module (issue 18 item 5, for the module too): the launchers
and ``metadata`` carry the prefix, the unprefixed names are gone, ``__all__`` lists the public
names, so two modules of one kernel built with different -D can be star-imported side by side."""
from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path

import pytest

from fixture_kernels import VECTOR_ADD_PARAMS, make_kernel
from tritonc.launcher.python_module import generate_python_module, prefixed_names

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_helpers import EXAMPLES_DIR, assert_clean, tritonc  # noqa: E402

_count = itertools.count()


def load(path: Path):
    name = f"prefixed_module_{next(_count)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prefixed_names_replace_the_plain_ones(tmp_path):
    k = make_kernel("vector_add", VECTOR_ADD_PARAMS, defines={"TM": "128"})
    (tmp_path / "va.py").write_text(generate_python_module(k, symbol_prefix="mm64_"))
    m = load(tmp_path / "va.py")
    assert sorted(m.__all__) == ["CUDAUnavailableError", "mm64_metadata", "mm64_register_torch_op",
                                 "mm64_vector_add"]
    assert not any(hasattr(m, n) for n in ("vector_add", "metadata", "register_torch_op"))
    assert m.mm64_vector_add.metadata is m.mm64_metadata["vector_add"]
    assert m.mm64_vector_add.meta["num_warps"] == k.num_warps
    # the renamed launcher still runs: its argument checks come before any CUDA call
    with pytest.raises(TypeError):
        m.mm64_vector_add("not an array", 0x2008, 0x3004, 1024, grid=4)
    # and it gets as far as the driver (none here, or a GPU: then the launch itself)
    try:
        m.mm64_vector_add(0x1000, 0x2008, 0x3004, 0, grid=0)
    except m.CUDAUnavailableError as e:
        assert str(e).startswith("vector_add(): no usable CUDA driver or GPU here")


def test_two_prefixed_modules_star_import_side_by_side(tmp_path):
    for block, prefix in ((256, "small_"), (1024, "large_")):
        run = tritonc(EXAMPLES_DIR / "vector_add.tri", "-D", f"BLOCK={block}", "--symbol-prefix", prefix,
                      "--emit=py", "-o", tmp_path / f"va{block}.py", "--no-cache")
        assert run.status == 0, run.output
    (tmp_path / "both.py").write_text("from va256 import *\nfrom va1024 import *\n"
                                      "BLOCKS = (small_metadata['vector_add']['defines']['BLOCK'], "
                                      "large_metadata['vector_add']['defines']['BLOCK'], "
                                      "small_vector_add is not large_vector_add)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        both = load(tmp_path / "both.py")
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("va256", "va1024"):
            sys.modules.pop(name, None)
    assert both.BLOCKS == ("256", "1024", True)


def test_prefixed_dispatcher_of_variants(tmp_path):
    run = tritonc(EXAMPLES_DIR / "vector_add.tri", "--num-warps", "4,8", "--symbol-prefix", "p_", "--emit=py",
                  "-o", tmp_path / "v.py", "--no-cache", "-j", "1")
    assert run.status == 0, run.output
    m = load(tmp_path / "v.py")
    assert [v["num_warps"] for v in m.p_vector_add.variants] == [4, 8]
    assert {"p_vector_add", "p_vector_add__v0", "p_vector_add__v1", "p_metadata"} <= set(m.__all__)
    assert not hasattr(m, "vector_add")
    with pytest.raises(ValueError, match="variant must be an int"):
        m.p_vector_add(0x1000, 0x2000, 0x3000, 16, variant=5)


def test_prefix_errors():
    assert prefixed_names(["k"], "") == {}
    with pytest.raises(ValueError, match="not the start of a public Python name"):
        prefixed_names(["k"], "_p")
    with pytest.raises(ValueError, match="not the start of a public Python name"):
        prefixed_names(["k"], "9p")
    with pytest.raises(ValueError, match="gives 'ab', which is another public name"):
        prefixed_names(["b", "ab"], "a")
    with pytest.raises(ValueError, match="gives 'if'"):
        prefixed_names(["f"], "i")


def test_cli_refuses_a_private_prefix_for_the_module(tmp_path):
    out = tmp_path / "v.py"
    run = tritonc(EXAMPLES_DIR / "vector_add.tri", "--symbol-prefix", "_p", "--emit=py", "-o", out, "--no-cache")
    assert run.status == 2
    assert "Invalid value for --symbol-prefix: symbol prefix '_p' is not the start of a public Python name" \
        in run.stderr
    assert_clean(run)
    assert not out.exists()
    # the header alone takes it, as before
    assert tritonc(EXAMPLES_DIR / "vector_add.tri", "--symbol-prefix", "_p", "--emit=header", "-o",
                   tmp_path / "v.h", "--no-cache").status == 0
