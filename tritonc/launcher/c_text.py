"""C spelling shared by the sections of the generated header (:mod:`.c_header`, :mod:`.c_loader`,
:mod:`.c_launch`): string literals, comment text, and the names a symbol prefix gives the header's
types, macros and declared-grid helpers.
"""
from __future__ import annotations


def c_string_literal(text: str) -> str:
    """``text`` as a C string literal: ASCII only, with ``?`` escaped (no trigraphs)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '\\"?':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        else:
            for byte in ch.encode("utf-8"):
                out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def comment_safe(text: str) -> str:
    """Text that cannot end a ``/* */`` comment."""
    return "".join(ch if ch.isprintable() else " " for ch in text).replace("*/", "*\\/")


def header_names(prefix: str) -> tuple[str, str]:
    """``(type prefix, macro prefix)`` of a header with symbol prefix ``prefix``: the struct
    and helper names start with the first (``tritonc_`` by default), the macros with the second
    (the prefix in capitals, ``TRITONC_`` by default). The launch functions and each kernel's
    ``_metadata`` are ``prefix + kernel name``; the header's private data
    ``prefix + "tritonc_" + first kernel name``."""
    tp = prefix or "tritonc_"
    return tp, tp.upper()


def grid_names(line: str, prefix: str) -> str:
    """A line of the declared-grid helpers (``tritonc.launcher.grid``) with ``prefix``'s names."""
    tp, mp = header_names(prefix)
    return line.replace("tritonc_grid_", f"{tp}grid_").replace("TRITONC_GRID_", f"{mp}GRID_")
