"""The layer order of the tritonc package, checked on every import statement (``ast``), those
inside functions included:

    base (options, diagnostics, files, target, version) < ir < passes
    < frontend / analysis / interpreter < transforms < codegen < launcher < runtime < driver
    < cli / tools / simt / fuzz and the package itself (``tritonc.interpret`` compiles, then runs
    the interpreter)

1. no module imports a module of a higher layer, and frontend, analysis and interpreter do not
   import each other;
2. the import graph has no cycles (imports under ``if TYPE_CHECKING:`` are for annotations
   only and do not count here; they do for the layers);
3. no private name (``_name``) is imported from another module, neither with
   ``from m import _name`` nor as ``m._name`` after ``import m``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "tritonc"

#: Layer of each top-level module or subpackage of ``tritonc`` (higher may import lower).
LAYERS = {
    "options": 0, "diagnostics": 0, "files": 0, "target": 0, "version": 0,
    "ir": 1,
    "passes": 2,
    "frontend": 3, "analysis": 3, "interpreter": 3,
    "transforms": 4,
    "codegen": 5, "tuning": 5,
    "launcher": 6,
    "runtime": 7, "cache": 7,
    "driver": 8, "multiarch": 8, "meta_parameters": 8, "frontend_stage": 8, "resource_report": 8,
    "cli": 9, "cli_args": 9, "__main__": 9, "tools": 9, "simt": 9, "fuzz": 9, "variants": 9, "depfile": 9, "__init__": 9,
}


#: Private names imported across modules that are someone else's to fix: none left. Each entry
#: is ``(importing module, imported module, name)``; the test fails when one is no longer used.
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Import:
    module: str     # the importing module, dotted
    target: str     # the imported module, dotted
    names: tuple    # names taken from it (``from target import ...``)
    line: int
    type_only: bool = False  # under ``if TYPE_CHECKING:``


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(module: str, path: Path, known: set[str]) -> tuple[list[Import], list[tuple[int, str, str]]]:
    """The imports of ``module`` (to tritonc modules) and its ``alias._private`` uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    out: list[Import] = []
    aliases: dict[str, str] = {}
    type_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            type_only |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "tritonc":
                    out.append(Import(module, a.name, (), node.lineno, id(node) in type_only))
                    if a.asname:
                        aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node.level, node.module) if node.level else node.module
            if not target or target.split(".")[0] != "tritonc":
                continue
            plain = []
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in known:  # ``from package import submodule``
                    out.append(Import(module, sub, (), node.lineno, id(node) in type_only))
                    aliases[a.asname or a.name] = sub
                else:
                    plain.append(a.name)
            if plain or not node.names:
                out.append(Import(module, target, tuple(plain), node.lineno, id(node) in type_only))
    private_uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                private_uses.append((node.lineno, aliases[node.value.id], node.attr))
    return out, private_uses


def layer(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    if key not in LAYERS:
        raise AssertionError(f"module {module} is in no layer: add '{key}' to LAYERS")
    return LAYERS[key]


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.fixture(scope="module")
def graph():
    mods = modules()
    known = set(mods)
    edges: list[Import] = []
    private: list[tuple[str, int, str, str]] = []
    for name, path in mods.items():
        found, uses = imports_of(name, path, known)
        edges += [e for e in found if e.target != name]
        private += [(name, line, target, attr) for line, target, attr in uses]
    return mods, edges, private


def test_every_module_has_a_layer(graph):
    mods, _, _ = graph
    for name in mods:
        layer(name)


def test_no_upward_imports(graph):
    _, edges, _ = graph
    bad = [f"{e.module}:{e.line} imports {e.target} (layer {layer(e.module)} -> {layer(e.target)})"
           for e in edges if layer(e.target) > layer(e.module)]
    assert not bad, "\n".join(bad)


def test_peer_packages_do_not_import_each_other(graph):
    """frontend, analysis and interpreter share a layer but stay independent."""
    _, edges, _ = graph
    bad = [f"{e.module}:{e.line} imports {e.target}" for e in edges
           if layer(e.module) == layer(e.target) == LAYERS["analysis"]
           and package_of(e.target) != package_of(e.module)]
    assert not bad, "\n".join(bad)


def test_no_import_cycles(graph):
    mods, edges, _ = graph
    succ: dict[str, set[str]] = {m: set() for m in mods}
    for e in edges:
        if e.target in succ and not e.type_only:
            succ[e.module].add(e.target)
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(succ[m]):
            if state.get(n) == 1:
                cycles.append(" -> ".join(stack[stack.index(n):] + [n]))
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(mods):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(cycles)


def test_no_private_names_across_modules(graph):
    _, edges, private = graph
    found = {(e.module, e.target, n) for e in edges for n in e.names if n.startswith("_") and not n.startswith("__")}
    found |= {(m, target, attr) for m, _, target, attr in private if target != m}
    assert KNOWN_PRIVATE_IMPORTS <= found, f"no longer imported, drop from the list: {KNOWN_PRIVATE_IMPORTS - found}"
    bad = sorted(found - KNOWN_PRIVATE_IMPORTS)
    assert not bad, "\n".join(f"{m} imports {t}.{n}" for m, t, n in bad)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path):
    """The rules would be empty if the parser missed imports: check it on a sample."""
    pkg = tmp_path / "tritonc" / "sub"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tritonc.ir import core\n"
                              "def f():\n    from ..codegen.llvm import lowering\n"
                              "    from .b import _hidden\n    import tritonc.driver as d\n    return d._x\n")
    known = {"tritonc.codegen.llvm", "tritonc.codegen.llvm.lowering", "tritonc.sub.b", "tritonc.driver",
             "tritonc.ir", "tritonc.ir.core"}
    found, uses = imports_of("tritonc.sub.a", pkg / "a.py", known)
    assert {(i.target, i.names, i.type_only) for i in found} == {
        ("tritonc.codegen.llvm.lowering", (), False), ("tritonc.sub.b", ("_hidden",), False),
        ("tritonc.driver", (), False), ("tritonc.ir.core", (), True)}
    assert uses == [(8, "tritonc.driver", "_x")]
    assert layer("tritonc.codegen.llvm.lowering") > layer("tritonc.ir.core") > layer("tritonc.target")
