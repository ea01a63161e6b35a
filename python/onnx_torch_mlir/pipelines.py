"""Named pass pipelines and the one function that runs them with readable errors.

Output types: "torch" (torch-mlir's backend contract), and the three backends
"linalg-on-tensors", "tosa", "stablehlo", reached with torch-mlir's own
backend pipelines.
"""

import re

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from .errors import PipelineError
from .isolation import begin_step

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
OUTPUT_TYPES = ("torch",) + BACKENDS

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


def check_output_type(output_type: str) -> None:
    if output_type not in OUTPUT_TYPES:
        raise PipelineError(
            f"unknown output type '{output_type}': expected one of {', '.join(OUTPUT_TYPES)}"
        )


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


def lower_torch_to_backend(
    module: ir.Module, output_type: str, *, backend_legal_ops=(), custom_op_encoding: str = "operands"
) -> None:
    """Torch backend contract -> `output_type`, in place (no-op for "torch").

    Ops of `backend_legal_ops` that the module still holds, and ONNX ops kept by
    `keep_onnx_ops`, become the backend's custom ops first (docs/custom-ops.md).
    A backend switched off (onnx_torch_mlir.config) raises BackendDisabledError.
    """
    from . import config

    check_output_type(output_type)
    config.require_output_type(output_type)
    if output_type == "torch":
        begin_step("after compilation")
        return
    from .transforms.custom_ops import lower_with_custom_ops, module_has_custom_op_candidates

    from .transforms.stablehlo_dynamic import finish_dynamic_stablehlo
    from .transforms.stablehlo_convolution_padding import trim_convolution_padding
    from .transforms.stablehlo_unsigned import signless_unsigned_constants

    dynamic = output_type in ("tosa", "stablehlo") and has_dynamic_signature(module)
    from .transforms.broadcast_check import refuse_static_broadcast_mismatches

    refuse_static_broadcast_mismatches(module)  # StableHLO's lowering aborts on some
    if output_type == "tosa":
        refuse_dims_over_int32(module)
        from .transforms.tosa_scalar_comparisons import compare_with_literals

        compare_with_literals(module)  # else compared in float64, valid for no TOSA profile
        from .transforms.tosa_empty_tensors import empty_results_as_empty_tensors

        empty_results_as_empty_tensors(module)  # TOSA has no zero-sized tensor
        from .transforms.constant_int_tensors import constant_int_tensors_as_literals

        constant_int_tensors_as_literals(module)  # TorchToTosa lowers no aten.tensor
    if output_type == "linalg-on-tensors":
        from .transforms.empty_tensors import replace_empty_results
        from .transforms.static_views import give_views_their_static_type

        replace_empty_results(module)  # torch-mlir's Linalg lowering divides by zero dims
        if give_views_their_static_type(module):  # it faults on views of static tensors typed `?`
            # ... and on the ops after them typed `?` too: torch-mlir's shape refinement passes it on.
            run_passes(module, "func.func(canonicalize),torch-shape-refinement-pipeline,func.func(canonicalize)",
                       stage="view types")
    if output_type in ("tosa", "stablehlo"):
        drop_runtime_asserts(module)
        from .transforms.backend_control_flow import has_torch_control_flow, lower_control_flow_for_backend

        if has_torch_control_flow(module):  # prim.If/Loop -> stablehlo.if/while, tosa.cond_if/while_loop
            lower_control_flow_for_backend(module, output_type)
        erase_unused_shape_arithmetic(module)
    if output_type == "stablehlo":
        from .transforms import stablehlo_torch_forms

        # Run-time scalars also in a static signature (NonMaxSuppression's count, a Shape of its rows).
        stablehlo_torch_forms.run_time_scalar_tensors_as_concatenations(module)
        from .transforms.stablehlo_run_time_ranges import run_time_float_ranges_as_integer_ranges

        run_time_float_ranges_as_integer_ranges(module)  # the expanded window functions' Range
        from .transforms.stablehlo_run_time_scales import run_time_nearest_scales_as_gathers

        run_time_nearest_scales_as_gathers(module)  # Upsample by a scales input
        from .transforms.constant_int_tensors import constant_int_tensors_as_literals

        constant_int_tensors_as_literals(module)  # a Shape in a SequenceMap body, inlined
        stablehlo_torch_forms.run_time_items_as_int_tensors(module)
        from .transforms.stablehlo_run_time_pads import run_time_pads_as_slices_and_concatenations

        run_time_pads_as_slices_and_concatenations(module)  # CenterCropPad's expanded Pad
    if output_type == "stablehlo" and dynamic:
        from .transforms.stablehlo_upsampling import whole_number_upsamplings_as_blends
        from .transforms.torch_window_slices import max_pools_as_slices

        max_pools_as_slices(module)
        whole_number_upsamplings_as_blends(module)
    if output_type == "stablehlo":  # also a static signature's: sizes read at run time
        stablehlo_torch_forms.refuse_dynamic_interpolations(module)
    if output_type == "tosa":
        from .transforms.tosa_dynamic_rows import mark_rows_cut_to_run_time_counts

        mark_rows_cut_to_run_time_counts(module)  # rows of a run-time count (NMS): computed padded, cut by a marker
    if output_type == "tosa" and dynamic:
        from .transforms.tosa_dynamic import keep_dims_dynamic_for_tosa

        keep_dims_dynamic_for_tosa(module, STATIC_DIMS_HINT.format(backend="tosa"))
    try:
        if module_has_custom_op_candidates(module, backend_legal_ops):
            begin_step(f"torch-to-{output_type} with custom ops", module)
            lower_with_custom_ops(module, output_type, backend_legal_ops, custom_op_encoding)
        else:
            run_passes(module, TORCH_TO_BACKEND[output_type], stage=f"torch-to-{output_type}")
        if output_type == "linalg-on-tensors":
            from .transforms.scf_while_rotation import rotate_while_loops

            rotate_while_loops(module)  # IREE's stream conversion fails on torch-mlir's while form
            from .transforms.linalg_window_extents import cut_window_inputs_to_their_extent

            cut_window_inputs_to_their_extent(module)  # IREE miscompiles inputs past the last window
        if output_type == "tosa":
            from .transforms.tosa_dynamic_rows import cut_marked_rows

            cut_marked_rows(module)  # the markers: tensor.extract_slice to the count
            from .transforms.tosa_wide_gathers import gathers_of_i64_as_i32_halves

            gathers_of_i64_as_i32_halves(module)  # TOSA's gather has no i64; IREE refuses one
            from .transforms.tosa_exact_casts import exact_casts_between_floats_and_int64

            exact_casts_between_floats_and_int64(module)  # no TOSA profile casts between floats and i64
            from .transforms.tosa_int64_add_sub import int64_add_sub_in_int64

            int64_add_sub_in_int64(module)  # TorchToTosa adds and subtracts int64 in i32
            from .transforms.tosa_narrow_integers import widen_narrow_integer_ops

            widen_narrow_integer_ops(module)  # pro_int computes and compares on i32 only
            from .transforms.tosa_isolated_loops import isolate_while_loops

            isolate_while_loops(module)  # the TOSA specification's loop bodies read only their arguments
        if output_type == "stablehlo":
            # Dynamic shapes and unsigned constants in forms the consumers lower.
            from .transforms.stablehlo_dynamic_convolution import (
                dynamic_convolutions_as_patches, dynamic_reduce_windows_as_slices)

            dynamic_convolutions_as_patches(module)  # no consumer lowers dynamic spatial sizes
            dynamic_reduce_windows_as_slices(module)
            finish_dynamic_stablehlo(module)
            signless_unsigned_constants(module)
            trim_convolution_padding(module)  # IREE miscompiles unread padding
            from .transforms.stablehlo_half_convolutions import half_convolutions_in_f32

            half_convolutions_in_f32(module)  # accumulated in f32, as torch-mlir's Linalg lowering does
            from .transforms.stablehlo_constants import tensor_constants_as_stablehlo

            tensor_constants_as_stablehlo(module)  # XLA and portable artifacts take StableHLO constants only
    except PipelineError as error:
        if not dynamic:
            raise
        first, _, rest = str(error).partition("\n")
        hinted = f"{first} ({STATIC_DIMS_HINT.format(backend=output_type)})"
        raise PipelineError(f"{hinted}\n{rest}" if rest else hinted) from None
    begin_step("after compilation")


