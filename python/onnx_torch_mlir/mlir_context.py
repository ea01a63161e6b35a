"""One place that makes MLIR contexts the way every part of the package needs them."""

from torch_mlir import ir
from torch_mlir.dialects import torch as torch_dialect


def make_context() -> ir.Context:
    """A context with the Torch dialect registered and unregistered dialects allowed.

    Unregistered dialects are allowed because the ONNX dialect spelling
    (`"onnx.Add"(...)`) is not a registered MLIR dialect: our own verifier
    checks those ops against the ONNX schemas instead.
    """
    context = ir.Context()
    torch_dialect.register_dialect(context)
    context.allow_unregistered_dialects = True
    return context
