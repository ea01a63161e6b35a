# onnx-torch-mlir: every target creates .venv from the pins if it is missing.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2
# Paths to switch off, e.g. `make test DISABLE=tosa,stablehlo` (see README: Switches).
DISABLE ?=
ifneq ($(strip $(DISABLE)),)
export ONNX_TORCH_MLIR_DISABLE := $(DISABLE)
endif

.PHONY: venv demo test test-lit test-python test-conformance test-coverage conformance coverage docs bench bench-consumer clean help \
	zoo zoo-check test-zoo wild wild-check test-wild wheel test-wheel

help:
	@echo "make demo              compile and run a model shipped in the onnx wheel, saying what happened"
	@echo "                       (from .venv-demo: the package and onnxruntime only)"
	@echo "make test              lit + pytest + conformance and zoo-slice regression checks (what CI runs)"
	@echo "make conformance       full conformance run on every enabled backend; rewrites docs/ tables"
	@echo "make coverage          custom-op coverage run (one node case per ONNX op); rewrites docs/custom-op-coverage.md"
	@echo "make bench             whole-path benchmark (ONNX file to each backend) against torch-mlir's path;"
	@echo "                       rewrites docs/performance.md"
	@echo "make bench-consumer    IREE running each path's output (ours, iree-import-onnx, torch-mlir's) against"
	@echo "                       onnxruntime, calls alternated; rewrites its section of docs/performance.md"
	@echo "make wheel             build the wheel into dist/ (python -m build)"
	@echo "make test-wheel        install the wheel into a fresh venv and smoke-test it there (part of make test)"
	@echo "make zoo               build the model zoo (cached outside the repo), run every model x backend x"
	@echo "                       configuration x consumer; rewrites docs/models.md and test/models/{results,passing}"
	@echo "make zoo-check         fail when any model in test/models/passing/ours/ no longer passes (all models)"
	@echo "make test-zoo          the same check on the zoo's fast slice (part of make test)"
	@echo "make wild              the wild corpus (ONNX files other tools wrote; test/wild/): build (downloads cached"
	@echo "                       outside the repo), run every file x backend x configuration x consumer;"
	@echo "                       rewrites docs/wild.md and test/wild/{results,passing}"
	@echo "make wild-check        fail when any file in test/wild/passing/ours/ no longer passes (all files)"
	@echo "make test-wild         the same check on the wild corpus's fast slice (part of make test)"
	@echo "DISABLE=tosa,stablehlo,torch   switch paths off for any target"
	@echo "make venv              create .venv from the pinned versions"

venv: $(STAMP)

$(STAMP): pyproject.toml externals/mlir-wheels.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# torch first and exactly 2.13.0 (the local CPU build): any other request pulls CUDA wheels.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@# Arm's TOSA tools (runtime/tosa_reference.py): binaries only, its metadata's numpy<2.2 would break our pins.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps tosa-tools==2026.8.0
	@touch $(STAMP)

# The demo runs from a lean environment of its own: the package and the `verify` extra (onnxruntime),
# no torch, transformers or IREE: 492 MB (du -sm .venv-demo; tools/wheel_smoke.sh fails its wheel equivalent over 700 MB).
DEMO_VENV := .venv-demo
DEMO_STAMP := $(DEMO_VENV)/.installed

