"""tritonc: a standalone compiler for Triton-C, the blocked-program GPU language of the
MAPL 2019 Triton paper (Tillet, Kung, Cox).

The pipeline (``tritonc.driver``) is: C preprocessor -> lark parser -> sema -> tile IR ->
machine-independent passes -> GPU tile IR with layouts -> LLVM IR (llvmlite) -> PTX -> cubin,
plus a generated C header and Python launcher module.
"""
from .version import __version__  # noqa: F401


def interpret(*args, **kwargs):
    """Compile Triton-C and run a kernel with the numpy interpreter (lazy import of
    :func:`tritonc.driver.interpret`, which documents the arguments)."""
    from .driver import interpret as _interpret

    return _interpret(*args, **kwargs)
