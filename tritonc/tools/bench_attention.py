"""``make bench`` rows for ``examples/attention.tri`` (flash attention forward, issue 14).

At ``B = 4``, ``H = 32``, ``S = 4096``, fp16, head dims 64 and 128, non-causal and causal:
tritonc's example against ``torch.nn.functional.scaled_dot_product_attention`` (torch's best
backend: FlashAttention-2 / cuDNN on Hopper) and the FA-2 forward written in Triton
(``benchmarks/triton_ref.attention``: the fused-attention tutorial's algorithm, the best of a
few configurations by ``triton.autotune``), in the same run. TFLOP/s count ``4 B H S^2 D``
(two products of ``2 S^2 D``), half of it causal. The check compares with a float32 softmax
reference computed a few heads at a time (max error over the output's largest magnitude).

The table rows measure the default build: ``BM``, ``BN``, warps and stages are the cost
model's choice (``tuning/cost_model.estimate_chained``; the row's warps column and the line
on stderr say what it chose); ``--experiments`` adds rows with fixed configurations
(:data:`EXPERIMENT_CONFIGS`) to see which is best on the GPU at hand,
and the default builds with ``-fno-exp-ftz`` (subnormal ``exp2`` results kept: ptxas's
three-instruction fix-up around each ``ex2.approx``).
"""
from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tritonc.options import CompileOptions, parse_codegen_flags
from tritonc.tools.bench_matmul import load_module
from tritonc.tools.examples import EXAMPLES_DIR

EXAMPLE = EXAMPLES_DIR / "attention.tri"
B, H, S = 4, 32, 4096


@dataclass(frozen=True)
class AttentionConfig:
    bm: int
    bn: int
    num_warps: int
    num_stages: int

    def __str__(self) -> str:
        return f"BM={self.bm} BN={self.bn} w{self.num_warps} s{self.num_stages}"


#: Configurations timed with ``--experiments`` (the table rows take the cost model's).
#: Measured on an H100 (benchmarks/RESULTS.md, 2026-11-24, before p @ v was left running): D=64
#: fastest at BM=128 BN=64 w8 s3 (2.12 ms; w4 s2 2.72, BN=128 2.33, BM=64 2.20), D=128 at
#: BM=128 BN=128 w8 s2 (3.47 ms against 3.79 for BN=64).
EXPERIMENT_CONFIGS = [
    AttentionConfig(128, 64, 8, 3),
    AttentionConfig(128, 64, 8, 4),
    AttentionConfig(128, 128, 8, 2),
    AttentionConfig(128, 128, 8, 3),
    AttentionConfig(128, 64, 4, 2),
    AttentionConfig(64, 64, 4, 3),
]


def compile_options(d: int, causal: bool, config: AttentionConfig | None, arch: str,
                    flags: tuple[str, ...] = ()) -> CompileOptions:
    """The row's options; ``config`` None: the default build (the cost model chooses)."""
    defines = {"TYPE": "half", "D": str(d), "CAUSAL": str(int(causal))}
    if config is None:
        return CompileOptions(defines=defines, arch=arch, specialize=True, codegen=parse_codegen_flags(flags))
    defines.update(BM=str(config.bm), BN=str(config.bn))
    return CompileOptions(defines=defines, num_warps=config.num_warps, num_stages=config.num_stages, arch=arch,
                          specialize=True, codegen=parse_codegen_flags(flags))


def reference(torch, q, k, v, scale: float, causal: bool, chunk: int = 8):
    """softmax(q k^T scale [causal]) v in float32, ``chunk`` heads at a time ([BH, S, D])."""
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    n = q.shape[1]
    mask = torch.ones(n, n, device=q.device, dtype=torch.bool).tril() if causal else None
    for i in range(0, q.shape[0], chunk):
        s = (q[i:i + chunk].float() @ k[i:i + chunk].float().transpose(1, 2)) * scale
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        out[i:i + chunk] = torch.softmax(s, -1) @ v[i:i + chunk].float()
    return out


def attention_row(bench_row_class, d: int, causal: bool, config: AttentionConfig, experiment: bool = False,
                  flags: tuple[str, ...] = ()):
    """A ``make bench`` row factory for one head dimension, causality and configuration
    (``flags``: ``tritonc -f`` flags without the ``-f``)."""

    def factory(torch):
        scale = d ** -0.5

        def make():
            q, k, v = (torch.randn(B * H, S, d, device="cuda", dtype=torch.float16) for _ in range(3))
            o = torch.full((B * H, S, d), float("nan"), device="cuda", dtype=torch.float16)
            return dict(q=q, k=k, v=v, o=o)

        def run(which, mod, t):
            q, k, v, o = t["q"], t["k"], t["v"], t["o"]
            if which == "tritonc":
                mod.attention(q, k, v, o, scale, S, B * H)
                return [o]
            if which == "torch":
                shape = (B, H, S, d)
                out = torch.nn.functional.scaled_dot_product_attention(
                    q.view(shape), k.view(shape), v.view(shape), is_causal=causal, scale=scale)
                return [out.view(B * H, S, d)]
            import triton_ref
            triton_ref.attention(o, q, k, v, scale, causal)
            return [o]

        def compile_(arch):
            options = compile_options(d, causal, config, arch, flags)
            tag = "default" if config is None else \
                f"{config.bm}_{config.bn}_{config.num_warps}_{config.num_stages}"
            name = f"attention_{d}_{int(causal)}_{tag}_{arch}" + \
                "".join("_" + f.replace("-", "_").replace("=", "_") for f in flags)
            comp = None
            if config is None:  # what the cost model chose, for the warps column and stderr
                from tritonc.driver import Compilation
                comp = Compilation(EXAMPLE, options)
                comp._frontend
                print(f"  attention D={d}{' causal' if causal else ''} default build: "
                      f"{' '.join(f'{k}={v}' for k, v in comp.tunables.items())} w{comp.num_warps} "
                      f"s{comp.num_stages}", file=sys.stderr, flush=True)
            with tempfile.TemporaryDirectory() as tmp:
                mod, seconds = load_module(name, EXAMPLE, options, Path(tmp))
            return mod, comp, seconds

        flops = 4 * B * H * S * S * d // (2 if causal else 1)
        name = f"attention D={d}" + (" causal" if causal else "") + (f" {config}" if experiment else "") + \
            "".join(f" -f{f}" for f in flags)
        return bench_row_class(name, f"B={B} H={H} S={S} fp16 {config or 'default build'}", make, run,
                               lambda t: [reference(torch, t["q"], t["k"], t["v"], scale, causal)],
                               2 * 4 * B * H * S * d, "attention", {}, config.num_warps if config else None,
                               tol=1e-2, flops=flops, compile=compile_)

    return factory


def bench_row_factories(bench_row_class) -> list:
    """The four table rows: D 64 and 128, non-causal and causal, default builds."""
    return [attention_row(bench_row_class, d, causal, None) for d in (64, 128) for causal in (False, True)]


def experiment_row_factories(bench_row_class) -> list:
    """The rows of :data:`EXPERIMENT_CONFIGS` for every head dimension and causality."""
    rows = [attention_row(bench_row_class, d, causal, config, experiment=True)
            for config in EXPERIMENT_CONFIGS for d in (64, 128) for causal in (False, True)]
    # exp2 with subnormal results kept (-fno-exp-ftz: a three-instruction fix-up around ex2)
    rows += [attention_row(bench_row_class, d, causal, None, flags=("no-exp-ftz",))
             for d in (64, 128) for causal in (False, True)]
    return rows
