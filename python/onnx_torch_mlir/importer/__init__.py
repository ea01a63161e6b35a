"""ONNX protobuf -> MLIR, in the ONNX dialect spelling or the torch-ONNX spelling."""

from .loading import load_model  # noqa: F401
