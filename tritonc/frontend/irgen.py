"""IR generation: typed Triton-C AST -> tile IR (``tt``/``scf``/``arith``/``math`` ops of ``ir/ops.py``).

``generate_ir(tu, tunables=..., diag=..., num_warps=4)`` runs :func:`~tritonc.frontend.sema.analyze`
and builds a :class:`~tritonc.ir.core.Module` (attribute ``num_warps``) holding every function in
source order: kernels as ``Function(kind="kernel")``, ``__device__`` functions as
``Function(kind="device")``; calls between them are ``tt.call {callee}`` (the inline pass inlines).

SSA construction over structured control flow (no basic blocks, so no phis to place): a
variable is a Python-side binding ``Symbol -> Value`` (``self.env``).

* ``if`` becomes ``scf.if`` whose results are the variables (defined before it) that either
  branch assigns; a constant condition lowers only the branch taken;
* loops carry every outer variable assigned in them as iteration arguments. A C ``for`` is an
  ``scf.for`` when canonical: the init declares (or assigns) one ``int``/``long`` (or unsigned)
  induction variable, the condition compares it (``< <= > >= !=``, either side) with a loop-invariant,
  side-effect-free bound in its own type, the step is ``++``/``--``/``+= e``/``-= e``/``= iv + e``
  with ``e`` invariant, the body does not assign it and has no ``break``/``return``. The
  predicate comes from the comparison and the signedness (``k > 0`` -> ``"sgt"``). Every other
  loop (and ``while``, ``do``/``while``) is an ``scf.while``. An init that assigns an outer
  variable (``for (k = 0; ...)``) also qualifies; if ``k`` is read outside the loop, its final
  value (``iv + step`` of the last trip, or the start) is carried as an extra iteration value;
* ``break``, ``continue`` and ``return`` set flag variables (``brk``, ``cont``, ``ret``; ``retval``
  for the value of a device function) that are carried like any variable. After a statement
  that may jump, the rest of its block runs under ``scf.if(!flag)``; an ``if`` whose branch always
  jumps takes the rest of the block into its other branch instead; a loop that may break tests
  ``brk`` before its condition; ``continue`` skips the rest of the body but not a ``for``'s step.
  Flags are constants until control flow merges them, so straight-line jumps cost nothing.

Values are named after the source variables they are assigned to (``%acc``, ``%pa``), block
arguments too; every op carries the :class:`SourceLoc` of the statement or expression it
comes from. ``__multipleof(n)`` on a local is recorded as the attribute ``multipleof = n`` on
the (region-free) op defining each value assigned to it; a value that has no such op (a
parameter, a loop-carried block argument) is left unannotated. Unused results of the ``scf.if``
ops built here and constants nothing reads are removed at the end.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from tritonc.diagnostics import DiagnosticSink, recursion_headroom
from tritonc.frontend import ast
from tritonc.frontend.ctype import BOOL, CType, convert_const, wrap_int
from tritonc.frontend.irgen_calls import CallLowering
from tritonc.frontend.irgen_expr import ExprLowering, LazyConstant, cmpi_predicate
from tritonc.frontend.sema import analyze
from tritonc.frontend.sema_info import FuncInfo, SemaResult, Symbol, has_effects, has_loads
from tritonc.ir.builder import Builder
from tritonc.ir.core import Block, Function, Module, Region, Value
from tritonc.ir.types import shape_of

_LOOPS = (ast.For, ast.While, ast.DoWhile)
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


@dataclass
class _Loop:
    brk: Symbol | None
    cont: Symbol | None


def generate_ir(tu: ast.TranslationUnit, *, tunables: dict[str, int] | None = None,
                diag: DiagnosticSink | None = None, num_warps: int = 4) -> Module:
    """Check ``tu`` and lower it to a tile IR module.

    Args:
        tu: the parsed translation unit.
        tunables: values of ``const tunable`` names (default: each one's first candidate).
        diag: receives warnings (``-Wdouble-promotion``, ``-Wreturn-type``, ``-Wshadow``).
        num_warps: recorded as the module attribute ``num_warps``.

    Returns:
        A module that passes :func:`tritonc.ir.verifier.verify_module`.

    Raises:
        CompileError: the first error in the program (from sema; irgen itself adds none).
    """
    with recursion_headroom():  # sema and irgen recurse per nesting level (the parser bounds it)
        return IRGen(analyze(tu, tunables=tunables, diag=diag), num_warps).run()


class IRGen(ExprLowering, CallLowering):
    """Lowers one analysed translation unit (see :func:`generate_ir`)."""

    def __init__(self, sema: SemaResult, num_warps: int):
        self.sema = sema
        self.module = Module(attrs={"num_warps": num_warps})
        self.b = Builder()
        self.env: dict[Symbol, Value | LazyConstant] = {}
        self.loop: _Loop | None = None
        self.ret_flag: Symbol | None = None
        self.ret_val: Symbol | None = None
        self.pending_pred: tuple[Value, tuple[int, ...]] | None = None
        self.fn_body: ast.Compound | None = None
        self.fn_info: FuncInfo | None = None
        self._assigned: dict[int, frozenset[Symbol]] = {}
        self._exits: dict[int, frozenset[str]] = {}

    def run(self) -> Module:
        for f in self.sema.functions:
            self.function(f)
        return self.module

    # -- functions --------------------------------------------------------------------------------
    def function(self, f: FuncInfo) -> None:
        results = [] if f.result.is_void else [f.result.ir()]
        fn = Function(f.name, [p.type.ir() for p in f.params], results, [p.name for p in f.params],
                      kind=f.kind, arg_attrs=f.arg_attrs, loc=f.node.loc)
        self.module.add_function(fn)
        self.env = {p: a for p, a in zip(f.params, fn.args)}
        self.fn_info = f
        # a return under an 'if' on a tile (element-wise instance) is taken per element
        flag_type = BOOL.with_shape(f.ew_shape) if f.masked_return else BOOL
        self.ret_flag = Symbol("ret", flag_type, "flag")
        self.env[self.ret_flag] = LazyConstant(0, flag_type)
        self.ret_val = None
        if not f.result.is_void:
            self.ret_val = Symbol("retval", f.result, "flag")
            self.env[self.ret_val] = LazyConstant(0, f.result)
        self.fn_body = f.node.body
        self.b.at_end(fn.body.block)
        self.b.loc = f.node.loc
        self.block(f.node.body.items)
        with self.b.location(f.node.body.loc):
            self.b.create("tt.return", [self.read(self.ret_val)] if self.ret_val else [])
        _prune(fn)

    # -- analyses of statements -------------------------------------------------------------------
    def assigned(self, node: ast.Node) -> frozenset[Symbol]:
        """Variables that ``node`` (a statement or expression) may assign."""
        key = id(node)
        if key not in self._assigned:
            out = set()
            for n in node.walk():
                target = None
                if isinstance(n, ast.Assign):
                    target = n.target
                elif isinstance(n, ast.Postfix) or (isinstance(n, ast.Unary) and n.op in ("++", "--")):
                    target = n.operand
                if isinstance(target, ast.Identifier):
                    out.add(self.info(target).symbol)
            self._assigned[key] = frozenset(out)
        return self._assigned[key]

    def exits(self, s: ast.Node) -> frozenset[str]:
        """Jumps out of ``s``: ``'break'``/``'continue'`` of the enclosing loop, ``'return'``."""
        key = id(s)
        if key not in self._exits:
            if isinstance(s, ast.Break):
                out = {"break"}
            elif isinstance(s, ast.Continue):
                out = {"continue"}
            elif isinstance(s, ast.Return):
                out = {"return"}
            elif isinstance(s, _LOOPS):
                out = {"return"} & self.exits(s.body)
            elif isinstance(s, ast.Compound):
                out = set().union(*(self.exits(i) for i in s.items))
            elif isinstance(s, ast.If):
                out = set(self.exits(s.then)) | (self.exits(s.otherwise) if s.otherwise else set())
            elif isinstance(s, ast.Predicated):
                out = set(self.exits(s.stmt))
            else:
                out = set()
            self._exits[key] = frozenset(out)
        return self._exits[key]

    def flag(self, kind: str) -> Symbol | None:
        if kind == "return":
            return self.ret_flag
        if self.loop is None:
            return None
        return self.loop.brk if kind == "break" else self.loop.cont

    def carried(self, nodes: list[ast.Node]) -> list[Symbol]:
        """Variables bound now that ``nodes`` may assign (including jump flags), in declaration order."""
        syms: set[Symbol] = set()
        for n in nodes:
            if n is None:
                continue
            syms |= self.assigned(n)
            for kind in self.exits(n):
                syms.add(self.flag(kind))
                if kind == "return" and self.ret_val is not None:
                    syms.add(self.ret_val)
        return sorted((s for s in syms if s is not None and s in self.env), key=lambda s: s.uid)

    # -- structured control flow helpers ----------------------------------------------------------
    def build_if(self, cond: Value, then_fn: Callable[[], list[Value]] | None,
                 else_fn: Callable[[], list[Value]] | None, syms: list[Symbol],
                 extra: list[CType] = ()) -> list[Value]:
        """Emit ``scf.if cond`` whose branches run ``then_fn``/``else_fn`` (each returning values
        of types ``extra``) and yield the variables ``syms``; rebinds ``syms`` to the results and
        returns the ``extra`` results."""
        saved = dict(self.env)
        types = [t.ir() for t in extra] + [s.type.ir() for s in syms]
        op = self.b.create("scf.if", [cond], types, regions=[Region(), Region()])
        for region, fn in zip(op.regions, (then_fn, else_fn)):
            self.env = dict(saved)
            with self.b.insertion(region.block):
                values = list(fn()) if fn is not None else []
                self.b.create("scf.yield", values + [self.read(s) for s in syms])
        self.env = saved
        n = len(extra)
        for s, r in zip(syms, op.results[n:]):
            r.name = s.name
            self.env[s] = r
        return op.results[:n]

    def pending_exit(self, kinds) -> Value | None | bool:
        """Whether the flags of jump ``kinds`` are set: ``True``/``None`` (surely set / surely
        not), or an i1 value that is true when one of them is set."""
        live = []
        for kind in sorted(kinds):
            sym = self.flag(kind)
            if sym is None or sym not in self.env:
                continue
            v = self.env[sym]
            if isinstance(v, LazyConstant):
                if v.value:
                    return True
                continue
            live.append(v)
        if not live:
            return None
        out = live[0]
        for v in live[1:]:
            out = self.emit("arith.ori", [out, v], out.type)
        return out

    # -- statements -------------------------------------------------------------------------------
    def block(self, items: list[ast.Stmt]) -> None:
        """Lower a statement list, guarding what follows a statement that may jump."""
        for i, s in enumerate(items):
            rest = items[i + 1:]
            if isinstance(s, ast.If) and rest and (_always_exits(s.then) or
                                                   (s.otherwise is not None and _always_exits(s.otherwise))):
                self.if_stmt(s, rest)
                return
            self.stmt(s)
            if not rest or not self.exits(s):
                continue
            with self.b.location(s.loc):
                pending = self.pending_exit(self.exits(s))
                if pending is True:
                    return
                if pending is not None and shape_of(pending.type):  # returned in some elements only
                    shape = shape_of(pending.type)
                    with self.demanding(self.demand_mask(shape, self.not_(pending))):
                        self.block(rest)
                    return
                if pending is not None:
                    self.build_if(self.not_(pending), lambda: self.cleared(self.exits(s), self.block, rest),
                                  None, self.carried(rest))
                    return

    def cleared(self, kinds, fn: Callable, *args) -> list[Value]:
        """Run ``fn(*args)`` knowing that the flags of jump ``kinds`` are false (inside a guard)."""
        for kind in kinds:
            sym = self.flag(kind)
            if sym is not None and sym in self.env:
                self.env[sym] = LazyConstant(0, BOOL)
        fn(*args)
        return []

    def stmt(self, s: ast.Stmt) -> None:
        with self.b.location(s.loc):
            if isinstance(s, ast.Compound):
                self.block(s.items)
            elif isinstance(s, ast.Decl):
                for d in s.declarators:
                    self.declarator(d)
            elif isinstance(s, ast.ExprStmt):
                self.rvalue(s.expr)
            elif isinstance(s, ast.If):
                self.if_stmt(s, [])
            elif isinstance(s, ast.For):
                canon = self.canonical_for(s)
                if canon is not None:
                    self.scf_for(s, *canon)
                else:
                    self.while_loop(s)
            elif isinstance(s, (ast.While, ast.DoWhile)):
                self.while_loop(s)
            elif isinstance(s, (ast.Break, ast.Continue)):
                self.env[self.flag("break" if isinstance(s, ast.Break) else "continue")] = LazyConstant(1, BOOL)
            elif isinstance(s, ast.Return):
                if self.demand is not None:  # under an 'if' on a tile: in the demanded elements only
                    shape = self.ret_flag.type.shape
                    d = self.full_demand(self.demand, shape)
                    if s.value is not None:
                        v = self.coerce(s.value, self.ret_val.type)
                        self.set_var(self.ret_val, self.emit("arith.select", [d, v, self.read(self.ret_val)], v.type))
                    self.env[self.ret_flag] = self.emit("arith.ori", [self.read(self.ret_flag), d], d.type)
                    return
                if s.value is not None:
                    self.set_var(self.ret_val, self.coerce(s.value, self.ret_val.type))
                self.env[self.ret_flag] = LazyConstant(1, self.ret_flag.type)
            elif isinstance(s, ast.Predicated):
                mask_t = self.info(s.mask).type
                self.pending_pred = (self.coerce(s.mask, BOOL.with_shape(mask_t.shape)), mask_t.shape)
                self.rvalue(s.stmt.expr)
                self.pending_pred = None

    def take_predicate(self) -> tuple[Value, tuple[int, ...]] | None:
        """The mask of the enclosing ``@mask`` statement, for its top-level operation only."""
        pred, self.pending_pred = self.pending_pred, None
        return pred

    def declarator(self, d: ast.Declarator) -> None:
        sym = self.sema.decls[id(d)]
        if d.init is None:
            self.env[sym] = LazyConstant(0, sym.type)
        else:
            self.set_var(sym, self.coerce(d.init, sym.type))

    def if_stmt(self, s: ast.If, rest: list[ast.Stmt]) -> None:
        cinfo = self.info(s.cond)
        if cinfo.const is not None:
            chosen = s.then if cinfo.const else s.otherwise
            self.block(([chosen] if chosen is not None else []) + rest)
            return
        then_items = [s.then]
        else_items = [s.otherwise] if s.otherwise is not None else []
        if rest:
            if _always_exits(s.then):
                else_items += rest
            else:
                then_items += rest
        if cinfo.type.is_tile:  # element-wise instance: both branches run, masked (sema's masked_if)
            shape = self.fn_info.ew_shape
            cond = self.coerce(s.cond, BOOL.with_shape(shape))
            with self.demanding(self.demand_mask(shape, cond)):
                self.block(then_items)
            if else_items:
                with self.demanding(self.demand_mask(shape, self.not_(cond))):
                    self.block(else_items)
            return
        cond = self.coerce(s.cond, BOOL)
        self.build_if(cond, lambda: self.block(then_items) or [],
                      (lambda: self.block(else_items) or []) if else_items else None,
                      self.carried(then_items + else_items))

    # -- loops ------------------------------------------------------------------------------------
    def canonical_for(self, s: ast.For):
        """``(iv, bound, step, negate, predicate)`` when ``s`` is an ``scf.for`` (see module doc)."""
        init = s.init
        if s.cond is None or s.step is None:
            return None
        if isinstance(init, ast.Decl) and len(init.declarators) == 1 and init.declarators[0].init is not None:
            iv = self.sema.decls[id(init.declarators[0])]
        elif isinstance(init, ast.Assign) and init.op == "=" and isinstance(init.target, ast.Identifier):
            iv = self.info(init.target).symbol
        else:
            return None
        if iv.type.is_tile or iv.type.base not in ("int", "unsigned int", "long", "unsigned long"):
            return None
        if self.exits(s.body) & {"break", "return"}:
            return None
        changing = self.assigned(s.body) | self.assigned(s.step) | self.assigned(s.cond)
        if iv in self.assigned(s.body) or iv in self.assigned(s.cond):
            return None

        def invariant(e: ast.Expr) -> bool:
            if has_effects(e) or has_loads(e):
                return False
            return not any(isinstance(n, ast.Identifier) and self.info(n).symbol in changing for n in e.walk())

        def is_iv(e: ast.Expr) -> bool:
            return isinstance(e, ast.Identifier) and self.info(e).symbol is iv

        c = s.cond
        if not isinstance(c, ast.Binary) or c.op not in _FLIP or self.info(c).op_type != iv.type:
            return None
        if is_iv(c.lhs) and invariant(c.rhs):
            bound, op = c.rhs, c.op
        elif is_iv(c.rhs) and invariant(c.lhs):
            bound, op = c.lhs, _FLIP[c.op]
        else:
            return None
        predicate = cmpi_predicate(op, iv.type.is_signed)
        st = s.step
        if isinstance(st, (ast.Postfix, ast.Unary)) and st.op in ("++", "--") and is_iv(st.operand):
            return iv, bound, None, st.op == "--", predicate
        if not isinstance(st, ast.Assign) or not is_iv(st.target):
            return None
        if st.op in ("+=", "-=") and invariant(st.value) and self.info(st).detail.op_type == iv.type:
            return iv, bound, st.value, st.op == "-=", predicate
        v = st.value
        if st.op == "=" and isinstance(v, ast.Binary) and v.op in "+-" and self.info(v).op_type == iv.type \
                and self.info(v).kind == "arith":
            if is_iv(v.lhs) and invariant(v.rhs):
                return iv, bound, v.rhs, v.op == "-", predicate
            if v.op == "+" and is_iv(v.rhs) and invariant(v.lhs):
                return iv, bound, v.lhs, False, predicate
        return None

    def scf_for(self, s: ast.For, iv: Symbol, bound: ast.Expr, step: ast.Expr | None, negate: bool,
                predicate: str) -> None:
        t = iv.type
        if isinstance(s.init, ast.Decl):
            self.declarator(s.init.declarators[0])
        else:
            self.rvalue(s.init)
        lb = self.read(iv)
        ub = self.coerce(bound, t)
        with self.b.location(s.step.loc):
            if step is None:
                st = self.const(-1 if negate else 1, t)
            elif self.info(step).const is not None:
                c = convert_const(self.info(step).const, self.info(step).type.base, t.base)
                st = self.const(wrap_int(-c if negate else c, t.base), t)
            else:
                st = self.coerce(step, t)
                if negate:
                    st = self.emit("arith.subi", [self.const(0, t), st], st.type)
        saved_loop, self.loop = self.loop, _Loop(None, Symbol("cont", BOOL, "flag"))
        syms = [x for x in self.carried([s.body]) if x is not iv]
        # 'for (k = ...; ...)' on an outer k that is read elsewhere: carry k's value after the
        # loop (the first one failing the condition) as 'iv + step' of the last trip.
        final = None
        if isinstance(s.init, ast.Assign) and self.references(iv, self.fn_body) > self.references(iv, s):
            final = Symbol(iv.name, t, "flag")
            self.env[final] = lb
            syms.append(final)
        body = Block([t.ir()] + [x.type.ir() for x in syms], [iv.name] + [x.name for x in syms])
        op = self.b.create("scf.for", [lb, ub, st] + [self.read(x) for x in syms], [x.type.ir() for x in syms],
                           {"predicate": predicate}, [Region(body)])
        saved = dict(self.env)
        self.env[iv] = body.args[0]
        for x, a in zip(syms, body.args[1:]):
            self.env[x] = a
        with self.b.insertion(body):
            self.env[self.loop.cont] = LazyConstant(0, BOOL)
            self.block([s.body])
            if final is not None:
                with self.b.location(s.step.loc):
                    self.env[final] = self.emit("arith.addi", [body.args[0], st], st.type)
            self.b.create("scf.yield", [self.read(x) for x in syms])
        self.env = saved
        for x, r in zip(syms, op.results):
            r.name = x.name
            self.env[x] = r
        if final is not None:
            self.env[iv] = self.env.pop(final)
        self.loop = saved_loop

    def references(self, sym: Symbol, node: ast.Node) -> int:
        """How many identifiers under ``node`` name ``sym``."""
        exprs = self.sema.exprs
        return sum(1 for n in node.walk() if isinstance(n, ast.Identifier)
                   and id(n) in exprs and exprs[id(n)].symbol is sym)

    def while_loop(self, s: ast.For | ast.While | ast.DoWhile) -> None:
        if isinstance(s, ast.For) and s.init is not None:
            if isinstance(s.init, ast.Decl):
                self.stmt(s.init)
            else:
                self.rvalue(s.init)
        cond = s.cond
        step = s.step if isinstance(s, ast.For) else None
        jumps = self.exits(s.body)
        ctx = _Loop(Symbol("brk", BOOL, "flag") if "break" in jumps else None,
                    Symbol("cont", BOOL, "flag") if "continue" in jumps else None)
        saved_loop, self.loop = self.loop, ctx
        if ctx.brk is not None:
            self.env[ctx.brk] = LazyConstant(0, BOOL)
        syms = self.carried([cond, s.body, step])
        types = [x.type.ir() for x in syms]
        names = [x.name for x in syms]
        before, after = Block(types, names), Block(types, names)
        op = self.b.create("scf.while", [self.read(x) for x in syms], types, regions=[Region(before), Region(after)])
        saved = dict(self.env)
        exit_kinds = ({"break"} if ctx.brk is not None else set()) | ({"return"} & jumps)
        for block in (before, after):
            self.env = dict(saved)
            for x, a in zip(syms, block.args):
                self.env[x] = a
            with self.b.insertion(block):
                if ctx.cont is not None:
                    self.env[ctx.cont] = LazyConstant(0, BOOL)
                if isinstance(s, ast.DoWhile):
                    if block is before:
                        self.block([s.body])
                        with self.b.location(cond.loc):
                            c = self.loop_condition(cond, exit_kinds)
                        self.b.create("scf.condition", [c] + [self.read(x) for x in syms])
                    else:
                        self.b.create("scf.yield", list(block.args))
                elif block is before:
                    with self.b.location(cond.loc if cond is not None else s.loc):
                        c = self.loop_condition(cond, exit_kinds)
                    self.b.create("scf.condition", [c] + [self.read(x) for x in syms])
                else:
                    self.block([s.body])
                    if step is not None:
                        with self.b.location(step.loc):
                            self.loop_step(step, exit_kinds)
                    self.b.create("scf.yield", [self.read(x) for x in syms])
        self.env = saved
        for x, r in zip(syms, op.results):
            r.name = x.name
            self.env[x] = r
        self.loop = saved_loop

    def loop_condition(self, cond: ast.Expr | None, exit_kinds) -> Value:
        """The ``scf.condition`` operand: ``cond`` unless a ``break``/``return`` flag is set."""
        pending = self.pending_exit(exit_kinds)
        if pending is True:
            return self.const(0, BOOL)
        if cond is None:
            return self.const(1, BOOL) if pending is None else self.not_(pending)
        if pending is None:
            return self.coerce(cond, BOOL)
        if has_effects(cond) or has_loads(cond):
            return self.build_if(pending, lambda: [self.const(0, BOOL)], lambda: [self.coerce(cond, BOOL)],
                                 self.carried([cond]), [BOOL])[0]
        return self.emit("arith.andi", [self.not_(pending), self.coerce(cond, BOOL)], BOOL.ir())

    def loop_step(self, step: ast.Expr, exit_kinds) -> None:
        """A ``for`` step, skipped after ``break``/``return`` (not after ``continue``)."""
        pending = self.pending_exit(exit_kinds)
        if pending is True:
            return
        if pending is None:
            self.rvalue(step)
            return
        self.build_if(self.not_(pending), lambda: self.cleared(exit_kinds, self.rvalue, step), None,
                      self.carried([step]))


def _always_exits(s: ast.Stmt) -> bool:
    """Whether every path through ``s`` ends in ``break``, ``continue`` or ``return``."""
    if isinstance(s, (ast.Break, ast.Continue, ast.Return)):
        return True
    if isinstance(s, ast.Compound):
        return any(_always_exits(i) for i in s.items)
    if isinstance(s, ast.If):
        return s.otherwise is not None and _always_exits(s.then) and _always_exits(s.otherwise)
    return False


def _prune(fn: Function) -> None:
    """Drop ``scf.if`` results nobody reads and ``arith.constant`` ops nobody uses; name the
    results of structured ops after their variables only when there is one."""
    changed = True
    while changed:
        changed = False
        for op in list(fn.walk()):
            if op.name == "scf.if" and any(not r.uses for r in op.results):
                keep = [i for i, r in enumerate(op.results) if r.uses]
                for region in op.regions:
                    y = region.block.terminator
                    y.set_operands([y.operands[i] for i in keep])
                op.results = [op.results[i] for i in keep]
                for j, r in enumerate(op.results):
                    r.index = j
                changed = True
        for op in reversed(list(fn.walk())):
            if op.name == "arith.constant" and not op.results[0].uses:
                op.erase()
                changed = True
    for op in fn.walk():
        if len(op.results) > 1:
            op.results[0].name = None  # printed as '%7:3' / '%7#1' rather than after one variable
