"""Semantic analysis of Triton-C: name resolution, types, shapes and the language's rules.

``analyze(tu, tunables=..., diag=...)`` checks a parsed :class:`~tritonc.frontend.ast.TranslationUnit`
against the language reference ``docs/language.md`` (sections 4-9) and returns a
:class:`SemaResult`: the C type (:class:`~tritonc.frontend.ctype.CType`) of every expression,
its value when it is a compile-time constant, the :class:`Symbol` every identifier and
declaration binds to, and a few decisions irgen follows (which built-in a call is, whether a
``?:`` is a masked load). The first error raises :class:`~tritonc.diagnostics.CompileError`
located as clang would (operator position for binary operators, see ``ast.py``); warnings
(``-Wdouble-promotion``, ``-Wreturn-type``) go to the :class:`~tritonc.diagnostics.DiagnosticSink`.

This module holds the driver, scopes, declarations, statements and functions; expressions
are checked by :class:`~tritonc.frontend.sema_expr.ExprChecker` and calls by
:class:`~tritonc.frontend.sema_calls.CallChecker`.

Rules implemented here: every ``void`` function is a kernel, ``__device__`` functions may
return scalars or tiles and must not recurse (directly or through others); kernel parameters
are scalars or pointers with attributes (spec section 4); locals may carry ``__multipleof``;
a local may shadow a parameter (even in the outermost block) or an enclosing block's variable,
with a ``-Wshadow`` warning, but one block may not declare a name twice; a user's function may
take a built-in's name (``ast.Call.user``); a call of a device function with tile arguments
checks an element-wise instance of it (``CallChecker.elementwise_instance``, checked after every
function's own body, an ``if`` on a tile running masked there); tunables are integer constants
valued ``tunables[name]`` or their first candidate; ``if``/loop conditions must be scalars;
``break``/``continue`` only inside loops; ``@mask stmt;`` predicates an assignment, a store or
an atomic.
"""
from __future__ import annotations

from typing import Any

from tritonc.diagnostics import CompileError, CompileErrors, Diagnostic, DiagnosticSink, SourceLoc
from tritonc.frontend import ast
from tritonc.frontend.ctype import VOID, CType, can_broadcast_to, convert_const, is_scalar_name
from tritonc.frontend.sema_calls import CallChecker
from tritonc.frontend.sema_expr import ExprChecker
from tritonc.frontend.sema_info import ExprInfo, FuncInfo, SemaResult, Symbol

_LOOP_WORDS = {ast.For: "for", ast.While: "while", ast.DoWhile: "do/while"}


