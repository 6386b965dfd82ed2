"""Differential testing of tritonc with generated Triton-C programs (issue 11).

* :mod:`tritonc.fuzz.gen`: hypothesis strategies for well-typed kernels without undefined
  behaviour (:func:`~tritonc.fuzz.gen.programs`), fragment by fragment;
* :mod:`tritonc.fuzz.builder`: the :class:`~tritonc.fuzz.builder.Builder` through which a
  fragment writes its block (parameters, loads, stores), and the helpers fragments share;
* :mod:`tritonc.fuzz.dot_fragments`: the tensor-core fragments (``@``, attention, batched
  products);
* :mod:`tritonc.fuzz.expressions`: the typed element-wise expressions of those kernels, with
  the interval and error bound of each value;
* :mod:`tritonc.fuzz.program`: the :class:`Program` record (source, parameters, arguments,
  options, per-output checks) and its regression-case text;
* :mod:`tritonc.fuzz.execute`: the executors (interpreter, SIMT simulator, GPU);
* :mod:`tritonc.fuzz.compare`: the mismatch definition;
* :mod:`tritonc.fuzz.runner`: the runs, minimisation and the ``tritonc-fuzz`` command.

It sits at the tools layer (it imports the driver, the interpreter and the simulator).
"""
from .program import Buffer, Program, Scalar

__all__ = ["Buffer", "Program", "Scalar"]
