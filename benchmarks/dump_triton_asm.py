"""Write OpenAI Triton's ttgir, PTX and SASS-level facts of the reference matmul (128x256x64,
8 warps, 4 stages, fp16 4096^3) into a directory, to compare its main loop with tritonc's.

Usage (GPU machine): ``python benchmarks/dump_triton_asm.py OUTDIR``."""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triton_ref  # noqa: E402

out = Path(sys.argv[1])
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
c = torch.empty(4096, 4096, device="cuda", dtype=torch.float16)
import triton  # noqa: E402

grid = (triton.cdiv(4096, 128) * triton.cdiv(4096, 256),)
kernel = triton_ref._matmul_strided[grid](a, b, c, 4096, 4096, 4096, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                          c.stride(0), c.stride(1), TM=128, TN=256, TK=64, GROUP_M=8, num_warps=8,
                                          num_stages=4)
torch.cuda.synchronize()
for name in ("ttgir", "ptx"):
    if name in kernel.asm:
        (out / f"triton_matmul.{name}").write_text(kernel.asm[name])
print("metadata:", {k: getattr(kernel.metadata, k, None) for k in ("num_warps", "num_stages", "shared")})