class Sema(ExprChecker, CallChecker):
    """One analysis of one translation unit (see :func:`analyze`)."""

    def __init__(self, tu: ast.TranslationUnit, tunables: dict[str, int] | None, diag: DiagnosticSink | None):
        self.tu = tu
        self.tunables = dict(tunables or {})
        self.diag = diag if diag is not None else DiagnosticSink()
        self.result = SemaResult(tu, [])
        self.scopes: list[dict[str, Symbol]] = [{}]
        self.funcs: dict[str, FuncInfo] = {}
        self.current: FuncInfo | None = None
        self.loop_depth = 0
        self.calls: list[tuple[str, str, SourceLoc]] = []
        self.instances: dict[tuple, FuncInfo] = {}
        self.declarator_of: dict[int, int] = {}  # Symbol.uid of a local -> id() of its declarator
        #: In an element-wise instance, inside a branch of an ``if`` on a tile: the number of scopes
        #: open when the innermost such ``if`` started (``None`` elsewhere).
        self.masked_from: int | None = None
        #: errors found so far (the checks go on after an error where they can: :meth:`recovering`)
        self.errors: list[CompileError] = []
        self.error_limit = self.diag.error_limit

    # -- error recovery (-ferror-limit) ---------------------------------------------------------
    def record(self, err: CompileError) -> None:
        """Keep ``err`` and go on; at the ``-ferror-limit``-th error stop with
        :class:`~tritonc.diagnostics.CompileErrors` (``limit`` set)."""
        self.errors.append(err)
        if self.error_limit and len(self.errors) >= self.error_limit:
            raise CompileErrors(self.errors, self.error_limit)

    def recovering(self, check, *args) -> bool:
        """Run ``check(*args)``; on a :class:`CompileError`, :meth:`record` it and restore the
        scopes, loop depth, masked region and current function to what they were before (the
        statement or function is then skipped as a whole). Returns whether the check passed."""
        state = (len(self.scopes), self.loop_depth, self.masked_from, self.current)
        try:
            check(*args)
            return True
        except CompileErrors:
            raise
        except CompileError as err:
            del self.scopes[state[0]:]
            self.loop_depth, self.masked_from, self.current = state[1], state[2], state[3]
            self.record(err)
            return False

    def raise_errors(self) -> None:
        """Raise the errors found so far: the one error itself, or :class:`CompileErrors`."""
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise CompileErrors(self.errors)

    def block_items(self, items: list[ast.Stmt]) -> None:
        """Check the statements of a block in order. In a function (not an element-wise instance,
        whose errors carry a note at the call that made it and stop the check), an error in a
        statement is recorded and the next statement checked; after an error in a declaration
        the rest of the block is skipped, as it may use the names declared."""
        if self.current is None or self.current.elementwise_of is not None:
            for item in items:
                self.stmt(item)
            return
        for item in items:
            if not self.recovering(self.stmt, item) and isinstance(item, ast.Decl):
                return

    # -- errors and scopes ----------------------------------------------------------------------
    @staticmethod
    def error(message: str, loc: SourceLoc | None, notes: list[Diagnostic] | None = None) -> CompileError:
        return CompileError(message, loc, notes)

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, sym: Symbol) -> None:
        """Bind ``sym`` in the innermost scope. A local variable may reuse the name of a parameter
        (even in the function's outermost block, which holds the parameters: paper-era kernels
        declare ``fp32 a[TM, TK] = *pa;`` in a kernel with a parameter ``a``) or of a variable of
        an enclosing block: from there on the name means the new variable, with a ``-Wshadow``
        warning. Two declarations of one name in one block are an error."""
        scope = self.scopes[-1]
        prev = scope.get(sym.name)
        if prev is not None and not (sym.kind == "var" and prev.kind == "param"):
            raise self.error(f"redefinition of '{sym.name}'", sym.loc,
                             [Diagnostic("note", "previous definition is here", prev.loc)])
        shadowed = prev if prev is not None else self.lookup(sym.name) if sym.kind == "var" else None
        if shadowed is not None and shadowed.kind in ("param", "var"):
            what = "a parameter" if shadowed.kind == "param" else "a variable of an enclosing block"
            rest = f"; from here on '{sym.name}' means the new variable" if prev is not None else ""
            self.diag.warn("shadow", f"declaration of '{sym.name}' shadows {what}{rest}", sym.loc,
                           [Diagnostic("note", "shadowed declaration is here", shadowed.loc)])
        scope[sym.name] = sym

    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        self.scopes.pop()

    # -- types ----------------------------------------------------------------------------------
    def resolve_type(self, spec: ast.TypeSpec, allow_void: bool = False) -> CType:
        """The :class:`CType` of a written type; tile dimensions must be power-of-two constants."""
        if spec.base == "void" and not spec.pointer_depth:
            if not allow_void or spec.shape is not None:
                raise self.error("variable has incomplete type 'void'" if not spec.shape
                                 else "tile of 'void' elements", spec.loc)
            return VOID
        if spec.base == "void" or not is_scalar_name(spec.base):
            raise self.error(f"pointer to '{spec.base}' is not supported; point to a scalar type", spec.loc)
        if spec.pointer_depth > 1:
            raise self.error("pointers to pointers are not supported in Triton-C", spec.loc)
        shape: tuple[int, ...] = ()
        if spec.shape is not None:
            if not spec.shape:
                raise self.error("a tile needs at least one dimension", spec.loc)
            shape = tuple(self.tile_dim(d) for d in spec.shape)
        return CType(spec.base, spec.pointer_depth == 1, shape)

    def tile_dim(self, expr: ast.Expr) -> int:
        n = self.const_int(expr, "tile dimension")
        if n <= 0 or n & (n - 1):
            raise self.error(f"tile dimension {n} is not a power of two", expr.loc)
        return n

    def const_int(self, expr: ast.Expr, what: str) -> int:
        """Check ``expr`` and return its value; it must be an integer constant expression."""
        info = self.value(expr)
        if info.const is None or not info.type.is_integer or info.type.is_tile:
            raise self.error(f"{what} must be an integer constant expression", expr.loc)
        return int(info.const)

    # -- driver ---------------------------------------------------------------------------------
    def run(self) -> SemaResult:
        for decl in self.tu.decls:
            if isinstance(decl, ast.TunableDecl):
                self.tunable(decl)
        # Errors in signatures are all reported; the bodies are checked only when every
        # signature is right (a body would report its calls to a function whose signature is not).
        for decl in self.tu.decls:
            if isinstance(decl, ast.FunctionDef):
                self.recovering(self.signature, decl)
        self.raise_errors()
        defined = len(self.result.functions)
        for f in self.result.functions[:defined]:
            self.recovering(self.body, f)
        self.raise_errors()
        self.check_recursion()  # before the instances: without recursion, making them ends
        k = defined
        while k < len(self.result.functions):  # element-wise instances; checking one may add more
            self.instance_body(self.result.functions[k])
            k += 1
        self.drop_unused_instances(defined)
        return self.result

    def drop_unused_instances(self, defined: int) -> None:
        """Forget the element-wise instances that no final body calls (a body checked again after
        a local became a tile may have made one that its final version does not use)."""
        by_name = {f.name: f for f in self.result.functions}
        reached = {f.name for f in self.result.functions[:defined]}
        work = list(reached)
        while work:
            for n in by_name[work.pop()].node.body.walk():
                info = self.result.exprs.get(id(n)) if isinstance(n, ast.Call) else None
                if info is not None and info.kind == "device" and info.detail not in reached:
                    reached.add(info.detail)
                    work.append(info.detail)
        self.result.functions = [f for f in self.result.functions if f.name in reached]

    def tunable(self, d: ast.TunableDecl) -> None:
        t = self.resolve_type(d.type)
        if not t.is_integer or t.is_tile:
            raise self.error(f"tunable '{d.name}' must have an integer type, not '{t}'", d.type.loc)
        candidates = [self.const_int(c, "tunable candidate") for c in d.candidates]
        if d.override is not None and _int_text(d.override) is not None:
            value = _int_text(d.override)  # '-D TM=128': the uses already read 128
        elif d.name in self.tunables:
            value = int(self.tunables[d.name])
        elif candidates:
            value = candidates[0]
        else:
            raise self.error(f"tunable '{d.name}' has no candidate values; set it with -D {d.name}=<value>", d.loc)
        value = convert_const(value, "long", t.base)
        self.declare(Symbol(d.name, t, "tunable", d.loc, is_const=True, const=value))
        self.result.tunable_values[d.name] = value

    def signature(self, f: ast.FunctionDef) -> None:
        if f.name in self.funcs:
            raise self.error(f"redefinition of '{f.name}'", f.loc,
                             [Diagnostic("note", "previous definition is here", self.funcs[f.name].node.loc)])
        if f.is_device and f.is_global:
            raise self.error(f"function '{f.name}' cannot be both '__device__' and '{f.kernel_keyword}'", f.loc)
        result = self.resolve_type(f.return_type, allow_void=True)
        kind = "device" if f.is_device else "kernel"
        if kind == "kernel" and not result.is_void:
            raise self.error(f"function '{f.name}' returns '{result}': kernels return 'void' "
                             "and only '__device__' functions may return a value", f.loc)
        params, attrs = [], []
        self.push()
        for p in f.params:
            t = self.resolve_type(p.type)
            if kind == "kernel" and t.is_tile:
                raise self.error(f"kernel parameter '{p.name}' cannot be a tile; pass a pointer", p.loc)
            sym = Symbol(p.name, t, "param", p.loc, is_const=p.type.is_const and not t.is_pointer)
            self.declare(sym)
            attrs.append(self.param_attrs(p, sym))
            params.append(sym)
            self.result.decls[id(p)] = sym
        self.pop()
        info = FuncInfo(f.name, f, kind, params, result, attrs)
        self.funcs[f.name] = info
        self.result.functions.append(info)

    def param_attrs(self, p: ast.Param, sym: Symbol) -> dict[str, Any]:
        t = sym.type
        out: dict[str, Any] = {}
        for a in p.attributes:
            if a.name in ("noalias", "readonly", "writeonly", "aligned") and not t.is_pointer:
                raise self.error(f"'{a.spelling}' applies only to pointer parameters; '{p.name}' has type '{t}'", a.loc)
            if a.name in ("aligned", "multipleof"):
                n = self.const_int(a.arg, f"the argument of '{a.spelling}'")
                if n <= 0 or (a.name == "aligned" and n & (n - 1)):
                    raise self.error(f"'{a.spelling}' needs a positive{' power of two' if a.name == 'aligned' else ''} "
                                     f"argument, got {n}", a.arg.loc)
                if a.name == "multipleof":
                    if not (t.is_integer or t.is_pointer):
                        raise self.error(f"'{a.spelling}' applies to integer or pointer parameters; "
                                         f"'{p.name}' has type '{t}'", a.loc)
                    sym.multipleof = n
                out[a.name] = n
            else:
                out[a.name] = True
        if out.get("readonly") and out.get("writeonly"):
            raise self.error(f"parameter '{p.name}' cannot be both read-only and write-only", p.loc)
        if (t.is_integer and not t.is_signed and not t.is_bool) or (t.is_pointer and t.base.startswith("unsigned")):
            out["unsigned"] = True
        return out

    def body(self, f: FuncInfo) -> None:
        self.current = f
        self.push()
        for sym in f.params:
            self.declare(sym)
        self.block_items(f.node.body.items)
        self.pop()
        if not f.result.is_void and not _always_returns(f.node.body):
            self.diag.warn("return-type", f"non-void function '{f.name}' may end without returning a value",
                           f.node.body.loc)
        self.current = None

    def instance_body(self, f: FuncInfo) -> None:
        """Check the body of an element-wise instance. A warning the function itself already got
        (same message and place: the source is the same) is not repeated; an error gets a note
        at the call that made the instance."""
        diag = self.diag
        try:
            while True:  # again after each local that turns out to hold a tile (FuncInfo.promoted)
                self.diag = DiagnosticSink(diag.disabled, diag.werror)
                try:
                    self.body(f)
                    if f.masked_return:  # the return flag is a tile: loops cannot test it
                        loops = (n for n in f.node.body.walk() if isinstance(n, (ast.For, ast.While, ast.DoWhile)))
                        ret = next((r for lp in loops for r in lp.walk() if isinstance(r, ast.Return)), None)
                        if ret is not None:
                            raise self.error("a 'return' inside a loop cannot be combined with a 'return' under a "
                                             "condition on a tile", ret.loc)
                    break
                except PromoteLocal:
                    self.scopes, self.loop_depth, self.current = self.scopes[:1], 0, None
                    self.masked_from = None
            seen = {(w.message, w.loc) for w in diag.warnings}
            diag.warnings.extend(w for w in self.diag.warnings if (w.message, w.loc) not in seen)
        except CompileError as err:
            shapes = ", ".join(f"'{p.type}'" for p in f.params if p.type.is_tile)
            err.diagnostic.notes.append(Diagnostic(
                "note", f"in '{f.elementwise_of}' applied element-wise to tiles (parameters of type {shapes}) "
                        "by this call", f.call_loc))
            raise
        finally:
            self.diag = diag

    def check_recursion(self) -> None:
        graph: dict[str, list[str]] = {}
        for caller, callee, _ in self.calls:
            graph.setdefault(caller, []).append(callee)

        def path(src: str, dst: str, seen: set[str]) -> list[str] | None:
            if src == dst:
                return [src]
            seen.add(src)
            for nxt in graph.get(src, []):
                if nxt not in seen:
                    rest = path(nxt, dst, seen)
                    if rest is not None:
                        return [src] + rest
            return None

        for caller, callee, loc in self.calls:
            cycle = path(callee, caller, set())
            if cycle is not None:
                chain = " -> ".join([caller] + cycle)
                notes = [Diagnostic("note", f"call cycle: {chain}", loc)] if callee != caller else None
                raise self.error(f"recursive call to device function '{callee}'", loc, notes)

    # -- statements -----------------------------------------------------------------------------
    def stmt(self, s: ast.Stmt) -> None:
        if self.masked_from is not None:
            self.check_masked(s)
        if isinstance(s, ast.Compound):
            self.push()
            self.block_items(s.items)
            self.pop()
        elif isinstance(s, ast.Decl):
            for d in s.declarators:
                self.declarator(d)
        elif isinstance(s, ast.ExprStmt):
            self.expr(s.expr)
        elif isinstance(s, ast.EmptyStmt):
            pass
        elif isinstance(s, ast.If):
            cond = self.value(s.cond)
            if cond.type.is_tile and cond.type.is_scalar_value and self.current.elementwise_of is not None:
                self.masked_if(s, cond.type)
            else:
                self.check_condition(cond, s.cond, "if")
                self.scoped(s.then)
                if s.otherwise is not None:
                    self.scoped(s.otherwise)
        elif isinstance(s, (ast.For, ast.While, ast.DoWhile)):
            self.loop(s)
        elif isinstance(s, (ast.Break, ast.Continue)):
            if not self.loop_depth:
                word = "break" if isinstance(s, ast.Break) else "continue"
                raise self.error(f"'{word}' statement not in loop statement", s.loc)
        elif isinstance(s, ast.Return):
            self.return_stmt(s)
        elif isinstance(s, ast.Predicated):
            self.predicated(s)
        else:  # pragma: no cover - the parser builds no other statements
            raise self.error(f"unsupported statement {type(s).__name__}", s.loc)
        if self.masked_from is not None:  # in a branch of an 'if' on a tile: everything runs masked
            for e in _own_exprs(s):
                self.check_maskable(e, "a branch of an 'if' on a tile")

    def scoped(self, s: ast.Stmt) -> None:
        self.push()
        self.stmt(s)
        self.pop()

    def loop(self, s: ast.For | ast.While | ast.DoWhile) -> None:
        word = _LOOP_WORDS[type(s)]
        self.push()
        if isinstance(s, ast.For):
            if isinstance(s.init, ast.Decl):
                self.stmt(s.init)
            elif s.init is not None:
                self.expr(s.init)
            if s.cond is not None:
                self.condition(s.cond, word)
            if s.step is not None:
                self.expr(s.step)
        elif isinstance(s, ast.While):
            self.condition(s.cond, word)
        self.loop_depth += 1
        self.scoped(s.body)
        self.loop_depth -= 1
        if isinstance(s, ast.DoWhile):
            self.condition(s.cond, word)
        self.pop()

    def condition(self, e: ast.Expr, word: str) -> ExprInfo:
        return self.check_condition(self.value(e), e, word)

    def check_condition(self, info: ExprInfo, e: ast.Expr, word: str) -> ExprInfo:
        if info.type.is_tile:
            raise self.error(f"tile condition in '{word}'; use a mask (e.g. '@cond stmt;' or 'cond ? a : b')", e.loc)
        if not info.type.is_scalar_value:
            raise self.error(f"statement requires expression of scalar type ('{info.type}' invalid)", e.loc)
        return info

    def promote_local(self, sym: Symbol | None, value: CType) -> None:
        """In an element-wise instance, a scalar local assigned a tile becomes a tile of that
        shape, and so does one declared outside an ``if`` on a tile and assigned in its branches
        (it then differs per element): record it and check the body again (raises
        :class:`PromoteLocal`)."""
        f = self.current
        if (f is None or f.elementwise_of is None or sym is None or sym.kind != "var" or sym.type.is_tile
                or sym.uid not in self.declarator_of):
            return
        if value.is_tile:
            shape = value.shape
        elif self.masked_from is not None and not any(s.get(sym.name) is sym for s in self.scopes[self.masked_from:]):
            shape = f.ew_shape
        else:
            return
        f.promoted[self.declarator_of[sym.uid]] = shape
        raise PromoteLocal()

    def masked_if(self, s: ast.If, cond: CType) -> None:
        """An ``if`` on a tile in an element-wise instance: both branches run, each masked by its
        condition (loads, stores and atomics masked, assignments kept where the condition does
        not hold, a ``return`` taken per element). What cannot be masked is an error: loops,
        ``break``/``continue``, ``atomic_cas`` and memory-accessing calls in the branches, and a
        ``return`` in a loop."""
        f = self.current
        if not can_broadcast_to(cond.shape, f.ew_shape):
            raise self.error(f"condition of type '{cond}' does not broadcast to the shape "
                             f"{list(f.ew_shape)} of the element-wise call", s.cond.loc)
        if self.loop_depth:
            for n in s.walk():
                if isinstance(n, ast.Return):
                    raise self.error("a 'return' under a condition on a tile cannot be inside a loop", n.loc)
        outer, self.masked_from = self.masked_from, len(self.scopes)  # the innermost such 'if' decides
        try:
            self.scoped(s.then)
            if s.otherwise is not None:
                self.scoped(s.otherwise)
        finally:
            self.masked_from = outer

    def check_masked(self, s: ast.Stmt) -> None:
        """In a branch of an ``if`` on a tile (element-wise instance): reject what cannot run
        masked (see :meth:`masked_if`)."""
        if isinstance(s, (ast.For, ast.While, ast.DoWhile)):
            raise self.error(f"a '{_LOOP_WORDS[type(s)]}' loop cannot run under a condition on a tile in an "
                             f"element-wise call of '{self.current.elementwise_of}'", s.loc)
        if isinstance(s, (ast.Break, ast.Continue)):
            word = "break" if isinstance(s, ast.Break) else "continue"
            raise self.error(f"'{word}' cannot be taken under a condition on a tile in an element-wise call of "
                             f"'{self.current.elementwise_of}'", s.loc)
        if isinstance(s, ast.Return):
            self.current.masked_return = True

    def declarator(self, d: ast.Declarator) -> None:
        t = self.resolve_type(d.type)
        f = self.current
        elementwise = f is not None and f.elementwise_of is not None and not t.is_tile
        if elementwise and id(d) in f.promoted:
            t = t.with_shape(f.promoted[id(d)])
        # 'const T *p' makes the pointee const, not the variable
        sym = Symbol(d.name, t, "var", d.loc, is_const=d.type.is_const and not t.is_pointer)
        for a in d.attributes:
            if a.name != "multipleof":
                raise self.error(f"'{a.spelling}' applies only to parameters", a.loc)
            if not t.is_integer:
                raise self.error(f"'{a.spelling}' applies to integer variables; '{d.name}' has type '{t}'", a.loc)
            n = self.const_int(a.arg, f"the argument of '{a.spelling}'")
            if n <= 0:
                raise self.error(f"'{a.spelling}' needs a positive argument, got {n}", a.arg.loc)
            sym.multipleof = n
        if d.init is not None:
            info = self.value(d.init)
            if elementwise and not t.is_tile and info.type.is_tile:  # one value per element
                t = sym.type = t.with_shape(info.type.shape)
            self.check_convert(info.type, t, d.init.loc, "initializing", const=info.const)
            if sym.is_const and info.const is not None and t.is_arith and not t.is_tile:
                sym.const = convert_const(info.const, info.type.base, t.base)
        elif sym.is_const:
            raise self.error(f"const variable '{d.name}' needs an initializer", d.loc)
        self.declare(sym)
        self.result.decls[id(d)] = sym
        self.declarator_of[sym.uid] = id(d)

    def return_stmt(self, s: ast.Return) -> None:
        f = self.current
        assert f is not None
        if s.value is None:
            if not f.result.is_void:
                raise self.error(f"non-void function '{f.name}' should return a value", s.loc)
            return
        if f.result.is_void:
            what = "kernel" if f.kind == "kernel" else "void function"
            raise self.error(f"{what} '{f.name}' should not return a value", s.value.loc)
        info = self.value(s.value)
        self.check_convert(info.type, f.result, s.value.loc, "returning", const=info.const)

    def predicated(self, s: ast.Predicated) -> None:
        mask = self.value(s.mask)
        if not mask.type.is_scalar_value:
            raise self.error(f"predicate of type '{mask.type}' is not a boolean", s.mask.loc)
        inner = s.stmt
        e = inner.expr if isinstance(inner, ast.ExprStmt) else None
        is_atomic = isinstance(e, ast.Call) and not e.user and e.name in ("atomic_add", "atomic_max", "atomic_min")
        if not isinstance(e, ast.Assign) and not is_atomic:
            raise self.error("'@mask' applies to an assignment, a store or a masked atomic "
                             "(atomic_add/atomic_max/atomic_min)", inner.loc)
        info = self.expr(e)
        shape = info.type.shape if is_atomic else self.result.info(e.target).type.shape
        if not can_broadcast_to(mask.type.shape, shape):
            raise self.error(f"predicate of type '{mask.type}' does not broadcast to the shape "
                             f"{list(shape)} of the predicated statement", s.mask.loc)
        self.result.stmts[id(s)] = shape


