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


def dynamic_signature_reason(module: ir.Module, static_only: str, backend: str) -> str | None:
    """Why a consumer of static shapes only (`static_only` says so: "XLA compiles static shapes")
    cannot take `module`: None when every
    function's signature is static. Dynamic arguments are the model's dims (`--dim` fixes them); a
    dynamic result with static arguments is a size the data decides (the rows NonZero, Compress or
    NonMaxSuppression select), which no compile option makes static."""
    for operation in module.body.operations:
        if operation.operation.name != "func.func":
            continue
        function_type = ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value)
        if any("?" in str(argument) for argument in function_type.inputs):
            return (f"{static_only} and the module's signature has dynamic dims; "
                    + STATIC_DIMS_HINT.format(backend=backend))
        dynamic = [index for index, result in enumerate(function_type.results) if "?" in str(result)]
        if dynamic:
            results = ", ".join(f"{index} ({function_type.results[index]})" for index in dynamic)
            return (f"{static_only}, and {'result' if len(dynamic) == 1 else 'results'} {results} "
                    f"{'has' if len(dynamic) == 1 else 'have'} a size the data decides (the rows a "
                    "NonZero, Compress or NonMaxSuppression selects, cut to their run-time count): no --dim makes "
                    "it static; run it on a consumer of dynamic shapes (IREE, the reference runner), or pad the "
                    "rows to a static size in the model")
    return None


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
