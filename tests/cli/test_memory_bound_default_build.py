"""Issue 16 / issue 13: every memory-bound example compiles with no option at all
(`tritonc FILE.tri -o FILE.cubin`: tile sizes from its tunables, chosen by the cost model; the
problem sizes are run-time arguments) to a cubin (ptxas / nvJitLink run here), and every kernel
in it declares its grid, so the launchers compute it."""
import pytest

from cli_helpers import ELF_MAGIC, EXAMPLES_DIR, tritonc
from tritonc.driver import Compilation
from tritonc.options import CompileOptions

MEMORY_BOUND = ["reduce", "layernorm", "layernorm_bwd", "rmsnorm", "softmax_bwd", "cross_entropy", "dropout",
                "batchnorm", "transpose", "permute", "vector_add"]


@pytest.mark.parametrize("name", MEMORY_BOUND)
def test_compiles_with_no_option_and_declares_every_grid(name, tmp_path):
    out = tmp_path / f"{name}.cubin"
    run = tritonc(EXAMPLES_DIR / f"{name}.tri", "--no-cache", "-o", out)
    assert run.status == 0, run.stderr
    assert out.read_bytes()[:4] == ELF_MAGIC
    comp = Compilation(EXAMPLES_DIR / f"{name}.tri", CompileOptions())
    kernels = [f.name for f in comp.ttir.functions if f.kind == "kernel"]
    assert kernels and set(comp.grids) == set(kernels), f"kernels {kernels}, grids declared for {sorted(comp.grids)}"
