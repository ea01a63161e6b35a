"""Running MLIR pass pipelines with readable errors; torch-mlir's backend pipelines by name.

A leaf module: the transforms, the routes (pipelines.py), the peer's path and the tools all run
passes through `run_passes`, and nothing here imports them back.
"""

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from .errors import PipelineError
from .isolation import begin_step

# torch-mlir's pipelines from the Torch backend contract to each backend.
TORCH_TO_BACKEND = {
    "linalg-on-tensors": "torch-backend-to-linalg-on-tensors-backend-pipeline",
    "tosa": "torch-backend-to-tosa-backend-pipeline",
    "stablehlo": "torch-backend-to-stablehlo-backend-pipeline",
}

STATIC_DIMS_HINT = (
    "the model has dynamic dims and this {backend} form needs static sizes: fix them at compile time with "
    "--dim NAME=SIZE (Python: dims={{'NAME': SIZE}}), NAME an input's symbolic dim, or fix an input's "
    "whole shape with --input-shape INPUT=D0xD1 (Python: input_shapes={{'INPUT': (D0, D1)}})"
)


def has_dynamic_signature(module: ir.Module) -> bool:
    """Whether a function of `module` takes or returns a tensor with a dynamic dim."""
    for operation in module.body.operations:
        if operation.operation.name == "func.func":
            signature = str(ir.TypeAttr(operation.attributes["function_type"]).value)
            if "?" in signature:
                return True
    return False


def format_diagnostics(error: ir.MLIRError, limit: int = 3) -> str:
    """MLIR's error diagnostics as text, the first (most specific) one first."""
    lines = []
    for diagnostic in error.error_diagnostics[:limit]:
        lines.append(f"{diagnostic.location}: {diagnostic.message}")
        for note in diagnostic.notes[:2]:
            lines.append(f"  note: {note.location}: {note.message}")
    return "\n".join(lines) or str(error)


def run_passes(module: ir.Module, pipeline: str, *, stage: str) -> None:
    """Run `builtin.module(<pipeline>)` on `module` in place.

    `stage` names the step for the error message ("torch-to-linalg-on-tensors").
    """
    with module.context:
        try:
            manager = PassManager.parse(f"builtin.module({pipeline})")
        except ValueError as error:
            raise PipelineError(f"{stage}: bad pipeline '{pipeline}': {error}") from None
        begin_step(stage, module, reproduce=f"--pass-pipeline 'builtin.module({pipeline})'")
        try:
            manager.run(module.operation)
        except ir.MLIRError as error:
            raise PipelineError(f"{stage}: {format_diagnostics(error)}") from None
