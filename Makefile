# tritonc: every target sets up .venv first, so a fresh machine needs only python3, make and cc.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
BUILD  := build
ARCH   ?=

.PHONY: setup run test test-fast golden gpu-check bench clean fuzz gpu-fuzz sanitize tune-compare

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@# CPU torch for the torch custom-op tests (tests/launcher/test_torch_op.py), where it can be had;
	@# without it those tests skip. torch is no dependency of tritonc (its modules import it lazily).
	$(PY) -m pip install -q -e '.[test,torch]' || echo "tritonc: torch not installed; the torch op tests will skip"
	touch $@

# The main job: examples/matmul.tri -> cubin, PTX, C header and Python launcher in build/
# (for tritonc's default arch, or ARCH=sm_80 etc.).
run: setup
	mkdir -p $(BUILD)
	$(VENV)/bin/tritonc examples/matmul.tri $(if $(ARCH),--arch $(ARCH)) -o $(BUILD)/matmul.cubin --emit=cubin,ptx,header,py
	@ls -l $(BUILD)/matmul.*

# The whole CPU test suite (GPU tests under tests/gpu skip themselves without a GPU).
test: setup
	$(PY) -m pytest -q -n 2 tests

golden: setup
	$(PY) -m tritonc.tools.golden

# For a GPU machine: compile every example, check against references, time against torch/Triton.
# Uses the python that has torch and triton (GPU_PYTHON); wheels in .whl/ (lark, pcpp) are
# installed into a private folder first when that python lacks them.
GPU_PYTHON ?= python3
GPU_SITE   := /tmp/tritonc-site
gpu-check:
	@if [ -d .whl ]; then $(GPU_PYTHON) -m pip install -q --no-index --no-deps --no-compile --target $(GPU_SITE) .whl/*.whl; fi
	PYTHONPATH=$(CURDIR):$(GPU_SITE):$$PYTHONPATH $(GPU_PYTHON) -m tritonc.tools.gpu_check $(GPU_CHECK_ARGS)

# For a GPU machine: the memory-bound kernels against torch and OpenAI Triton, one table
# (tritonc/tools/bench.py; BENCH_ARGS e.g. --experiments). Wheels as for gpu-check.
bench:
	@if [ -d .whl ]; then $(GPU_PYTHON) -m pip install -q --no-index --no-deps --no-compile --target $(GPU_SITE) .whl/*.whl; fi
	PYTHONPATH=$(CURDIR):$(GPU_SITE):$$PYTHONPATH $(GPU_PYTHON) -m tritonc.tools.bench $(BENCH_ARGS)

# For a GPU machine: tritonc-tune's dispatching launcher for examples/matmul.tri against the best
# variant it measured, Triton's @autotune over the same configurations and cuBLAS (docs/tuning.md;
# TUNE_COMPARE_ARGS e.g. --quick). Wheels as for gpu-check, and .whl-extra/ (rich) when present.
tune-compare:
	@for d in .whl .whl-extra; do if [ -d $$d ]; then $(GPU_PYTHON) -m pip install -q --no-index --no-deps --no-compile --target $(GPU_SITE) $$d/*.whl; fi; done
	PYTHONPATH=$(CURDIR):$(GPU_SITE):$$PYTHONPATH $(GPU_PYTHON) -m tritonc.tools.tune_compare $(TUNE_COMPARE_ARGS)

# Differential testing (docs/testing.md): N generated programs, interpreter vs SIMT simulator,
# fresh seeds (SEED=... to repeat a run), over JOBS processes (default: all cores).
N    ?= 1000
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SEED_ARG := $(if $(SEED),--seed $(SEED),)
fuzz: setup
	$(PY) -m tritonc.fuzz -n $(N) -j $(JOBS) --target sim $(FUZZ_SEED_ARG)

# For a GPU machine: interpreter vs GPU through the generated Python module (sm_90, sm_90a);
# programs are compiled in parallel, one process per core. Wheels as for gpu-check.
gpu-fuzz:
	@if [ -d .whl ]; then $(GPU_PYTHON) -m pip install -q --no-index --no-deps --no-compile --target $(GPU_SITE) .whl/*.whl; fi
	PYTHONPATH=$(CURDIR):$(GPU_SITE):$$PYTHONPATH $(GPU_PYTHON) -m tritonc.fuzz -n $(N) -j $(JOBS) --target gpu $(FUZZ_SEED_ARG)

# For a GPU machine with compute-sanitizer on PATH: memcheck, racecheck, synccheck and initcheck
# over every example at ragged sizes and a sample of generated programs (SANITIZE_ARGS).
sanitize:
	@if [ -d .whl ]; then $(GPU_PYTHON) -m pip install -q --no-index --no-deps --no-compile --target $(GPU_SITE) .whl/*.whl; fi
	PYTHONPATH=$(CURDIR):$(GPU_SITE):$$PYTHONPATH $(GPU_PYTHON) -m tritonc.tools.sanitize $(SANITIZE_ARGS)

clean:
	rm -rf $(BUILD) .pytest_cache

# Every example's cubin under $(BUILD)/examples/, with a make dependency file beside each
# (tritonc -MMD -MP): a second `make examples` rebuilds only the kernels whose source or
# #include'd files changed. Every example compiles without -D (tiles: the cost model's
# choice); EXAMPLE_FLAGS_<name> adds flags for one (the convolutions in half precision);
# EXAMPLES_DIR and TRITONC may point elsewhere.
EXAMPLES_DIR   ?= examples
TRITONC        ?= $(VENV)/bin/tritonc
EXAMPLE_CUBINS := $(patsubst $(EXAMPLES_DIR)/%.tri,$(BUILD)/examples/%.cubin,$(wildcard $(EXAMPLES_DIR)/*.tri))
EXAMPLE_FLAGS_conv2d      := -D TYPE=half
EXAMPLE_FLAGS_conv2d_krsc := -D TYPE=half
EXAMPLE_FLAGS_conv2d_nhwc := -D TYPE=half
EXAMPLE_FLAGS_conv2d_nchw := -D TYPE=half
EXAMPLE_FLAGS_shift_conv  := -D TYPE=half

.PHONY: examples
examples: $(EXAMPLE_CUBINS)

$(BUILD)/examples/%.cubin: $(EXAMPLES_DIR)/%.tri | $(STAMP)
	@mkdir -p $(@D)
	$(TRITONC) $< $(if $(ARCH),--arch $(ARCH)) $(EXAMPLE_FLAGS_$*) -MMD -MP -o $@

-include $(EXAMPLE_CUBINS:.cubin=.d)
