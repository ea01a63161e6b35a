"""ONNX protobuf -> MLIR, in the ONNX dialect spelling or the torch-ONNX spelling."""

from .api import import_onnx  # noqa: F401
from .loading import load_model  # noqa: F401
