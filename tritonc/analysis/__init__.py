"""Analyses of the tile IR, on the generic solver of ``dataflow.py``.

:data:`PRINTABLE_ANALYSES` names the analyses that ``--print-analysis=NAME`` (``tritonc`` and
``tritonc-opt``) can print: each has an ``annotate(op) -> str | None`` giving the trailing
comment of an op, and :func:`print_with_analysis` prints a module with those comments.
"""
from __future__ import annotations

import importlib

from ..ir.core import Module

#: ``--print-analysis`` name -> ``"module:Class"`` (imported on first use).
PRINTABLE_ANALYSES: dict[str, str] = {
    "axis-info": "tritonc.analysis.axis_info:AxisInfoAnalysis",
    "liveness": "tritonc.analysis.liveness:SharedLiveness",
    "allocation": "tritonc.analysis.allocation:SharedAllocation",
}

#: The printable analyses of the GPU level (they need layouts): ``tritonc`` prints them on the
#: ttg IR, the others on the optimised tt IR.
TTG_ANALYSES = frozenset({"liveness", "allocation"})


def analysis_class(name: str) -> type:
    """The analysis class printed by ``--print-analysis=name``.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    where = PRINTABLE_ANALYSES.get(name)
    if where is None:
        raise ValueError(f"unknown analysis '{name}' (known: {', '.join(sorted(PRINTABLE_ANALYSES))})")
    module_name, _, cls = where.partition(":")
    return getattr(importlib.import_module(module_name), cls)


def print_with_analysis(module: Module, name: str) -> str:
    """The text of ``module`` with the facts of analysis ``name`` as a comment after each op."""
    from ..ir.printer import print_module
    from ..passes import AnalysisManager

    am = AnalysisManager(module)
    analysis = am.get(analysis_class(name))
    return print_module(module, annotate=analysis.annotate)
