# Acceptance run for the softmax 4096x16384 occupancy fix (one device call): the memory-bound
# `make bench` rows plus the fix switched off in the same run, registers of the kernel as the
# device's nvJitLink assembles it, gpu_check and the GPU lowering/spec tests.
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl && export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 || exit
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > $OUT/env.txt 2>&1
timeout 150 python3 -m tritonc.tools.bench --experiments --only vector_add softmax 'layernorm fwd' transpose row_sum 'softmax no-hint' > $OUT/bench.txt 2>&1
timeout 40 python3 benchmarks/softmax_probe.py --out /tmp/p --variants base no-hint > $OUT/probe.txt 2>&1
for f in base no-hint triton; do echo "$f: $(cuobjdump -res-usage /tmp/p/$f.cubin 2>&1 | grep -o 'Function [_a-z0-9]*:\|REG:[0-9]*' | tr '\n' ' ')"; done >> $OUT/probe.txt
timeout 40 python3 -m tritonc.tools.gpu_check --no-bench --only softmax > $OUT/gpu_check.txt 2>&1
timeout 100 python3 -m pytest -q -n 4 tests/gpu/test_lowering_gpu.py tests/gpu/test_spec_gpu.py -k "exp or softmax or math or reduc or kernel_on_gpu" > $OUT/pytest.txt 2>&1
cat $OUT/env.txt $OUT/probe.txt; tail -4 $OUT/gpu_check.txt; tail -3 $OUT/pytest.txt; tail -16 $OUT/bench.txt
