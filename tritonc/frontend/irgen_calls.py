"""Lowering of calls: built-ins and ``__device__`` functions, a mixin of :class:`~tritonc.frontend.irgen.IRGen`.

Dispatches on the ``kind`` sema recorded (see :mod:`tritonc.frontend.sema_calls`):

* ``get_program_id``/``get_num_programs`` -> ``tt.get_program_id``/``tt.get_num_programs {axis}``;
* ``min``/``max`` -> ``arith.{min,max}{numf,si,ui}``; math functions -> ``math.*`` after
  converting the operand to ``float``/``double`` (``abs``/``fabs`` -> ``math.absf``);
* ``dot(a, b)`` -> ``tt.dot(a, b, 0)``; ``dot(a, b, c)`` -> ``tt.dot(a, b, c)`` when ``c`` has the
  product's type, else ``c + tt.dot(a, b, 0)``;
* ``trans`` -> ``tt.trans {order}``; ``__sum`` -> ``tt.reduce``; ``__reshape`` -> ``tt.reshape``;
* atomics -> ``tt.atomic_rmw {kind}`` (mask: the optional argument and/or an enclosing
  ``@mask`` and/or the demand of an enclosing tile ``?:`` branch) or ``tt.atomic_cas`` (which
  sema keeps out of tile ``?:`` branches); ``__debug_barrier()`` -> ``gpu.barrier``;
* device functions -> ``tt.call {callee}`` with arguments converted to the parameter types;
* ``rand``/``randn``/``randint(seed, offsets)`` -> ``math.philox`` (the Philox4x32-10 word
  for counter ``(offsets, 0, 0, 0)`` and key ``(seed lo, seed hi)``) and a few arith/math ops,
  OpenAI Triton's ``tl.rand``/``tl.randn``/``tl.randint`` step for step (see :meth:`CallLowering.random`).
"""
from __future__ import annotations

from tritonc.frontend import ast
from tritonc.frontend.ctype import BOOL, FLOAT, LONG, CType
from tritonc.frontend.sema_info import ExprInfo
from tritonc.ir.core import Value
from tritonc.ir.types import F32, I32, I64, tile_or_scalar

#: ``uint32 -> [0, 1)`` scale of Triton's ``uint_to_uniform_float``: the largest float with
#: ``(2^31 - 1) * scale < 1`` after rounding to f32.
UNIFORM_SCALE = 4.6566127342e-10
#: Box-Muller constants of Triton's ``pair_uniform_to_normal`` (rounded to f32 when used).
NORMAL_U1_FLOOR = 1.0e-7
TWO_PI = 6.283185307179586

_MATH_OPS = {"exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt", "sqrtf": "sqrt", "rsqrt": "rsqrt", "sin": "sin",
             "cos": "cos", "abs": "absf", "fabs": "absf", "floor": "floor", "ceil": "ceil"}


