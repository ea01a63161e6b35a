# onnx-torch-mlir: every target creates .venv from the pins if it is missing.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: venv demo test test-lit test-python test-conformance conformance docs bench clean help

help:
	@echo "make demo              compile and run a model shipped in the onnx wheel, saying what happened"
	@echo "make test              lit + pytest + conformance regression check (what CI runs)"
	@echo "make conformance       full conformance run on every enabled backend; rewrites docs/ tables"
	@echo "make bench             importer benchmark against torch-mlir's importer"
	@echo "make venv              create .venv from the pinned versions"

venv: $(STAMP)

$(STAMP): pyproject.toml externals/mlir-wheels.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP)

demo: venv
	$(BIN)/onnx-torch-mlir demo

test: venv test-lit test-python test-conformance

test-lit: venv
	PATH=$(abspath $(BIN)):$$PATH $(BIN)/lit -sv test/lit

test-python: venv
	$(BIN)/python -m pytest -q test/python

# Fails when a case listed in test/conformance/passing-*.txt stops passing.
test-conformance: venv
	$(BIN)/onnx-torch-mlir conformance --check --jobs $(JOBS)

# Full run: rewrites docs/conformance*.md and the passing lists.
conformance: venv
	$(BIN)/onnx-torch-mlir conformance --update --jobs $(JOBS)

bench: venv
	$(BIN)/python tools/bench_import.py

clean:
	rm -rf $(VENV) build python/*.egg-info
