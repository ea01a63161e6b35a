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


def _signatures(module: ir.Module):
    for operation in module.body.operations:
        if operation.operation.name == "func.func":
            yield ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value)


def data_dependent_results(module: ir.Module) -> list[str]:
    """The dynamic result types of the functions whose arguments are static, as "INDEX (TYPE)": sizes the
    data decides (the rows NonZero, Compress or NonMaxSuppression select), which no `--dim` makes static."""
    return [f"{index} ({result})" for function_type in _signatures(module)
            if not any("?" in str(argument) for argument in function_type.inputs)
            for index, result in enumerate(function_type.results) if "?" in str(result)]


def dynamic_signature_reason(module: ir.Module, static_only: str, backend: str) -> str | None:
    """Why a consumer of static shapes only (`static_only` says so: "XLA compiles static shapes")
    cannot take `module`: None when every function's signature is static. Dynamic arguments are the
    model's dims (`--dim` fixes them); dynamic results with static arguments are `data_dependent_results`."""
    if any("?" in str(argument) for function_type in _signatures(module) for argument in function_type.inputs):
        return f"{static_only} and the module's signature has dynamic dims; " + STATIC_DIMS_HINT.format(backend=backend)
    dynamic = data_dependent_results(module)
    if not dynamic:
        return None
    results = ", ".join(dynamic)
    return (f"{static_only}, and {'result' if len(dynamic) == 1 else 'results'} {results} "
            f"{'has' if len(dynamic) == 1 else 'have'} a size the data decides (the rows a "
            "NonZero, Compress or NonMaxSuppression selects, cut to their run-time count): no --dim makes "
            "it static; compile with --data-dependent-outputs padded-with-counts (each such output padded, its "
            "count returned after the outputs), or run it on a consumer of dynamic shapes (IREE, the reference runner)")


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