class CallLowering:
    """Call lowering; relies on ``IRGen`` and ``ExprLowering``."""

    def _lower_Call(self, e: ast.Call, info: ExprInfo) -> Value | None:
        kind = info.kind
        t = info.type
        args = e.args
        if kind in ("get_program_id", "get_num_programs"):
            return self.emit("tt." + kind, [], t.ir(), axis=info.detail)
        if kind == "barrier":
            self.b.create("gpu.barrier")
            return None
        if kind == "minmax":
            a, b = (self.coerce(x, t) for x in args)
            ot = info.op_type
            suffix = "numf" if ot.is_float else ("si" if ot.is_signed else "ui")
            return self.emit(f"arith.{info.detail}{suffix}", [a, b], a.type)
        if kind == "math":
            return self.emit("math." + _MATH_OPS[info.detail], [self.coerce(args[0], t)], t.ir())
        if kind == "fma":
            return self.emit("math.fma", [self.coerce(x, t) for x in args], t.ir())
        if kind == "select":
            return self.select(args[0], args[1], args[2], t)
        if kind == "dot":
            return self.dot(args[0], args[1], info, None)
        if kind == "dot3":
            product, total = info.detail
            if total.type == product.type:
                return self.dot(args[0], args[1], product, self.coerce(args[2], product.type))
            d = self.dot(args[0], args[1], product, None)
            return self.binary_op("+", total, args[2], (d, product.type))
        if kind == "trans":
            return self.transpose(args[0], list(info.detail), t)
        if kind == "subscript":
            return self.subscript(args[0], info.detail, t)
        if kind == "reshape":
            src = self.info(args[0]).type
            return self.reshape(self.lower_reshaped(args[0], t.shape), src.shape, t.shape)
        if kind in ("atomic", "cas"):
            return self.atomic(e, info)
        if kind == "device":
            return self.device_call(e, info)
        if kind == "random":
            return self.random(e, info)
        raise AssertionError(f"call kind {kind!r} not lowered")

    def atomic(self, e: ast.Call, info: ExprInfo) -> Value:
        pred = self.take_predicate()
        t = info.type
        shape = t.shape
        pt = self.info(e.args[0]).type
        p = self.reshape(self.rvalue(e.args[0]), pt.shape, shape)
        if info.kind == "cas":
            # sema rejects atomic_cas in a branch of a tile ?: (it has no mask)
            assert self.demand is None, "atomic_cas under a demand"
            cmp, val = (self.coerce(x, t) for x in e.args[1:3])
            return self.emit("tt.atomic_cas", [p, cmp, val], t.ir())
        val = self.coerce(e.args[1], t)
        mask = None
        if len(e.args) == 3:
            mt = self.info(e.args[2]).type
            mask = self.reshape(self.coerce(e.args[2], BOOL.with_shape(mt.shape)), mt.shape, shape)
        if pred is not None:
            mask = self.and_masks(mask, self.reshape(pred[0], pred[1], shape))
        mask = self.demand_mask(shape, mask)  # in a branch of a tile ?:, only the lanes selecting it
        return self.emit("tt.atomic_rmw", [p, val] + ([mask] if mask is not None else []), t.ir(), kind=info.detail)

    def device_call(self, e: ast.Call, info: ExprInfo) -> Value | None:
        f = self.sema.function(info.detail)
        # no lane-wise relation between arguments and result: an argument is needed where any
        # lane is (sema rejects loads in them, and callees that access memory, in tile ?: branches)
        args = []
        for a, p in zip(e.args, f.params):
            with self.demand_for(a, lambda d: self.fit_demand(d, ())):
                args.append(self.coerce(a, p.type))
        results = [] if f.result.is_void else [f.result.ir()]
        op = self.b.create("tt.call", args, results, {"callee": f.name})
        return op.results[0] if results else None

    def random(self, e: ast.Call, info: ExprInfo) -> Value:
        """``rand``/``randn``/``randint(seed, offsets)`` as OpenAI Triton computes them
        (``triton/language/random.py``), so that the bits agree:

        * key: ``seed`` extended to 64 bits by its signedness (``seed.to(tl.uint64)``), low
          word ``key0``, high word ``key1``; counter ``(offsets, 0, 0, 0)``;
        * ``randint``: word 0 of Philox4x32-10 (``math.philox {word = 0}``);
        * ``rand``: that word read as signed ``x``, folded to ``x < 0 ? -x - 1 : x`` (``~x``),
          converted to f32 and times :data:`UNIFORM_SCALE` (f32): uniform in [0, 1);
        * ``randn``: words 0 and 1 to uniforms ``u1``, ``u2`` as for ``rand``; Box-Muller
          ``sqrt(-2 log(max(u1, 1e-7))) * cos(2 pi u2)`` in f32, through ``math.log``,
          ``math.sqrt`` and ``math.cos`` (so it matches ``tl.randn`` up to their rounding).
        """
        seed_arg, off_arg = e.args
        st, ot = self.info(seed_arg).type, self.info(off_arg).type
        shape = ot.shape
        with self.demand_for(seed_arg, lambda d: self.fit_demand(d, ())):
            seed = self.coerce(seed_arg, LONG if st.is_signed else CType("unsigned long"))
        counter = self.coerce(off_arg, CType(ot.base, shape=shape))
        with self.b.location(e.loc):
            key0 = self.emit("arith.trunci", [seed], I32)
            key1 = self.emit("arith.trunci", [self.emit("arith.shrui", [seed, self.b.constant(32, I64)], I64)], I32)
            if shape:
                key0, key1 = self.b.splat(key0, shape), self.b.splat(key1, shape)
            i32 = tile_or_scalar(I32, shape)
            if info.detail == "randint":
                return self.emit("math.philox", [counter, key0, key1], i32, word=0)
            f32 = tile_or_scalar(F32, shape)

            def uniform(word: int) -> Value:
                x = self.emit("math.philox", [counter, key0, key1], i32, word=word)
                neg = self.emit("arith.cmpi", [x, self.const(0, CType("int", shape=shape))],
                                tile_or_scalar(BOOL.ir(), shape), predicate="slt")
                inverted = self.emit("arith.xori", [x, self.const(-1, CType("int", shape=shape))], i32)
                folded = self.emit("arith.select", [neg, inverted, x], i32)
                f = self.emit("arith.sitofp", [folded], f32)
                return self.emit("arith.mulf", [f, self.const(UNIFORM_SCALE, FLOAT.with_shape(shape))], f32)

            u1 = uniform(0)
            if info.detail == "rand":
                return u1
            u2 = uniform(1)
            fs = FLOAT.with_shape(shape)
            u1 = self.emit("arith.maxnumf", [u1, self.const(NORMAL_U1_FLOOR, fs)], f32)
            th = self.emit("arith.mulf", [self.const(TWO_PI, fs), u2], f32)
            lg = self.emit("arith.mulf", [self.const(-2.0, fs), self.emit("math.log", [u1], f32)], f32)
            r = self.emit("math.sqrt", [lg], f32)
            return self.emit("arith.mulf", [r, self.emit("math.cos", [th], f32)], f32)
