"""Syntax-error messages in the style of C compilers ("expected ';' before 'int'").

The LALR parser (``parser.py``) reports the terminals it could have accepted; this module
turns that set, the offending token and the parser's stack into one located
:class:`~tritonc.diagnostics.CompileError`. It is located at the offending token, except a
missing ``;``: that is reported just after the token it should follow, as gcc and clang do
(``x = 1`` at the end of line 2 is an error at 2:10, not on line 3); when that token came from
a macro, just after the whole invocation.
"""
from __future__ import annotations

from lark import Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from tritonc.diagnostics import CompileError, spell_char
from tritonc.frontend.preprocess import PreprocessedSource

EXPRESSION_START = {"NAME", "INT_LIT", "LPAR"}

#: Words that are keywords wherever they appear. The contextual lexer makes a keyword an
#: identifier in places where the grammar cannot accept it, so these are checked by hand.
RESERVED = frozenset(
    "if else for while do break continue return const void bool _Bool char short int long signed "
    "unsigned half bfloat16 float double int1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
    "uchar ushort uint ulong fp16 fp32 fp64 true false bitcast __global__ __device__ "
    "__attribute__".split())


def describe_expected(expected: set[str], at_end: bool, display: dict[str, str]) -> str:
    """Summarise an LALR parser's acceptable terminals the way C compilers do."""
    if at_end and "RBRACE" in expected:
        return "'}'"
    for closer in ("SEMICOLON", "RPAR", "RSQB", "COLON"):
        if closer in expected:
            return display[closer]
    if EXPRESSION_START <= expected:
        return "expression"
    if "NAME" not in expected and expected & {"VOID", "FLOAT", "HALF"}:
        return "a type name"
    if expected == {"NAME"} or ("NAME" in expected and "STAR" in expected):
        return "identifier"
    names = sorted(display.get(e, e) for e in expected)
    if len(names) > 4:
        names = names[:4]
    return " or ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " or " + names[-1]


def syntax_error(err: UnexpectedInput, pre: PreprocessedSource, display: dict[str, str]) -> CompileError:
    """The located ``CompileError`` for lark's ``err`` (``display``: terminal name -> spelling)."""
    if isinstance(err, UnexpectedCharacters):
        loc = pre.loc_at(err.pos_in_stream)
        return CompileError(f"stray '{spell_char(pre.text[err.pos_in_stream])}' in program", loc)
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    at_end = tok.type == "$END"
    loc = pre.eof_loc if at_end else pre.loc_at(tok.start_pos)
    stack = err.interactive_parser.parser_state.value_stack if err.interactive_parser else []
    last = stack[-1] if stack else None
    if isinstance(last, Tree) and last.data == "identifier" and last.children[0].value in RESERVED:
        word = last.children[0]
        return CompileError(f"expected expression before '{word.value}'", pre.loc_at(word.start_pos))
    if not at_end and tok.value == "(" and "NAME" in err.expected:
        following = pre.text[tok.end_pos:].lstrip()
        if following.startswith("*"):
            return CompileError("function pointers are not supported in Triton-C", loc)
    where = "at end of input" if at_end else f"before '{tok.value}'"
    expected = set(err.accepts or err.expected)
    what = describe_expected(expected, at_end, display)
    if what == display.get("SEMICOLON") and not at_end:
        # a missing ';' belongs after the previous token (gcc and clang), not on the next line
        loc = pre.end_before(tok.start_pos) or loc
    return CompileError(f"expected {what} {where}", loc)
