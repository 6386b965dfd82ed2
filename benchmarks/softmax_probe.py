"""Softmax 4096x16384 (BLOCK=16384, 16 warps) under the microscope: one launch of each tritonc
variant and of Triton's kernel, for ``ncu`` to profile, with their PTX and cubins saved.

    python3 benchmarks/softmax_probe.py --out DIR [--variants base no-nc ...] [--no-run]

Variants are the code-generation switches of ``tritonc.tools.bench.softmax_row`` (the
``--experiments`` rows). For each: compile (the launcher's cubin: the ``__spec16`` variant
runs at this size), print the assembler and the registers per thread (when the assembler's
log reports them), write ``DIR/<variant>.ptx``/``.cubin``, launch it ``--launches`` times on
random input and print the error against float64 (and once at 333x12345, which runs the
generic kernel). Then Triton's kernel (``benchmarks/triton_ref._softmax``, same blocking
and warps), whose ``.asm`` PTX and cubin go to ``DIR/triton.*``. Kernel names for
``ncu -k regex:softmax``: ``softmax__spec16`` (tritonc) and ``_softmax`` (Triton).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

M, N, WARPS = 4096, 16384, 16

#: name -> keyword arguments of ``bench.softmax_row``.
VARIANTS = {
    "base": {},
    "no-nc": {"no_nc": True},
    "fast-exp": {"fast_exp": True},
    "no-nc-fast-exp": {"no_nc": True, "fast_exp": True},
    "exp-ftz": {"exp_ftz": True},
    "cg": {"no_nc": True, "cache_op": ".cg"},
    "nc-no-allocate": {"eviction": ".L1::no_allocate"},
    "no-nc-no-allocate": {"no_nc": True, "eviction": ".L1::no_allocate"},
    "no-hint": {"no_hint": True},
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS))
    ap.add_argument("--launches", type=int, default=1)
    ap.add_argument("--no-run", action="store_true", help="compile only (no GPU needed)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

    from tritonc.codegen.cubin import assemble_ptx
    from tritonc.tools import bench

    try:
        from cuda.bindings import nvjitlink
        print(f"nvJitLink {nvjitlink.version()}")
    except Exception as e:  # pragma: no cover - informative only
        print(f"nvJitLink version unknown: {e}")

    torch = None
    arch = "sm_90"
    if not args.no_run:
        import torch
        from tritonc.tools.gpu_check import local_arch
        arch = local_arch(torch)
        torch.manual_seed(0)
        x = torch.randn(M, N, device="cuda")
        y = torch.empty_like(x)
        ref = torch.softmax(x.double(), 1)

    for name in args.variants:
        row = bench.softmax_row(torch, M, N, **VARIANTS[name])
        mod, comp, _ = bench.compile_row(row, arch)
        lc = comp.launch_compilation
        (args.out / f"{name}.ptx").write_text(lc.ptx)
        (args.out / f"{name}.cubin").write_bytes(lc.cubin)
        asm = assemble_ptx(lc.ptx, lc.target)
        regs = {k: r.registers for k, r in asm.resources.items()}
        print(f"{name}: {asm.tool}, registers {regs}", flush=True)
        if args.no_run:
            continue
        for _ in range(args.launches):
            y.fill_(float("nan"))
            mod.softmax(y, x, y.stride(0), x.stride(0), N, grid=M)
        torch.cuda.synchronize()
        print(f"{name}: max abs error {(y.double() - ref).abs().max().item():.2e}", flush=True)
        # ragged rows (the generic kernel, not __spec16), output poisoned
        xr = torch.randn(333, 12345, device="cuda")
        yr = torch.full((333, 12345), float("nan"), device="cuda")
        mod.softmax(yr, xr, yr.stride(0), xr.stride(0), 12345, grid=333)
        torch.cuda.synchronize()
        err = (yr.double() - torch.softmax(xr.double(), 1)).abs().max().item()
        print(f"{name}: 333x12345 max abs error {err:.2e}", flush=True)

    if not args.no_run:
        import triton_ref
        for _ in range(args.launches):
            y.fill_(float("nan"))
            k = triton_ref._softmax[(M,)](y, x, y.stride(0), x.stride(0), N, BLOCK=N, num_warps=WARPS)
        torch.cuda.synchronize()
        print(f"triton: registers {k.n_regs}, spills {k.n_spills}, "
              f"max abs error {(y.double() - ref).abs().max().item():.2e}", flush=True)
        (args.out / "triton.ptx").write_text(k.asm["ptx"])
        (args.out / "triton.cubin").write_bytes(k.asm["cubin"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
