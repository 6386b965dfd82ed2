"""The SIMT simulator: runs lowered kernels (LLVM IR from ``tritonc.codegen.llvm``) CTA by CTA on
the CPU, a value per thread, to check the lowering's index math without a GPU, and checks
shared memory for races between warps (:mod:`tritonc.simt.races`).

It sits beside the tools in the layer order (it imports the code generator); see
:mod:`tritonc.simt.simulator`.
"""
from .races import RaceError, RaceShadow
from .memory import Memory
from .simulator import Simulator, lower_for_simulation, run_kernel, run_lowered

__all__ = ["Memory", "RaceError", "RaceShadow", "Simulator", "lower_for_simulation", "run_kernel", "run_lowered"]
