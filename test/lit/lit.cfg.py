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
# A PYTHONPATH (a git worktree's python/ ahead of the venv's editable install) reaches the tools too.
if os.environ.get("PYTHONPATH"):
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
for tool in ("FileCheck", "split-file", "onnx-mlir-opt", "onnx-torch-mlir"):
    if not os.path.exists(os.path.join(bin_dir, tool)):
        lit_config.fatal(f"{tool} not found in {bin_dir}: run `make venv` first")
config.substitutions.append(("%python", sys.executable))

# Path switches (onnx_torch_mlir.config): a switched-off path is not a lit feature, and a test whose
# RUN lines use it is UNSUPPORTED with the reason, even without a REQUIRES line (lit_switches.py).
sys.path.insert(0, os.path.dirname(__file__))
import lit_switches  # noqa: E402

for _feature in lit_switches.enabled_paths():
    config.available_features.add(_feature)
lit_switches.pass_environment(config)
config.test_format = lit_switches.SwitchAwareShTest(execute_external=False)