$(DEMO_STAMP): pyproject.toml externals/mlir-wheels.toml
	@test -x $(DEMO_VENV)/bin/python || $(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[verify]'
	@touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(DEMO_VENV)/bin/onnx-torch-mlir demo

test: venv test-lit test-python test-wheel test-conformance test-coverage test-zoo test-wild test-fuzz

# The fuzzer (tools/fuzz.py): seeded mutations of the conformance models, each compiled to every enabled
# backend in its own process. `make fuzz` runs FUZZ_COUNT of them and rewrites docs/robustness.md's report;
# `make test-fuzz` (in make test, about a minute) the first 300, failing on a crash, hang, traceback or leftover.
FUZZ_COUNT ?= 5000
fuzz: venv
	rm -f build/fuzz/results.jsonl
	$(BIN)/python tools/fuzz.py --seed 1 --count $(FUZZ_COUNT) --jobs $(JOBS) --results build/fuzz/results.jsonl \
		--report docs/robustness.md

test-fuzz: venv
	rm -f build/fuzz/test-results.jsonl
	$(BIN)/python tools/fuzz.py --seed 1 --count 300 --jobs $(JOBS) --results build/fuzz/test-results.jsonl --check

test-lit: venv
	PATH=$(abspath $(BIN)):$$PATH $(BIN)/lit -sv test/lit

test-python: venv
	$(BIN)/python -m pytest -q -n $(JOBS) --dist loadfile --durations=20 test/python

# Fails when a case listed in test/conformance/passing/ stops passing: our whole path on every
# backend, and our importer under torch-mlir's conversion (the torch-ONNX spelling's compliance).
test-conformance: venv
	$(BIN)/onnx-torch-mlir conformance --check --jobs $(JOBS) --configuration ours
	$(BIN)/onnx-torch-mlir conformance --check --jobs $(JOBS) --configuration ours-importer --backend linalg-on-tensors

# A fast slice of the custom-op coverage run: every Torch op of a few cases backend-legal, each must
# become a well-formed custom op on every enabled backend (or be rejected for a documented reason).
test-coverage: venv
	$(BIN)/onnx-torch-mlir conformance --coverage --fail-on-pipeline-errors --jobs 1 --coverage-report /dev/null \
		-k 'node/test_layer_normalization_2d_axis0' -k 'node/test_relu' -k 'node/test_gemm_default*' \
		-k 'node/test_softmax_axis_0' -k 'node/test_concat_1d_axis_0' -k 'node/test_conv_with_strides_padding'

coverage: venv
	$(BIN)/onnx-torch-mlir conformance --coverage --one-case-per-op --jobs $(JOBS)

# Full run of every configuration, ours and the peer's: rewrites docs/conformance.md,
# docs/supported-ops.md, test/conformance/results/ and the passing lists.
conformance: venv
	$(BIN)/onnx-torch-mlir conformance --update --jobs $(JOBS) --configuration ours --configuration ours-importer \
		--configuration torch-mlir --configuration torch-mlir-upgraded

bench: venv
	$(BIN)/python tools/bench.py --jobs 1 --update
	$(BIN)/python tools/bench_runner.py --update

# IREE running each path's output (ours on three backends, iree-import-onnx, torch-mlir's) against
# onnxruntime, calls alternated in one process; writes its section of docs/performance.md.
bench-consumer: venv
	$(BIN)/python tools/bench_consumer.py --update

# The wheel users pip-install; its version is onnx_torch_mlir.__version__.
# build/lib is removed first: setuptools copies into it without deleting, so a module removed from
# python/ would otherwise still ship.
wheel: venv
	rm -rf dist/onnx_torch_mlir-*.whl build/lib build/bdist.*
	@mkdir -p build
	$(BIN)/python -m build --wheel --outdir dist . > build/wheel.log 2>&1 || { tail -n 30 build/wheel.log; exit 1; }
	@ls dist/onnx_torch_mlir-*.whl

# The built wheel in a fresh venv, nothing from the repository on the path (25 s idle, 60 s loaded;
# most of it pip installing the dependencies from its cache).
test-wheel: wheel
	tools/wheel_smoke.sh $$(ls dist/onnx_torch_mlir-*.whl)

# The model zoo (test/models/): built into ${ONNX_TORCH_MLIR_ZOO_CACHE:-~/.cache/onnx-torch-mlir/zoo}.
zoo: venv
	$(BIN)/python test/models/run_zoo.py --update --jobs $(JOBS)

zoo-check: venv
	$(BIN)/python test/models/run_zoo.py --check --all --jobs $(JOBS)

# The zoo's fast slice, configuration "ours", both consumers: fails when a listed model regresses.
test-zoo: venv
	$(BIN)/python test/models/run_zoo.py --check --jobs $(JOBS)

# The wild corpus (test/wild/): files other people's tools wrote, run by the zoo's harness.
wild: venv
	$(BIN)/python test/models/run_zoo.py --corpus wild --update --jobs $(JOBS)

wild-check: venv
	$(BIN)/python test/models/run_zoo.py --corpus wild --check --all --jobs $(JOBS)

test-wild: venv
	$(BIN)/python test/models/run_zoo.py --corpus wild --check --jobs $(JOBS)

clean:
	rm -rf $(VENV) $(DEMO_VENV) build dist python/*.egg-info
