# Diagnosis run for softmax 4096x16384 (one device call; benchmarks/RESULTS.md 2026-11-21, "softmax
# 4096x16384: one CTA per SM"). Run then with an experiment row "softmax minctas2" (.minnctapersm 2 on
# every kernel), since replaced by the default occupancy hint and the "softmax no-hint" row.
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 || exit
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv; python3 -c "import importlib.metadata as m; print([(p, m.version(p)) for p in ('cuda-bindings','nvidia-nvjitlink','cuda-core','triton','torch')])"; echo NCU=$NCU; } > $OUT/env.txt 2>&1
timeout 150 python3 -m tritonc.tools.bench --experiments --only softmax 'softmax no-nc' 'softmax fast-exp' 'softmax no-nc fast-exp' 'softmax exp-ftz' 'softmax no-nc cg' 'softmax no_allocate' 'softmax no-nc no_allocate' 'softmax minctas2' 'softmax no-nc exp-ftz' > $OUT/bench.txt 2>&1
timeout 110 $NCU --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',dram__bytes_read.sum,dram__bytes_write.sum -k 'regex:^(softmax__spec16|_softmax)$' python3 benchmarks/softmax_probe.py --out $OUT/p --variants base no-nc fast-exp no-nc-fast-exp exp-ftz minctas2 > $OUT/ncu.txt 2>&1
(cd $OUT && tar czf p.tgz p && rm -rf p)
cat $OUT/env.txt; grep -E "^(nvJit|base|no-nc|fast|exp|minc|triton)|^  [_a-z]|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" $OUT/ncu.txt | cut -c1-90 | head -70; tail -22 $OUT/bench.txt
