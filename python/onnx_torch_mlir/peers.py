"""torch-mlir's own ONNX path: the peer we measure against, never part of ours.

`import_with_torch_mlir` runs torch-mlir's reference importer
(`torch_mlir.extras.onnx_importer`), `convert_with_torch_mlir` its
`torch-onnx-to-torch-backend-pipeline`. The conformance runner and the
benchmarks use them to put our numbers next to torch-mlir's in the same run.
"""

import warnings

import onnx
from torch_mlir import ir
from torch_mlir.extras import onnx_importer

from .errors import ImportError_, OnnxTorchMlirWarning
from .mlir_context import make_context
from .mlir_passes import run_passes

# The opset torch-mlir's ONNX tests upgrade models to before importing.
TORCH_MLIR_UPGRADE_OPSET = 21


def upgrade_opset(model: onnx.ModelProto, opset: int = TORCH_MLIR_UPGRADE_OPSET) -> onnx.ModelProto:
    """ONNX's version converter, as torch-mlir's test flow applies it; unchanged if it fails."""
    current = next((entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx")), None)
    if current is None or current >= opset:
        return model
    try:
        return onnx.version_converter.convert_version(model, opset)
    except Exception:  # the converter lacks adapters for some ops; torch-mlir then keeps the model
        return model


def import_with_torch_mlir(model: onnx.ModelProto, context: ir.Context | None = None) -> ir.Module:
    """torch-mlir's importer, after ONNX shape inference with data propagation."""
    context = context or make_context()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
            model_info = onnx_importer.ModelInfo(inferred)
            module = model_info.create_module(context=context)
            importer = onnx_importer.NodeImporter.define_function(model_info.main_graph, module.operation)
            importer.import_all()
    except Exception as error:  # the peer's failures are data for the report, not bugs of ours
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ImportError_(f"torch-mlir importer: {message}") from None
    finally:
        _report_warnings(caught)
    return module


def _report_warnings(caught) -> None:
    """The importer's Python warnings (file, line and source on two lines) as ours: one line each, once."""
    for message in dict.fromkeys(str(warning.message).strip() for warning in caught):
        first = message.splitlines()[0] if message else "a warning without text"
        warnings.warn(OnnxTorchMlirWarning(f"torch-mlir importer: {first}"), stacklevel=2)


def convert_with_torch_mlir(module: ir.Module, backend_legal_ops=()) -> None:
    """torch-mlir's ONNX-to-Torch conversion to the backend contract, in place."""
    options = f"{{backend-legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    run_passes(module, f"torch-onnx-to-torch-backend-pipeline{options}", stage="torch-mlir onnx-to-torch")
