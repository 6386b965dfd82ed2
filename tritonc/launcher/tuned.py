"""The C side of tuned dispatch (``--tuning``): the function that picks a variant from the key
arguments, by the rule of :mod:`tritonc.tuning.dispatch` (which the Python runtime's
``_tuned_variant`` follows too)."""
from __future__ import annotations

from ..tuning.dispatch import TunedDispatch


def c_function(td: TunedDispatch, name: str, key_cnames: list[str], default: int, tp: str) -> list[str]:
    """C for ``td``: ``unsigned int <name>(long long key0, ...)`` returning the variant index; ``tp`` is
    the header's type prefix (the helpers ``<tp>tuned_pow2`` / ``<tp>tuned_range``)."""
    args = ", ".join(f"long long {c}" for c in key_cnames)
    n, axes = len(td.entries), len(td.key)
    lines = [f"/* The variant the tuning table picks for ({', '.join(td.key)}): the nearest bucket in "
             "log2 space (docs/tuning.md), else the default. */",
             f"static inline unsigned int {name}({args})", "{"]
    if not td.entries:
        lines += [f"    (void){c};" for c in key_cnames]
        lines += [f"    return {default}u;", "}"]
        return lines
    for axis, r in enumerate(td.rules):
        if r is not None:
            lines.append(f"    static const long long bounds{axis}[{len(r)}] = {{"
                         + ", ".join(f"{b}LL" for b in r) + "};")
    coords = ", ".join(", ".join(str(x) for x in c) for c, _ in td.entries)
    lines += [f"    static const int coords[{n * axes}] = {{{coords}}};",
              f"    static const unsigned int variants[{n}] = {{"
              + ", ".join(f"{v}u" for _, v in td.entries) + "};",
              f"    int here[{axes}];",
              "    int i, axis;",
              f"    unsigned int best = {default}u;",
              "    long long best_distance = -1;"]
    for axis, (r, c) in enumerate(zip(td.rules, key_cnames)):
        if r is None:
            lines.append(f"    here[{axis}] = {tp}tuned_pow2({c});")
        else:
            lines.append(f"    here[{axis}] = {tp}tuned_range({c}, bounds{axis}, {len(r)});")
    lines += [f"    for (i = 0; i < {n}; ++i) {{",
              "        long long distance = 0;",
              f"        for (axis = 0; axis < {axes}; ++axis) {{",
              f"            int d = coords[i * {axes} + axis] - here[axis];",
              "            distance += d < 0 ? -d : d;",
              "        }",
              "        if (best_distance < 0 || distance < best_distance) {",
              "            best_distance = distance;",
              "            best = variants[i];",
              "        }",
              "    }",
              "    return best;",
              "}"]
    return lines


def c_helper_definitions(tp: str, mp: str) -> list[str]:
    """The bucketing helpers every tuned dispatcher of a header uses (guarded, defined once)."""
    return [f"#ifndef {mp}TUNED_V1",
            f"#define {mp}TUNED_V1",
            "/* Tuned dispatch (docs/tuning.md): ceil(log2(v)), 0 for v <= 1 ... */",
            f"static inline int {tp}tuned_pow2(long long v)",
            "{",
            "    int c = 0;",
            "    while (c < 63 && (1LL << c) < v) ++c;",
            "    return c;",
            "}",
            "/* ... and the number of ascending bounds <= v. */",
            f"static inline int {tp}tuned_range(long long v, const long long *bounds, int n)",
            "{",
            "    int c = 0;",
            "    while (c < n && bounds[c] <= v) ++c;",
            "    return c;",
            "}",
            "#endif"]
