"""Our passes as MLIR passes, and the `convert-onnx-to-torch-pipeline`.

Our passes are Python callables added to an MLIR `PassManager`
(`PassManager.add(callable, argument=...)`), so they mix with torch-mlir's
native passes in one pass manager: `--mlir-print-ir-after-all`, timing and
verification see them like any other pass. A pass that fails reports every
failure as an MLIR error diagnostic at the failing op's location, then signals
pass failure; `run_pipeline` turns the diagnostics into one `ConversionError`
listing all of them.
"""

from __future__ import annotations

import contextlib
import re

from dataclasses import dataclass
from collections.abc import Callable, Sequence

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from ..timing import stage as timing_stage
from ..errors import ConversionError, PipelineError
from ..transforms import (
    convert_function_types_to_torch_types,
    erase_onnx_entry_point,
    finalize_torch_type_conversion,
)
from .onnx_to_torch import convert_onnx_to_torch


@dataclass(frozen=True)
class OurPass:
    argument: str
    description: str
    run: Callable  # (module_op) -> list of failures (objects with .location/.message or strings)


def _run_convert(module_op):
    return convert_onnx_to_torch(module_op)


def _run_function_types(module_op):
    convert_function_types_to_torch_types(module_op)
    return []


def _run_finalize(module_op):
    return finalize_torch_type_conversion(module_op)


def _run_erase_entry_point(module_op):
    erase_onnx_entry_point(module_op)
    return []


OUR_PASSES = {
    p.argument: p
    for p in (
        OurPass("convert-onnx-to-torch", "Convert every ONNX op (either spelling) to torch ops", _run_convert),
        OurPass(
            "convert-function-types-to-torch-types",
            "Convert function signatures from builtin tensors to !torch.vtensor",
            _run_function_types,
        ),
        OurPass(
            "finalize-torch-type-conversion",
            "Fold the bridging unrealized casts; fail on any that remain",
            _run_finalize,
        ),
        OurPass("erase-onnx-entry-point", "Erase the onnx.EntryPoint op", _run_erase_entry_point),
    )
}

# Our half of convert-onnx-to-torch-pipeline, in order.
OUR_PIPELINE = (
    "convert-onnx-to-torch",
    "convert-function-types-to-torch-types",
    "finalize-torch-type-conversion",
    "erase-onnx-entry-point",
)


def backend_contract_pipeline(backend_legal_ops: Sequence[str] = ()) -> str:
    """torch-mlir's passes from converted torch ops to its backend contract (a textual pipeline)."""
    legal = f"{{backend-legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    return (
        "func.func(canonicalize),func.func(torch-scalarize-shapes),"
        f"torch-function-to-torch-backend-pipeline{legal},"
        "torch-verify-backend-contract-no-decompositions"
    )


# Element types torch has no ScalarType for. torch-mlir's dtype refinement (inside
# torch-lower-to-backend-contract) aborts the process on them ("Unhandled type in
# getScalarTypeForType"), so modules using them take the refinement-free route below,
# the same simplification torch-mlir's own ONNX pipeline applies.
_TYPES_WITHOUT_TORCH_DTYPE = re.compile(r"[<,]\s*(?:ui16|ui32|ui64|si4|ui4|si2|ui2)>")


def uses_types_without_torch_dtype(module: ir.Module) -> bool:
    """Whether a value or block argument of `module` has such a type (a walk over the types:
    printing the module, even with large elements and resources elided, took seconds per
    hundred MiB of weights)."""
    found = False

    def visit(operation: ir.Operation) -> ir.WalkResult:
        nonlocal found
        values = list(operation.results)
        for region in operation.regions:
            for block in region.blocks:
                values.extend(block.arguments)
        found = any(_TYPES_WITHOUT_TORCH_DTYPE.search(str(value.type)) for value in values)
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def refinement_free_contract_pipeline(backend_legal_ops: Sequence[str] = ()) -> str:
    """Shape simplification and decomposition without torch-mlir's dtype refinement.

    Our conversion already gives every value its dtype and rank, so what the
    backend contract still needs is shape-calculation cleanup and decomposition.
    """
    legal = f"{{legal-ops={','.join(backend_legal_ops)}}}" if backend_legal_ops else ""
    return (
        "func.func(canonicalize),func.func(torch-scalarize-shapes),torch-reify-shape-calculations,inline,"
        "func.func(torch-simplify-shape-calculations),func.func(cse),func.func(torch-simplify-shape-calculations),"
        "func.func(torch-drop-abstract-interp-calculations),torch-refine-public-return,func.func(canonicalize),"
        f"func.func(torch-decompose-complex-ops{legal}),func.func(canonicalize),"
        "torch-verify-backend-contract-no-decompositions"
    )