class PromoteLocal(Exception):
    """Internal: a local of an element-wise instance must be a tile; the body is checked again."""


def _own_exprs(s: ast.Stmt) -> list[ast.Expr]:
    """The expressions of statement ``s`` itself (not of the statements nested in it)."""
    if isinstance(s, ast.ExprStmt):
        return [s.expr]
    if isinstance(s, ast.Decl):
        return [d.init for d in s.declarators if d.init is not None]
    if isinstance(s, ast.Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, ast.If):
        return [s.cond]
    if isinstance(s, ast.Predicated):
        return [s.mask, s.stmt.expr] if isinstance(s.stmt, ast.ExprStmt) else [s.mask]
    return []


def _int_text(text: str) -> int | None:
    try:
        return int(text.strip().rstrip("uUlL"), 0)
    except ValueError:
        return None


def _always_returns(s: ast.Stmt) -> bool:
    if isinstance(s, ast.Return):
        return True
    if isinstance(s, ast.Compound):
        return any(_always_returns(i) for i in s.items)
    if isinstance(s, ast.If):
        return s.otherwise is not None and _always_returns(s.then) and _always_returns(s.otherwise)
    return False


def analyze(tu: ast.TranslationUnit, *, tunables: dict[str, int] | None = None,
            diag: DiagnosticSink | None = None) -> SemaResult:
    """Check ``tu`` and return its typed view.

    Args:
        tu: the parsed translation unit.
        tunables: values of ``const tunable`` names (default: each one's first candidate).
        diag: receives warnings; errors are raised.

    Raises:
        CompileError: the violation of the language rules, located at its source; where the
            checks go on after an error (statements of a function, functions, signatures),
            :class:`~tritonc.diagnostics.CompileErrors` with every error found, up to
            ``diag.error_limit`` (``-ferror-limit``).
    """
    return Sema(tu, tunables, diag).run()
