"""Choosing meta-parameters ahead of time: the static cost model (:mod:`.cost_model`).

Layer: above ``transforms`` (it reads the frontend's tile IR and the eligibility rules of
``accelerate-matmul``), below ``codegen``; the driver calls it.
"""
