"""Launch the fp16 4096^3 matmul of bench_matmul three times, for Nsight Compute: the mma.sync
configuration for ``sm_90``, the wgmma one for ``sm_90a``. Usage (GPU machine)::

    ncu --clock-control none --kernel-name regex:matmul --launch-skip 2 --launch-count 1 \\
        --section ... python3 benchmarks/ncu_matmul.py sm_90
"""
import sys
import tempfile
from pathlib import Path
import torch
from tritonc.tools import bench_matmul as bm

arch = sys.argv[1]
cfg = bm.BIG if arch == "sm_90" else bm.WGMMA
row = bm.Row("ncu", "float16", False, False, (4096, 4096, 4096), cfg, arch)
with tempfile.TemporaryDirectory() as tmp:
    mod, _ = bm.compile_row(row, arch, Path(tmp))
    t = bm.make_inputs(torch, row)
    for _ in range(3):
        bm.run_tritonc(mod, row, t)
    torch.cuda.synchronize()
