"""Choosing meta-parameters ahead of time: the static cost models (:mod:`.cost_model` for kernels
with a ``tt.dot``, :mod:`.memory_model` for the memory-bound ones), given the target's figures
and the kernel's dots (:mod:`.workload`).

Layer: above ``transforms`` (it reads the frontend's tile IR and the eligibility rules of
``accelerate-matmul``), below ``codegen``; the driver calls it.
"""
