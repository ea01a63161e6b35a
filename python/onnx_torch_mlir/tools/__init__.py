"""Command-line entry points: `onnx-torch-mlir` (main.py) and `onnx-mlir-opt` (opt.py)."""
