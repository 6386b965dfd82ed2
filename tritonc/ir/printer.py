"""Text form of the tile IR (``--emit=ttir`` / ``--emit=ttgir``, golden files, pass tests).

The format is MLIR's generic form, shortened; ``ir/parser.py`` reads it back and
``print(parse(print(m))) == print(m)`` holds for every module::

    #blocked0 = #ttg.blocked<size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[4], order=[0]>
    module attributes {num_warps = 4} {
      tt.func @add(%x: ptr<f32> {aligned = 16, noalias}, %n: i32) attributes {kernel} {
        %pid = tt.get_program_id {axis = 0} : i32
        %r = tt.make_range {end = 1024, start = 0} : i32[1024] #blocked0
        %acc:2 = scf.for %lb, %ub, %st, %a0, %b0 {predicate = "slt"} : f32[64,64], ptr<f16>[64,32] {
        ^(%k: i32, %acc: f32[64,64], %pa: ptr<f16>[64,32]):
          ...
          scf.yield %acc2, %pa2
        }
        tt.return
      }
    }

Rules: operand types are implied by their definitions; result types follow ``:``; attributes
are sorted by name; SSA names come from source names (``%acc``, uniqued as ``%acc_1``) or are
numbered ``%0, %1, ...`` per function in program order; layouts are declared once as aliases.
A multi-result op prints its results as ``%name:N`` and they are referred to as ``%name#i``.
"""
from __future__ import annotations

import math
from typing import Any

from .core import Block, Function, Module, Operation, Value
from .layouts import Layout
from .types import MemDescType, TileType, Type


