"""Each backend's route from torch-mlir's backend contract: a declared list of named steps.

Output types: "torch" (torch-mlir's backend contract), and the three backends "linalg-on-tensors",
"tosa", "stablehlo". A backend's route is our rewrites of the Torch dialect before torch-mlir's
lowering, torch-mlir's own backend pipeline (mlir_passes.TORCH_TO_BACKEND; with custom ops when the
module keeps backend-legal or ONNX ops), then our rewrites of its output. Every step is named; its
function's docstring says which upstream behaviour it works around and when it can go.
`onnx-mlir-opt --step NAME` runs one step on an MLIR file; a crash inside a step is reported with
its name (isolation.begin_step).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from torch_mlir import ir

from .errors import DynamicDimsError, PipelineError
from .isolation import begin_step
from .mlir_passes import STATIC_DIMS_HINT, TORCH_TO_BACKEND, has_dynamic_signature, run_passes

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
OUTPUT_TYPES = ("torch",) + BACKENDS


@dataclass(frozen=True)
class Step:
    """One named step: `function(module, *arguments)`, `function` spelled "module:function" under
    onnx_torch_mlir.transforms (imported when the step runs, so the routes cost nothing to read).

    `dynamic_only`: runs only when the module's signature has a dynamic dim. `when`: a
    "module:predicate" that must hold for the module. `option`: (name, value) of ROUTE_OPTIONS the
    compile must have chosen (its default when not given). `option_argument`: a route option whose
    value (its default when not given) is passed after `arguments`."""

    name: str
    function: str
    why: str  # one line; the function's docstring says more
    arguments: tuple = ()
    dynamic_only: bool = False
    when: str | None = None
    option: tuple[str, str] | None = None
    option_argument: str | None = None

    def run(self, module: ir.Module, dynamic: bool, options: dict | None = None) -> None:
        if self.dynamic_only and not dynamic:
            return
        if self.option and route_option(options or {}, self.option[0]) != self.option[1]:
            return
        if self.when and not _resolve(self.when)(module):
            return
        begin_step(self.name, module, reproduce=f"--step {self.name}")
        arguments = self.arguments
        if self.option_argument:
            arguments += (route_option(options or {}, self.option_argument),)
        _resolve(self.function)(module, *arguments)


def _resolve(spelling: str):
    module_name, _, function_name = spelling.partition(":")
    return getattr(importlib.import_module(f"onnx_torch_mlir.transforms.{module_name}"), function_name)


# Choices a compile makes about a route's output, by name: (the values, the first the default) and what
# the choice is for. compile(..., conv_layout="as-imported"), `--conv-layout as-imported`.
ROUTE_OPTIONS = {
    "conv_layout": (("channels-last", "as-imported"),
                    "Linalg's and StableHLO's 2-D convolutions and pools: channels-last (NHWC, what IREE's CPU code "
                    "runs fast; docs/performance.md) or as torch-mlir lowers them (NCHW)"),
    "conv_form": (("matrix-products", "direct"),
                  "Linalg's and StableHLO's static channels-last 2-D convolutions: image patches times the filter "
                  "matrix (im2col; what IREE's CPU code runs fast, ResNet-50 5x) or the convolution op itself"),
    "quantized_io": (("float", "int8"),
                     "TOSA, QDQ models: float inputs and outputs quantized and dequantized in the graph, or the "
                     "int8 tensors themselves (no float op left: what Vela compiles)"),
    "data_dependent_outputs": (("cut", "padded-with-counts"),
                               "TOSA's and StableHLO's outputs whose rows the data decides (NonZero, NonMaxSuppression): "
                               "cut to the run-time count (a dynamic dim), or padded to the most rows with each count a "
                               "0-d int64 result after the outputs (static shapes: XLA, a TOSA flatbuffer)"),
}


def route_option(options: dict, name: str) -> str:
    """The value of route option `name` in `options` (its default when absent); a PipelineError
    names the choices when the value is not one."""
    choices = ROUTE_OPTIONS[name][0]
    value = options.get(name) or choices[0]
    if value not in choices:
        raise PipelineError(f"unknown {name.replace('_', '-')} '{value}': expected one of {', '.join(choices)}")
    return value


@dataclass(frozen=True)
class Route:
    before: tuple[Step, ...]  # on the Torch backend contract
    after: tuple[Step, ...]  # on torch-mlir's output for the backend


REFUSE_BROADCAST_MISMATCHES = Step(
    "refuse-static-broadcast-mismatches", "torch.broadcast_check:refuse_static_broadcast_mismatches",
    "StableHLO's lowering aborts on some; every backend refuses them by node")
DROP_RUNTIME_ASSERTS = Step(
    "drop-runtime-asserts", "torch.cleanup:drop_runtime_asserts", "TOSA and StableHLO have no assertion op")
LOWER_CONTROL_FLOW = {backend: Step(
    f"lower-control-flow-for-{backend}", "torch.control_flow:lower_control_flow_for_backend",
    f"torch-mlir lowers no prim.If/Loop: to {ops}", arguments=(backend,),
    when="torch.control_flow:has_torch_control_flow")
    for backend, ops in (("tosa", "tosa.cond_if/while_loop"), ("stablehlo", "stablehlo.if/while"))}
ERASE_UNUSED_SHAPE_ARITHMETIC = Step(
    "erase-unused-shape-arithmetic", "torch.cleanup:erase_unused_shape_arithmetic",
    "TOSA's and StableHLO's lowerings refuse dead shape ops on dynamic dims")
MARK_ROWS_CUT_TO_RUN_TIME_COUNTS = {backend: Step(
    f"mark-rows-cut-to-run-time-counts{suffix}", "torch.dynamic_rows:mark_rows_cut_to_run_time_counts",
    f"rows of a run-time count (NMS): computed padded, cut by a marker ({why})", arguments=(backend,),
    option_argument="data_dependent_outputs")
    for backend, suffix, why in (("tosa", "", "TOSA's shapes are static"),
                                 ("stablehlo", "-stablehlo", "XLA's shapes are static"))}
TRANSPOSED_CONVOLUTIONS_AS_MATRIX_PRODUCTS = Step(
    "transposed-convolutions-as-matrix-products",
    "torch.transposed_convolutions:transposed_convolutions_as_matrix_products",
    "torch-mlir convolves a zero-inserted input, which IREE runs 100x slower than the product (UNet's ConvTranspose)",
    option=("conv_form", "matrix-products"))
CONSTANT_INT_TENSORS_AS_LITERALS = Step(
    "constant-int-tensors-as-literals", "torch.constant_int_tensors:constant_int_tensors_as_literals",
    "TorchToTosa lowers no aten.tensor; StableHLO meets it as an inlined SequenceMap body's Shape")

ROUTES = {
    "linalg-on-tensors": Route(
        before=(
            REFUSE_BROADCAST_MISMATCHES,
            Step("replace-empty-results", "linalg.empty_tensors:replace_empty_results",
                 "torch-mlir's Linalg lowering divides by zero dims"),
            Step("static-view-types", "linalg.static_views:static_view_types",
                 "torch-mlir's Linalg lowering faults on views of static tensors typed `?`"),
            TRANSPOSED_CONVOLUTIONS_AS_MATRIX_PRODUCTS,
        ),
        after=(
            Step("rotate-while-loops", "linalg.scf_while_rotation:rotate_while_loops",
                 "IREE's stream conversion fails on torch-mlir's while form"),
            Step("convolutions-channels-last", "linalg.channels_last:convolutions_channels_last",
                 "IREE's CPU code for torch-mlir's NCHW convolutions is slow (MobileNetV3 3.5x, ResNet-50 1.3x)",
                 option=("conv_layout", "channels-last")),
            Step("cut-window-inputs-to-their-extent", "linalg.window_extents:cut_window_inputs_to_their_extent",
                 "IREE miscompiles inputs past the last window"),
            Step("convolutions-as-matrix-products", "linalg.convolution_matrices:convolutions_as_matrix_products",
                 "IREE's CPU code for a direct convolution runs at a tenth of its matrix product's speed",
                 option=("conv_form", "matrix-products")),
            Step("batch-products-by-a-matrix", "linalg.matrix_broadcasts:batch_products_by_a_matrix",
                 "IREE runs torch-mlir's batch matmul by a broadcast matrix as many small products (ConvNeXt 1.7x)"),
            Step("erf-as-rational-function", "linalg.erf_approximation:erf_as_rational_function",
                 "IREE expands math.erf piecewise (ConvNeXt's GELU layers 1.4x StableHLO's one rational function)"),
            Step("row-by-matrix-products-by-rows", "linalg.vector_products:row_by_matrix_products_by_rows",
                 "IREE runs one row times a [K, N] matrix (vecmat) at a third of the speed of [N, K] rows"),
            Step("quantized-batch-products-by-a-matrix",
                 "linalg.quantized_matrix_products:quantized_batch_products_by_a_matrix",
                 "IREE fails to size the zero-point term of a quantized batch matmul by a broadcast matrix"),
        ),
    ),
    "tosa": Route(
        before=(
            REFUSE_BROADCAST_MISMATCHES,
            Step("refuse-dims-over-int32", "tosa.int32_dims:refuse_dims_over_int32",
                 "TorchToTosa aborts on a size over 2^31 - 1"),
            Step("compare-with-literals", "tosa.scalar_comparisons:compare_with_literals",
                 "else compared in float64, valid for no TOSA profile"),
            Step("empty-results-as-empty-tensors", "tosa.empty_tensors:empty_results_as_empty_tensors",
                 "TOSA has no zero-sized tensor"),
            CONSTANT_INT_TENSORS_AS_LITERALS,
            DROP_RUNTIME_ASSERTS,
            LOWER_CONTROL_FLOW["tosa"],
            ERASE_UNUSED_SHAPE_ARITHMETIC,
            MARK_ROWS_CUT_TO_RUN_TIME_COUNTS["tosa"],
            Step("quantization-markers-as-custom-ops", "tosa.quantized_regions:quantization_markers_as_custom_ops",
                 "QDQ's quantize/dequantize carried through torch-mlir's lowering as tosa.custom"),
            Step("keep-dims-dynamic-for-tosa", "tosa.dynamic:keep_dims_dynamic_for_tosa",
                 "forms TorchToTosa lowers with dynamic dims; the rest refused naming the op", arguments=(STATIC_DIMS_HINT.format(backend="tosa"),),
                 dynamic_only=True),
        ),
        after=(
            Step("cut-marked-rows", "tosa.row_cuts:cut_marked_rows", "the markers: tensor.extract_slice to the count"),
            Step("quantized-inputs-and-outputs-as-int8", "tosa.quantized_regions:quantized_inputs_and_outputs_as_int8",
                 "the graph's boundary QuantizeLinear/DequantizeLinear left to the caller",
                 option=("quantized_io", "int8")),
            Step("quantized-regions-as-integer", "tosa.quantized_regions:quantized_regions_as_integer",
                 "torch-mlir requantizes QDQ graphs in float: int8/int32 ops and tosa.rescale instead",
                 option=("quantized_io", "float")),
            Step("quantized-regions-as-integer-for-npus", "tosa.quantized_regions:quantized_regions_as_integer",
                 "the same, and Softmax and LayerNormalization in integer arithmetic (no float op for Vela)",
                 arguments=(True,), option=("quantized_io", "int8")),
            Step("float64-as-float32", "tosa.float64:float64_as_float32",
                 "TOSA has no float64; torch-mlir's lowering keeps the model's"),
            Step("gathers-of-i64-as-i32-halves", "tosa.wide_gathers:gathers_of_i64_as_i32_halves",
                 "TOSA's gather has no i64; IREE refuses one"),
            Step("exact-casts-between-floats-and-int64", "tosa.exact_casts:exact_casts_between_floats_and_int64",
                 "no TOSA profile casts between floats and i64"),
            Step("int64-add-sub-in-int64", "tosa.int64_add_sub:int64_add_sub_in_int64",
                 "TorchToTosa adds and subtracts int64 in i32"),
            Step("widen-narrow-integer-ops", "tosa.narrow_integers:widen_narrow_integer_ops",
                 "pro_int computes and compares on i32 only"),
            Step("isolate-while-loops", "tosa.isolated_loops:isolate_while_loops",
                 "the TOSA specification's loop bodies read only their arguments"),
            Step("integer-powers-as-products", "tosa.integer_powers:integer_powers_as_products",
                 "TOSA's pow requires a base >= 0; TorchToTosa makes every Pow a tosa.pow"),
            Step("isolate-conditionals", "tosa.isolated_conditionals:isolate_conditionals",
                 "the TOSA specification's cond_if branches read only their operands"),
            Step("concatenations-within-the-level", "tosa.concat_lists:concatenations_within_the_level",
                 "level 8K takes at most 64 tensors in a list; TorchToTosa concatenates every step of a recurrence"),
            Step("tensor-constants-as-tosa-const", "tosa.constants:tensor_constants_as_tosa_const",
                 "TorchToTosa leaves tensor arith.constants; TOSA's serializer knows only TOSA ops"),
            Step("integer-casts-of-constants-folded", "tosa.constants:integer_casts_of_constants_folded",
                 "TorchToTosa casts i64 index constants to i32; Vela and TOSA 1.0 take no i64"),
        ),
    ),
    "stablehlo": Route(
        before=(
            REFUSE_BROADCAST_MISMATCHES,
            Step("run-time-checks-as-markers", "stablehlo.run_time_checks:run_time_checks_as_markers",
                 "checks a wrong answer hides behind (an If of two ranks): carried as a custom call"),
            DROP_RUNTIME_ASSERTS,
            LOWER_CONTROL_FLOW["stablehlo"],
            ERASE_UNUSED_SHAPE_ARITHMETIC,
            MARK_ROWS_CUT_TO_RUN_TIME_COUNTS["stablehlo"],
            Step("run-time-scalar-tensors-as-concatenations",
                 "stablehlo.torch_forms:run_time_scalar_tensors_as_concatenations",
                 "run-time scalars also in a static signature (NonMaxSuppression's count, a Shape of its rows)"),
            Step("run-time-float-ranges-as-integer-ranges",
                 "stablehlo.run_time_ranges:run_time_float_ranges_as_integer_ranges",
                 "the expanded window functions' Range"),
            Step("run-time-nearest-scales-as-gathers", "stablehlo.run_time_scales:run_time_nearest_scales_as_gathers",
                 "Upsample by a scales input"),
            CONSTANT_INT_TENSORS_AS_LITERALS,
            Step("run-time-items-as-int-tensors", "stablehlo.torch_forms:run_time_items_as_int_tensors",
                 "TorchToStablehlo refuses aten.item of a 0-d tensor"),
            Step("run-time-squeezes-as-slices", "stablehlo.torch_forms:run_time_squeezes_as_slices",
                 "TorchToStablehlo squeezes only a static 1 (x.squeeze(-1) on a dynamic size)"),
            Step("run-time-pads-as-slices-and-concatenations",
                 "stablehlo.run_time_pads:run_time_pads_as_slices_and_concatenations", "CenterCropPad's expanded Pad"),
            Step("max-pools-as-slices", "stablehlo.window_slices:max_pools_as_slices",
                 "no consumer lowers a dynamic reduce_window", dynamic_only=True),
            Step("whole-number-upsamplings-as-blends", "stablehlo.upsampling:whole_number_upsamplings_as_blends",
                 "interpolation of dynamic sizes", dynamic_only=True),
            Step("refuse-dynamic-interpolations", "stablehlo.torch_forms:refuse_dynamic_interpolations",
                 "sizes read at run time, also in a static signature"),
            Step("run-time-static-info-casts-as-tensor-casts",
                 "stablehlo.torch_forms:run_time_static_info_casts_as_tensor_casts",
                 "TorchToStablehlo has no tensor_static_info_cast (a GRU's [?, H] state read as [1, H])"),
            TRANSPOSED_CONVOLUTIONS_AS_MATRIX_PRODUCTS,
        ),
        after=(
            Step("markers-as-asserts", "stablehlo.run_time_checks:markers_as_asserts",
                 "the carried checks as cf.assert, which both consumers run"),
            Step("cut-marked-rows-stablehlo", "stablehlo.row_cuts:cut_marked_rows",
                 "the markers: stablehlo.real_dynamic_slice to the count"),
            Step("dynamic-convolutions-as-patches", "stablehlo.dynamic_convolution:dynamic_convolutions_as_patches",
                 "no consumer lowers dynamic spatial sizes"),
            Step("dynamic-reduce-windows-as-slices",
                 "stablehlo.dynamic_convolution:dynamic_reduce_windows_as_slices", "the same for reduce_window"),
            Step("finish-dynamic-stablehlo", "stablehlo.dynamic:finish_dynamic_stablehlo",
                 "dynamic shapes in forms the consumers lower"),
            Step("signless-unsigned-constants", "stablehlo.unsigned:signless_unsigned_constants",
                 "unsigned resource constants fail in every consumer"),
            Step("trim-convolution-padding", "stablehlo.convolution_padding:trim_convolution_padding",
                 "IREE miscompiles unread padding"),
            Step("convolutions-channels-last-stablehlo", "stablehlo.channels_last:convolutions_channels_last",
                 "IREE's CPU code for torch-mlir's NCHW convolutions and pools is slow (ResNet-50 2x Linalg's)",
                 option=("conv_layout", "channels-last")),
            Step("half-convolutions-in-f32", "stablehlo.half_convolutions:half_convolutions_in_f32",
                 "accumulated in f32, as torch-mlir's Linalg lowering does"),
            Step("convolutions-as-matrix-products-stablehlo",
                 "stablehlo.convolution_matrices:convolutions_as_matrix_products",
                 "IREE's CPU code for a direct convolution runs at a tenth of its matrix product's speed",
                 option=("conv_form", "matrix-products")),
            Step("batch-products-by-a-matrix-stablehlo", "stablehlo.matrix_broadcasts:batch_products_by_a_matrix",
                 "IREE runs torch-mlir's batch dot_general by a broadcast matrix as many small products"),
            Step("row-by-matrix-products-as-matrix-vector-stablehlo",
                 "stablehlo.vector_products:row_by_matrix_products_as_matrix_vector",
                 "IREE runs one row times a [K, N] matrix (vecmat) at a third of matvec's speed"),
            Step("boolean-masks-as-selects", "stablehlo.boolean_masks:boolean_masks_as_selects",
                 "IREE fails on its own rewrite of a multiply by a boolean convert after a reshape"),
            Step("tensor-constants-as-stablehlo", "stablehlo.constants:tensor_constants_as_stablehlo",
                 "XLA and portable artifacts take StableHLO constants only"),
        ),
    ),
}

STEPS = {step.name: step for route in ROUTES.values() for step in route.before + route.after}


def check_output_type(output_type: str) -> None:
    if output_type not in OUTPUT_TYPES:
        raise PipelineError(
            f"unknown output type '{output_type}': expected one of {', '.join(OUTPUT_TYPES)}"
        )


def lower_torch_to_backend(
    module: ir.Module, output_type: str, *, backend_legal_ops=(), custom_op_encoding: str = "operands",
    options: dict | None = None,
) -> None:
    """Torch backend contract -> `output_type`, in place (no-op for "torch"), by its route.

    Ops of `backend_legal_ops` that the module still holds, and ONNX ops kept by
    `keep_onnx_ops`, become the backend's custom ops in torch-mlir's lowering (docs/custom-ops.md).
    A backend switched off (onnx_torch_mlir.config) raises BackendDisabledError. On TOSA and
    StableHLO, an error after the route's own checks on a module with dynamic dims is a
    DynamicDimsError that says how to fix them (STATIC_DIMS_HINT; `compile` names the dims).
    `options`: ROUTE_OPTIONS chosen by name (the others take their defaults).
    """
    from . import config

    check_output_type(output_type)
    config.require_output_type(output_type)
    options = options or {}
    for name in options:
        if name not in ROUTE_OPTIONS:
            raise PipelineError(f"unknown route option '{name}': expected one of {', '.join(ROUTE_OPTIONS)}")
        route_option(options, name)
    if output_type == "torch":
        begin_step("after compilation")
        return
    route = ROUTES[output_type]
    dynamic = output_type in ("tosa", "stablehlo") and has_dynamic_signature(module)
    for step in route.before:
        step.run(module, dynamic, options)
    try:
        lower_with_torch_mlir(module, output_type, backend_legal_ops, custom_op_encoding)
        for step in route.after:
            step.run(module, dynamic, options)
        verify_output(module, output_type)
    except PipelineError as error:
        if not dynamic or isinstance(error, DynamicDimsError):
            raise
        first, _, rest = str(error).partition("\n")
        raise DynamicDimsError(first, STATIC_DIMS_HINT.format(backend=output_type), rest) from None
    begin_step("after compilation")


def verify_output(module: ir.Module, backend: str) -> None:
    """The route's output must verify: MLIR would print an invalid module in generic form without a
    word, and a consumer would then refuse it far from the step that broke it."""
    try:
        module.operation.verify()
    except ir.MLIRError as error:
        from .mlir_passes import format_diagnostics

        raise PipelineError(f"the {backend} route wrote invalid IR (our bug): {format_diagnostics(error, limit=1)}") from None


def lower_with_torch_mlir(module: ir.Module, backend: str, backend_legal_ops=(), custom_op_encoding="operands") -> None:
    """torch-mlir's pipeline to `backend`; through the custom-op conversion when the module keeps
    backend-legal or ONNX ops."""
    from .transforms.torch.custom_ops import lower_with_custom_ops, module_has_custom_op_candidates

    if module_has_custom_op_candidates(module, backend_legal_ops):
        begin_step(f"torch-to-{backend} with custom ops", module)
        lower_with_custom_ops(module, backend, backend_legal_ops, custom_op_encoding)
    else:
        run_passes(module, TORCH_TO_BACKEND[backend], stage=f"torch-to-{backend}")
