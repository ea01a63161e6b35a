"""lit configuration: our tools and the real FileCheck from llvm-testing-tools."""

import os
import sys

import lit.formats

config.name = "onnx-torch-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

# Our tools, FileCheck and split-file live in the interpreter's bin directory (.venv/bin).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, config.environment.get("PATH", os.environ["PATH"])])
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
for tool in ("FileCheck", "split-file", "onnx-mlir-opt", "onnx-torch-mlir"):
    if not os.path.exists(os.path.join(bin_dir, tool)):
        lit_config.fatal(f"{tool} not found in {bin_dir}: run `make venv` first")
config.substitutions.append(("%python", sys.executable))
