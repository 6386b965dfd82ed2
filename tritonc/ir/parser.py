"""Parser for the text form written by ``ir/printer.py`` (recursive descent over a token list).

``parse_module(text) -> Module``. Errors raise :class:`IRParseError` with the line and column
in the IR text. Names are kept as value name hints, so printing a parsed module reproduces the
input text when that text came from the printer. Comments (``// ...``) are ignored.
"""
from __future__ import annotations

import re
from dataclasses import MISSING, fields
from typing import Any

from .core import Block, Function, Module, Operation, Region, Value
from .layouts import LAYOUT_KINDS, Layout
from .ops import get_opdef, is_registered
from .types import SCALARS, MemDescType, PointerType, ScalarType, TileType, Type


class IRParseError(Exception):
    """Malformed IR text: the message names the line and column."""


_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<alias>\#[A-Za-z_][\w.]*)
  | (?P<value>%[\w.]+(?:\#\d+)?)
  | (?P<symbol>@[\w.]+)
  | (?P<number>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)|-?inf\b|nan\b)
  | (?P<ident>[A-Za-z_][\w.]*)
  | (?P<arrow>->)
  | (?P<punct>[=,:(){}\[\]<>^!])
""", re.VERBOSE)


class _Tokens:
    def __init__(self, text: str):
        self.toks: list[tuple[str, str, int, int]] = []
        line, line_start, pos = 1, 0, 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise IRParseError(f"{line}:{pos - line_start + 1}: unexpected character {text[pos]!r}")
            kind = m.lastgroup
            if kind != "ws":
                self.toks.append((kind, m.group(), line, m.start() - line_start + 1))
            for nl in re.finditer("\n", m.group()):
                line += 1
                line_start = m.start() + nl.end()
            pos = m.end()
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str, int, int]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", 0, 0)

    def next(self) -> tuple[str, str, int, int]:
        tok = self.peek()
        self.i += 1
        return tok

    def error(self, message: str):
        _, text, line, col = self.peek()
        return IRParseError(f"{line}:{col}: {message} (at {text!r})")

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text and self.peek()[0] in ("punct", "arrow", "ident"):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.error(f"expected '{text}'")

    def expect_kind(self, kind: str) -> str:
        tok = self.next()
        if tok[0] != kind:
            self.i -= 1
            raise self.error(f"expected {kind}")
        return tok[1]


def _number(text: str) -> int | float:
    if text in ("inf", "-inf", "nan"):
        return float(text)
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


class _Parser:
    def __init__(self, text: str):
        self.t = _Tokens(text)
        self.aliases: dict[str, Layout] = {}
        self.values: dict[str, Value] = {}

    # -- attributes -------------------------------------------------------------------------
    def attr_value(self) -> Any:
        kind, text, _, _ = self.t.peek()
        if kind == "number":
            self.t.next()
            return _number(text)
        if kind == "string":
            self.t.next()
            return re.sub(r"\\(.)", r"\1", text[1:-1])
        if kind == "ident" and text in ("true", "false"):
            self.t.next()
            return text == "true"
        if text == "[":
            self.t.next()
            items = []
            while not self.t.accept("]"):
                items.append(self.attr_value())
                if not self.t.accept(","):
                    self.t.expect("]")
                    break
            return items
        if kind == "alias":
            return self.layout()
        raise self.t.error("expected an attribute value")

    def attr_dict(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        self.t.expect("{")
        while not self.t.accept("}"):
            key = self.t.expect_kind("ident")
            attrs[key] = self.attr_value() if self.t.accept("=") else True
            if not self.t.accept(","):
                self.t.expect("}")
                break
        return attrs

    def at_attr_dict(self) -> bool:
        if self.t.peek()[1] != "{":
            return False
        kind, text, _, _ = self.t.peek(1)
        return text == "}" or (kind == "ident" and "." not in text)

    # -- layouts and types ------------------------------------------------------------------
    def layout(self) -> Layout:
        name = self.t.expect_kind("alias")
        if not name.startswith("#ttg."):
            if name not in self.aliases:
                raise self.t.error(f"undefined layout alias {name}")
            return self.aliases[name]
        kind = name[len("#ttg."):]
        cls = LAYOUT_KINDS.get(kind)
        if cls is None:
            raise self.t.error(f"unknown layout kind {kind!r}")
        self.t.expect("<")
        values: dict[str, Any] = {}
        while not self.t.accept(">"):
            key = self.t.expect_kind("ident")
            self.t.expect("=")
            values[key] = self.attr_value()
            if not self.t.accept(","):
                self.t.expect(">")
                break
        try:
            args = {f.name: tuple(values[f.name]) if isinstance(values[f.name], list) else values[f.name]
                    for f in fields(cls)  # type: ignore[arg-type]
                    if f.name in values or f.default is MISSING}
        except KeyError as e:
            raise self.t.error(f"layout {kind} lacks field {e}") from None
        return cls(**args)

    def scalar_or_pointer(self):
        name = self.t.expect_kind("ident")
        if name == "ptr":
            self.t.expect("<")
            pointee = self.scalar_or_pointer()
            self.t.expect(">")
            return PointerType(pointee)
        if name not in SCALARS:
            self.t.i -= 1
            raise self.t.error("expected a type")
        return SCALARS[name]

    def type(self) -> Type:
        if self.t.accept("!"):
            return self.memdesc_type()
        element = self.scalar_or_pointer()
        if not self.t.accept("["):
            return element
        shape = []
        while True:
            shape.append(int(self.t.expect_kind("number")))
            if self.t.accept("]"):
                break
            self.t.expect(",")
        layout = self.layout() if self.t.peek()[0] == "alias" else None
        return TileType(element, tuple(shape), layout)

    def memdesc_type(self) -> MemDescType:
        """``ttg.memdesc<f16[3,64,32] #shared0>`` (after the ``!``)."""
        self.t.expect("ttg.memdesc")
        self.t.expect("<")
        element = self.scalar_or_pointer()
        if not isinstance(element, ScalarType):
            raise self.t.error("a shared-memory buffer holds scalars")
        self.t.expect("[")
        shape = []
        while True:
            shape.append(int(self.t.expect_kind("number")))
            if self.t.accept("]"):
                break
            self.t.expect(",")
        layout = self.layout() if self.t.peek()[0] == "alias" else None
        alloc = None
        if self.t.accept(","):
            self.t.expect("alloc")
            self.t.expect("[")
            alloc = []
            while True:
                alloc.append(int(self.t.expect_kind("number")))
                if self.t.accept("]"):
                    break
                self.t.expect(",")
            alloc = tuple(alloc)
        self.t.expect(">")
        return MemDescType(element, tuple(shape), layout, alloc)

    # -- values -----------------------------------------------------------------------------
    @staticmethod
    def _hint(name: str) -> str | None:
        bare = name[1:]
        return None if bare.isdigit() else bare

    def define(self, name: str, v: Value) -> None:
        if name in self.values:
            raise self.t.error(f"value {name} defined twice")
        v.name = self._hint(name)
        self.values[name] = v

    def use(self) -> Value:
        name = self.t.expect_kind("value")
        if name not in self.values:
            self.t.i -= 1
            raise self.t.error(f"use of undefined value {name}")
        return self.values[name]

    # -- structure --------------------------------------------------------------------------
    def module(self) -> Module:
        while self.t.peek()[0] == "alias":
            name = self.t.next()[1]
            self.t.expect("=")
            self.aliases[name] = self.layout()
        self.t.expect("module")
        attrs = self.attr_dict() if self.t.accept("attributes") else {}
        module = Module(attrs=attrs)
        self.t.expect("{")
        while not self.t.accept("}"):
            module.add_function(self.function())
        if self.t.peek()[0] != "eof":
            raise self.t.error("text after the module")
        return module

    def function(self) -> Function:
        self.t.expect("tt.func")
        name = self.t.expect_kind("symbol")[1:]
        self.values = {}
        self.t.expect("(")
        params: list[tuple[str, Type, dict]] = []
        while not self.t.accept(")"):
            pname = self.t.expect_kind("value")
            self.t.expect(":")
            ptype = self.type()
            pattrs = self.attr_dict() if self.at_attr_dict() else {}
            params.append((pname, ptype, pattrs))
            if not self.t.accept(","):
                self.t.expect(")")
                break
        results: list[Type] = []
        if self.t.accept("->"):
            results.append(self.type())
            while self.t.accept(","):
                results.append(self.type())
        fattrs = self.attr_dict() if self.t.accept("attributes") else {}
        kind = "device" if fattrs.pop("device", False) else "kernel"
        fattrs.pop("kernel", None)
        f = Function(name, [p[1] for p in params], results, kind=kind, arg_attrs=[p[2] for p in params], attrs=fattrs)
        for (pname, _, _), arg in zip(params, f.args):
            self.define(pname, arg)
        self.t.expect("{")
        self.block_body(f.body.block)
        return f

    def block_body(self, block: Block) -> None:
        """Ops up to and including the closing ``}``."""
        while not self.t.accept("}"):
            block.append(self.operation())

    def at_result_definition(self) -> bool:
        """Whether the next tokens start the next op's results (``%x =`` or ``%x:2 =``), not an operand."""
        if self.t.peek(1)[1] == "=":
            return True
        return self.t.peek(1)[1] == ":" and self.t.peek(2)[0] == "number" and self.t.peek(3)[1] == "="

    def operation(self) -> Operation:
        result_names: list[str] = []
        count = 0
        if self.t.peek()[0] == "value":
            name = self.t.next()[1]
            count = 1
            if self.t.accept(":"):
                count = int(self.t.expect_kind("number"))
            result_names = [name]
            self.t.expect("=")
        kind, opname, line, col = self.t.next()
        if kind != "ident" or not is_registered(opname):
            self.t.i -= 1
            raise self.t.error("expected an operation name")
        operands: list[Value] = []
        if self.t.peek()[0] == "value" and not self.at_result_definition():
            operands.append(self.use())
            while self.t.accept(","):
                operands.append(self.use())
        attrs = self.attr_dict() if self.at_attr_dict() else {}
        types: list[Type] = []
        if self.t.accept(":"):
            types.append(self.type())
            while self.t.accept(","):
                types.append(self.type())
        if len(types) != count:
            raise IRParseError(f"{line}:{col}: {opname} defines {count} results but lists {len(types)} types")
        op = Operation(opname, operands, types, attrs)
        if result_names:
            base = result_names[0]
            if count == 1:
                self.define(base, op.results[0])
            else:
                op.results[0].name = self._hint(base)
                for i, r in enumerate(op.results):
                    if f"{base}#{i}" in self.values:
                        raise self.t.error(f"value {base}#{i} defined twice")
                    self.values[f"{base}#{i}"] = r
        for _ in range(get_opdef(opname).num_regions):
            if _:
                self.t.expect("}")
            self.t.expect("{")
            region = Region()
            if self.t.accept("^"):
                self.t.expect("(")
                while not self.t.accept(")"):
                    aname = self.t.expect_kind("value")
                    self.t.expect(":")
                    self.define(aname, region.block.add_argument(self.type()))
                    if not self.t.accept(","):
                        self.t.expect(")")
                        break
                self.t.expect(":")
            while self.t.peek()[1] != "}":
                region.block.append(self.operation())
            op.add_region(region)
        if op.regions:
            self.t.expect("}")
        return op


def parse_module(text: str) -> Module:
    """Parse IR text (as printed by :func:`~tritonc.ir.printer.print_module`) into a module.

    Raises:
        IRParseError: malformed text, unknown op, undefined value or layout alias.
    """
    return _Parser(text).module()


def parse_type(text: str) -> Type:
    """Parse one type, e.g. ``ptr<f16>[64,32]`` or ``f32[128] #ttg.blocked<...>``."""
    p = _Parser(text)
    t = p.type()
    if p.t.peek()[0] != "eof":
        raise p.t.error("text after the type")
    return t


__all__ = ["parse_module", "parse_type", "IRParseError", "ScalarType"]