_STATIC_DIMS = re.compile(r"!torch\.vtensor<\[([0-9,]+)\]")
INT32_MAX = 2**31 - 1


def refuse_dims_over_int32(module: ir.Module) -> None:
    """Fail, naming the node, on a tensor dim over 2^31 - 1: torch-mlir's TOSA lowering takes sizes as
    32-bit integers and aborts the process on a larger one (found by tools/fuzz.py)."""
    found = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        for value in list(operation.results) + [arg for region in operation.regions for block in region.blocks
                                                for arg in block.arguments]:
            match = _STATIC_DIMS.match(str(value.type))
            if match and any(int(dim) > INT32_MAX for dim in match.group(1).split(",")):
                found.append((operation, value.type))
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    if found:
        operation, type_ = found[0]
        raise PipelineError(f"torch-to-tosa: {operation.location}: a tensor of type {type_} has a dim over 2^31 - 1, "
                            "which torch-mlir's TOSA lowering cannot take (its sizes are 32-bit)")


def drop_runtime_asserts(module: ir.Module) -> int:
    """Erase the module's `torch.runtime.assert` ops; the count erased.

    TOSA and StableHLO have no assertion op, and torch-mlir's lowerings to them refuse the
    checks its own shape simplification adds on dynamic dims ("Expected dim size > 0." where a
    `Reshape` target copies a dim, broadcast and unflatten size checks). The Linalg path keeps
    them as run-time assertions; on these two backends a model run on inputs that break one
    computes on without the check, as torch-mlir's own TOSA and StableHLO paths do for the
    checks they never emit.
    """
    found: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name == "torch.runtime.assert":
            found.append(operation)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(collect)
        for operation in found:
            operation.erase()
    return len(found)


# Value-semantic ops (no side effect) that torch-mlir's canonicalizer leaves when unused: an
# `aten.tensor` of a dims list (what our conversion makes of a `Shape` whose consumers read the
# dims directly), a dead `aten.item` of a slice of it. TOSA's and StableHLO's lowerings refuse
# them on dynamic dims. In-place aten ops (`aten.foo_`) are not value semantic and never match.
_SHAPE_ARITHMETIC = re.compile(
    r"torch\.(constant\.\w+|vtensor\.literal|prim\.ListConstruct|prim\.NumToTensor\.Scalar|aten\.[a-z0-9_]*[a-z0-9](\.\w+)?)"
)


def erase_unused_shape_arithmetic(module: ir.Module) -> int:
    """Erase unused value-semantic torch ops (see _SHAPE_ARITHMETIC) until none is left; the count."""
    erased = 0
    with module.context:
        while True:
            found: list[ir.Operation] = []

            def collect(operation: ir.Operation) -> ir.WalkResult:
                if _SHAPE_ARITHMETIC.fullmatch(operation.name) and all(
                    not list(result.uses) for result in operation.results
                ):
                    found.append(operation)
                return ir.WalkResult.ADVANCE

            module.operation.walk(collect)
            if not found:
                return erased
            for operation in found:
                operation.erase()
            erased += len(found)