def _make_python_pass(our_pass: OurPass):
    def run(op, pass_):
        failures = our_pass.run(op)
        if not failures:
            return
        for failure in failures:
            if isinstance(failure, str):
                ir.Location.unknown(op.context).emit_error(failure)
            else:
                failure.location.emit_error(failure.message)
        pass_.signal_pass_failure()

    run.__name__ = our_pass.argument.replace("-", "_")
    return run


def add_pass(manager: PassManager, argument: str) -> None:
    """Add one pass by its command-line argument: ours (Python) or any textual MLIR pipeline."""
    our_pass = OUR_PASSES.get(argument)
    if our_pass is None:
        manager.add(argument)
        return
    manager.add(
        _make_python_pass(our_pass),
        name=our_pass.argument,
        argument=our_pass.argument,
        description=our_pass.description,
    )


def convert_onnx_to_torch_pipeline(backend_legal_ops: Sequence[str] = ()) -> list[str]:
    """The steps of `convert-onnx-to-torch-pipeline`: our four passes, then torch-mlir's."""
    return list(OUR_PIPELINE) + [backend_contract_pipeline(backend_legal_ops)]


def format_all_diagnostics(error: ir.MLIRError) -> str:
    lines = []
    for diagnostic in error.error_diagnostics:
        lines.append(f"{diagnostic.location}: error: {diagnostic.message}")
        for note in diagnostic.notes:
            lines.append(f"{note.location}: note: {note.message}")
    return "\n".join(lines) or str(error)


def build_pass_manager(steps: Sequence[str], context: ir.Context) -> PassManager:
    with context:
        manager = PassManager("builtin.module")
        for step in steps:
            try:
                add_pass(manager, step)
            except ValueError as error:
                raise PipelineError(f"bad pipeline element '{step}': {error}") from None
    return manager


# Stages of run_pipeline timed on their own by onnx_torch_mlir.timing (inside the caller's stage).
_TIMING_STAGES = {"torch backend contract": "torch-mlir simplification"}


def run_pipeline(module: ir.Module, steps: Sequence[str], *, stage: str, error_class=ConversionError) -> None:
    """Run `steps` (pass arguments or textual pipelines) on `module`; all errors in one exception.

    The message's first line summarizes (`stage: N errors`), then one line per diagnostic.
    """
    manager = build_pass_manager(steps, module.context)
    from ..isolation import begin_step

    begin_step(stage, module, reproduce=" ".join(f"--pass-pipeline 'builtin.module({step})'" for step in steps))
    timed = _TIMING_STAGES.get(stage)  # `compile --timing`: torch-mlir's part of our conversion
    with module.context, (timing_stage(timed) if timed else contextlib.nullcontext()):
        try:
            manager.run(module.operation)
        except ir.MLIRError as error:
            count = len(error.error_diagnostics)
            detail = format_all_diagnostics(error)
            first = detail.splitlines()[0] if detail else str(error)
            summary = first if count <= 1 else f"{first} (and {count - 1} more errors)"
            raise error_class(f"{stage}: {summary}\n{detail}") from None


def convert_onnx_to_torch_backend_contract(module: ir.Module, backend_legal_ops: Sequence[str] = ()) -> None:
    """An imported ONNX module (either spelling) to torch-mlir's backend contract, in place."""
    run_pipeline(module, OUR_PIPELINE, stage="convert-onnx-to-torch")
    if uses_types_without_torch_dtype(module):
        contract = refinement_free_contract_pipeline(backend_legal_ops)
    else:
        contract = backend_contract_pipeline(backend_legal_ops)
    run_pipeline(module, [contract], stage="torch backend contract", error_class=PipelineError)
