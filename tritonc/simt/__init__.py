"""The SIMT simulator: runs lowered kernels (LLVM IR from ``tritonc.codegen.llvm``) CTA by CTA on
the CPU, a value per thread, to check the lowering's index math without a GPU.

It sits beside the tools in the layer order (it imports the code generator); see
:mod:`tritonc.simt.simulator`.
"""
from .simulator import Memory, Simulator, lower_for_simulation, run_kernel

__all__ = ["Memory", "Simulator", "lower_for_simulation", "run_kernel"]