def format_attr_value(value: Any) -> str:
    """Text of an attribute value: ints, floats (exact, ``inf``/``nan`` spelled out), strings, bools, lists."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_attr_value(v) for v in value) + "]"
    raise TypeError(f"cannot print attribute value {value!r}")


def format_attrs(attrs: dict[str, Any]) -> str:
    """``{a = 1, b}``: unit attributes (value ``True`` with ``unit``-style meaning) print bare."""
    if not attrs:
        return ""
    parts = []
    for key in sorted(attrs):
        value = attrs[key]
        parts.append(key if value is True else f"{key} = {format_attr_value(value)}")
    return "{" + ", ".join(parts) + "}"


class Printer:
    """Prints a module; :meth:`print_module` returns the text."""

    def __init__(self, annotate=None):
        # annotate(op) -> str | None: a trailing comment per op (used by --print-analysis).
        self.annotate = annotate
        self.layout_aliases: dict[Layout, str] = {}
        self.names: dict[Value, str] = {}
        self.used: set[str] = set()
        self.counter = 0
        self.lines: list[str] = []

    # -- layouts ----------------------------------------------------------------------------
    def _collect_layouts(self, module: Module) -> None:
        counts: dict[str, int] = {}

        def visit(t: Type) -> None:
            if isinstance(t, (TileType, MemDescType)) and t.layout is not None:
                visit_layout(t.layout)

        def visit_layout(layout: Layout) -> None:
            for nested in ("parent",):
                inner = getattr(layout, nested, None)
                if isinstance(inner, Layout):
                    visit_layout(inner)
            if layout not in self.layout_aliases:
                n = counts.get(layout.alias_prefix, 0)
                counts[layout.alias_prefix] = n + 1
                self.layout_aliases[layout] = f"#{layout.alias_prefix}{n}"

        for f in module.functions:
            for a in f.args:
                visit(a.type)
            for op in f.walk():
                for r in op.results:
                    visit(r.type)
                for region in op.regions:
                    for b in region.blocks:
                        for a in b.args:
                            visit(a.type)

    def layout_text(self, layout: Layout) -> str:
        alias = self.layout_aliases.get(layout)
        if alias is not None:
            return alias
        return str(layout)

    def layout_definition(self, layout: Layout) -> str:
        text = str(layout)
        inner = getattr(layout, "parent", None)
        if isinstance(inner, Layout):
            text = text.replace(str(inner), self.layout_text(inner))
        return text

    def type_text(self, t: Type) -> str:
        if isinstance(t, TileType) and t.layout is not None:
            return f"{t.element}[{','.join(map(str, t.shape))}] {self.layout_text(t.layout)}"
        if isinstance(t, MemDescType) and t.layout is not None:
            alloc = "" if t.alloc_shape is None else f", alloc [{','.join(map(str, t.alloc_shape))}]"
            return f"!ttg.memdesc<{t.element}[{','.join(map(str, t.shape))}] {self.layout_text(t.layout)}{alloc}>"
        return str(t)

    # -- values -----------------------------------------------------------------------------
    def _name(self, v: Value) -> str:
        return self.names[v]

    def _define(self, v: Value) -> str:
        hint = v.name
        if hint:
            name, k = hint, 1
            while name in self.used:
                name, k = f"{hint}_{k}", k + 1
        else:
            while str(self.counter) in self.used:
                self.counter += 1
            name = str(self.counter)
            self.counter += 1
        self.used.add(name)
        self.names[v] = "%" + name
        return "%" + name

    def _define_results(self, op: Operation) -> str:
        if len(op.results) == 1:
            return self._define(op.results[0])
        base = self._define(op.results[0])
        for i, r in enumerate(op.results):
            self.names[r] = f"{base}#{i}"
        return f"{base}:{len(op.results)}"

    # -- structure --------------------------------------------------------------------------
    def print_module(self, module: Module) -> str:
        self._collect_layouts(module)
        out: list[str] = []
        for layout, alias in self.layout_aliases.items():
            out.append(f"{alias} = {self.layout_definition(layout)}")
        attrs = format_attrs(module.attrs)
        out.append(f"module attributes {attrs} {{" if attrs else "module {")
        for f in module.functions:
            self.lines = []
            self.names, self.used, self.counter = {}, set(), 0
            self._print_function(f)
            out.extend(self.lines)
        out.append("}")
        return "\n".join(out) + "\n"

    def _print_function(self, f: Function) -> None:
        params = []
        for arg, attrs in zip(f.args, f.arg_attrs):
            text = f"{self._define(arg)}: {self.type_text(arg.type)}"
            if attrs:
                text += " " + format_attrs(attrs)
            params.append(text)
        results = ""
        if f.result_types:
            results = " -> " + ", ".join(self.type_text(t) for t in f.result_types)
        fattrs = dict(f.attrs)
        fattrs[f.kind] = True
        self.lines.append(f"  tt.func @{f.name}({', '.join(params)}){results} attributes {format_attrs(fattrs)} {{")
        self._print_block_ops(f.body.block, 2)
        self.lines.append("  }")

    def _print_block_ops(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self._print_op(op, depth)

    def _print_op(self, op: Operation, depth: int) -> None:
        indent = "  " * depth
        operands = ", ".join(self._name(v) for v in op.operands)
        lhs = self._define_results(op) + " = " if op.results else ""
        text = f"{indent}{lhs}{op.name}"
        if operands:
            text += " " + operands
        if op.attrs:
            text += " " + format_attrs(op.attrs)
        if op.results:
            text += " : " + ", ".join(self.type_text(r.type) for r in op.results)
        if op.regions:
            text += " {"
            for i, region in enumerate(op.regions):
                if i:
                    self.lines.append(f"{indent}}} {{")
                else:
                    self._emit(text, op)
                block = region.block
                if block.args:
                    args = ", ".join(f"{self._define(a)}: {self.type_text(a.type)}" for a in block.args)
                    self.lines.append(f"{indent}^({args}):")
                self._print_block_ops(block, depth + 1)
            self.lines.append(f"{indent}}}")
            return
        self._emit(text, op)

    def _emit(self, text: str, op: Operation) -> None:
        if self.annotate is not None:
            note = self.annotate(op)
            if note:
                text += f"  // {note}"
        self.lines.append(text)


def print_module(module: Module, annotate=None) -> str:
    """The text form of ``module``. ``annotate(op) -> str | None`` adds a trailing comment per op."""
    return Printer(annotate).print_module(module)
