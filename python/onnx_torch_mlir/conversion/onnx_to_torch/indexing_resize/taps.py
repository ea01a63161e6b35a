"""Resize by taps: when the extents of the resized axes are static and the output size is
known at compile time, each output position along an axis is a weighted sum of a few input
positions (its taps), whose indices and weights come from the formulas of the ONNX
specification, in float64 at compile time or as float32 torch ops for run-time scales or roi.
Also the checked attributes of Resize-11 and later, which both forms read."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..torch_arrays import TorchArray, TorchNumpy, cubic_kernel, merged_taps
from ..types import defining_op

TORCH_MODES = {"nearest": "nearest", "linear": "bilinear", "cubic": "cubic"}
COORDINATE_MODES = (
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
    "tf_half_pixel_for_nn", "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
# Targets whose torch-mlir lowering has no interpolation of dynamic shape: Resize by taps there
# also when a dim it leaves as it is (the batch) is dynamic.
DYNAMIC_TAPS_TARGETS = ("tosa", "stablehlo")


def run_time_element(b: TorchBuilder, vector: ir.Value, position: int, as_float: bool) -> ir.Value:
    """vector[position] as a `!torch.float` or `!torch.int`."""
    info = b.info(vector)
    one = b.op(
        "aten.select.int", b.tensor_type([], info.element), vector, b.constant_int(0), b.constant_int(position)
    )
    return b.op("aten.item", b.type("!torch.float" if as_float else "!torch.int"), one)



@dataclass(frozen=True)
class Options:
    mode: str
    coordinate_mode: str
    nearest_mode: str
    cubic_coeff_a: float
    exclude_outside: bool
    antialias: bool
    extrapolation_value: float
    policy: str
    axes: list


def checked_options(node: OnnxNode, mode: str, rank: int) -> Options:
    """The attributes of Resize-11 and later, checked."""
    if mode not in TORCH_MODES:
        node.fail(f"mode '{mode}' is not one of 'nearest', 'linear', 'cubic'")
    coordinate_mode = node.attr_string("coordinate_transformation_mode", "half_pixel")
    if coordinate_mode not in COORDINATE_MODES:
        node.fail(f"coordinate_transformation_mode '{coordinate_mode}' is not a Resize coordinate mode")
    if coordinate_mode == "tf_half_pixel_for_nn" and mode != "nearest":
        node.fail(f"coordinate_transformation_mode 'tf_half_pixel_for_nn' with mode '{mode}' is not supported")
    nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor")
    if mode == "nearest" and nearest_mode not in NEAREST_MODES:
        node.fail(f"nearest_mode '{nearest_mode}' is not one of {', '.join(NEAREST_MODES)}")
    antialias = bool(node.attr_int("antialias", 0))
    if antialias and mode == "nearest":
        node.fail("antialias=1 applies to modes 'linear' and 'cubic', not 'nearest'")
    policy = node.attr_string("keep_aspect_ratio_policy", "stretch")
    if policy not in ("stretch", "not_larger", "not_smaller"):
        node.fail(f"keep_aspect_ratio_policy '{policy}' is not one of 'stretch', 'not_larger', 'not_smaller'")
    axes = node.attr_ints("axes", None)
    if axes is None:
        axes = list(range(rank))
    else:
        axes = [node.axis(axis, rank, "axes entry") for axis in axes]
        if len(set(axes)) != len(axes):
            node.fail(f"axes {node.attr_ints('axes')} repeat an axis")
    return Options(
        mode=mode, coordinate_mode=coordinate_mode, nearest_mode=nearest_mode,
        cubic_coeff_a=node.attr_float("cubic_coeff_a", -0.75), exclude_outside=bool(node.attr_int("exclude_outside", 0)),
        antialias=antialias, extrapolation_value=node.attr_float("extrapolation_value", 0.0), policy=policy, axes=axes,
    )


@dataclass(frozen=True)
class _AxisPlan:
    axis: int
    in_length: int
    out_length: int
    # length_resized / length_original as ONNX computes it (fractional for scales), and the
    # tf_crop_and_resize (start, end): Python floats, or 0-d f32 tensors known at run time.
    scale: object
    roi: tuple | None

    @property
    def at_compile_time(self) -> bool:
        return not isinstance(self.scale, ir.Value) and not (self.roi and isinstance(self.roi[0], ir.Value))


def static_plan(node: OnnxNode, b: TorchBuilder, options: Options, rank: int, scales_index: int,
                 sizes_index: int | None, keep_dynamic: bool = False):
    """One _AxisPlan per axis of `axes` that is not left as it is, or None when an extent is
    known only at run time: scales and sizes may be, but then the declared result gives the
    output lengths, and the coordinates are computed at run time."""
    x_sizes = node.input_info(0).sizes
    result_sizes = node.result_info().sizes
    axes = options.axes
    declared = {axis: None if result_sizes is None else result_sizes[axis] for axis in axes}
    if sizes_index is None:
        literal = node.constant_input(scales_index)
        count = b.info(node.input(scales_index)).sizes[0] if literal is None else literal.size
        if count is not None and count != len(axes):
            node.fail(f"scales has {count} entries for {len(axes)} axes")
        if literal is not None:
            scale_of = {axis: float(scale) for axis, scale in zip(axes, literal.reshape(-1))}  # float32 -> float64
            if any(x_sizes[axis] is None and scale_of[axis] != 1.0 for axis in axes):
                return None
            lengths = {axis: None if x_sizes[axis] is None else int(np.floor(scale_of[axis] * x_sizes[axis])) for axis in axes}
        else:
            if any(x_sizes[axis] is None or declared[axis] is None for axis in axes):
                return None
            scales = node.input(scales_index)
            scale_of = {axis: _entry(b, scales, position) for position, axis in enumerate(axes)}
            lengths = dict(declared)
    else:
        literal = node.constant_input(sizes_index)
        if literal is not None:
            requested = {axis: int(size) for axis, size in zip(axes, literal.reshape(-1))}
            if literal.size != len(axes):
                node.fail(f"sizes has {literal.size} entries for {len(axes)} axes")
        elif all(declared[axis] is not None for axis in axes):
            requested = None
        elif options.policy == "stretch" and keep_dynamic and \
                (kept := _kept_dynamic_axes(node, b, sizes_index, axes, declared)):
            axes, requested = [axis for axis in axes if axis not in kept], None
        else:
            return None
        if any(x_sizes[axis] is None for axis in axes):
            return None
        empty = [axis for axis in axes if x_sizes[axis] == 0]
        if empty:
            node.fail(f"input X has size 0 on axis {empty[0]}: 'sizes' gives no scale to resize an empty axis by")
        if options.policy == "stretch":
            lengths = requested or dict(declared)
            scale_of = {axis: lengths[axis] / x_sizes[axis] for axis in axes}
        elif requested is not None:
            scale = (min if options.policy == "not_larger" else max)(requested[axis] / x_sizes[axis] for axis in axes)
            scale_of = {axis: scale for axis in axes}
            lengths = {axis: int(scale * x_sizes[axis] + 0.5) for axis in axes}
        else:
            sizes = node.input(sizes_index)
            ratios = [_entry(b, sizes, position, divisor=x_sizes[axis]) for position, axis in enumerate(axes)]
            pick = "aten.minimum" if options.policy == "not_larger" else "aten.maximum"
            scale = ratios[0]
            for ratio in ratios[1:]:
                scale = b.op(pick, scale.type, scale, ratio)
            scale_of = {axis: scale for axis in axes}
            lengths = dict(declared)
    rois = _rois(node, b, options)
    plans = []
    for axis in axes:
        plan = _AxisPlan(axis, x_sizes[axis], lengths[axis], scale_of[axis], None if rois is None else rois[axis])
        if plan.out_length is not None:
            if declared[axis] is not None and plan.out_length != declared[axis]:
                node.fail(f"the declared result has {declared[axis]} elements on axis {axis}, Resize gives {plan.out_length}")
            if plan.out_length < 0:
                node.fail(f"output length {plan.out_length} on axis {axis} is negative")
        if plan.in_length == 1 and plan.out_length == 1:
            continue  # whatever the scale and roi, every tap reads the one element, their weights sum to 1
        if plan.at_compile_time:
            trivial_roi = plan.roi is None or (math.isclose(plan.roi[0], 0.0) and math.isclose(plan.roi[1], 1.0))
            if math.isclose(plan.scale, 1.0) and plan.out_length == plan.in_length and trivial_roi:
                continue  # identity, as in onnx.reference
        plans.append(plan)
    return plans


def _kept_dynamic_axes(node: OnnxNode, b: TorchBuilder, sizes_index: int, axes: list, declared: dict) -> list:
    """For TOSA and StableHLO, which cannot lower an interpolation of dynamic shape (e.g. a dynamic
    batch with sizes Concat(Shape(x)[:2], [16, 16])), and forms the interpolation cannot express:
    the axes with a dynamic extent that the run-time sizes leave as they are (batch and channel,
    or an entry that is the input's own dim), asserted at run time, when every other axis has a
    static declared length. Resizing by taps keeps those axes dynamic. Empty otherwise."""
    x_sizes = node.input_info(0).sizes
    elements = node.dim_elements(sizes_index)
    kept = []
    for position, axis in enumerate(axes):
        if declared[axis] is not None and x_sizes[axis] is not None:
            continue
        if declared[axis] is not None or x_sizes[axis] is not None:
            return []
        own = elements is not None and _is_own_dim(node, elements[position], axis)
        if axis not in (0, 1) and not own:
            return []
        kept.append((position, axis))
    for position, axis in kept:
        if elements is None:
            entry = run_time_element(b, node.input(sizes_index), position, False)
        else:
            entry = b.dim_value(elements[position])
        same = b.op("aten.eq.int", b.type("!torch.bool"), entry, b.dim_value(b.dim(node.input(0), axis)))
        b.op("runtime.assert", None, same, attributes={
            "message": ir.StringAttr.get(f"{node.op_type}: size of dimension {axis} must leave it unchanged", b.context)
        })
    return [axis for _, axis in kept]


def _is_own_dim(node: OnnxNode, element, axis: int) -> bool:
    """Whether a dim of `dim_elements` is `aten.size.int` of X at `axis` (as Shape of X gives)."""
    op = defining_op(element) if isinstance(element, ir.Value) else None
    if op is None or op.name != "torch.aten.size.int" or op.operands[0] != node.input(0):
        return False
    index = defining_op(op.operands[1])
    return (index is not None and index.name == "torch.constant.int"
            and ir.IntegerAttr(index.attributes["value"]).value == axis)


def _entry(b: TorchBuilder, vector: ir.Value, position: int, divisor: int = 1) -> ir.Value:
    """vector[position] (/ divisor) as a 0-d f32 tensor."""
    entry = b.op("aten.select.int", b.tensor_type([], b.info(vector).element), vector, b.constant_int(0),
                 b.constant_int(position))
    entry = b.to_dtype(entry, "f32")
    if divisor != 1:
        entry = b.op("aten.div.Scalar", entry.type, entry, b.constant_float(float(divisor)))
    return entry


def _rois(node: OnnxNode, b: TorchBuilder, options: Options) -> dict | None:
    """{axis: (start, end)} for tf_crop_and_resize."""
    if options.coordinate_mode != "tf_crop_and_resize":
        return None
    count = len(options.axes)
    literal = node.constant_input(1) if node.has_input(1) else None
    if literal is not None:
        roi = literal.reshape(-1).astype(np.float64)
        if roi.size != 2 * count:
            node.fail(f"roi has {roi.size} entries, not 2 * {count}")
        return {axis: (float(roi[i]), float(roi[count + i])) for i, axis in enumerate(options.axes)}
    if not node.has_input(1):
        node.fail("coordinate_transformation_mode 'tf_crop_and_resize' needs a roi")
    roi = node.input(1)
    if b.info(roi).sizes != (2 * count,):
        node.fail(f"roi needs 2 * {count} entries, has type {roi.type}")
    return {axis: (_entry(b, roi, i), _entry(b, roi, count + i)) for i, axis in enumerate(options.axes)}


def _source_coordinates(options: Options, plan: _AxisPlan, y):
    """x_original for each output position y (numpy or TorchArray), and where tf_crop_and_resize
    extrapolates. `width` is the output length before flooring, fractional when scales give
    it. A length-1 output reads at 0 (at the roi's centre for tf_crop_and_resize) as ONNX
    specifies and onnxruntime does; onnx.reference instead tests the fractional width == 1."""
    n, m, scale = plan.in_length, plan.out_length, plan.scale
    mode = options.coordinate_mode
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5, None
    if mode == "half_pixel_symmetric":
        return n / 2 * (1 - m / (scale * n)) + (y + 0.5) / scale - 0.5, None
    if mode == "pytorch_half_pixel":
        return (y * 0 if m == 1 else (y + 0.5) / scale - 0.5), None
    if mode == "align_corners":
        return (y * 0 if m == 1 else y * (n - 1) / (scale * n - 1)), None
    if mode == "asymmetric":
        return y / scale, None
    if mode == "tf_half_pixel_for_nn":
        return (y + 0.5) / scale, None
    start, end = plan.roi  # tf_crop_and_resize
    if m == 1:
        x = y * 0 + (start + end) * ((n - 1) / 2)
    else:
        x = y * (end - start) * (n - 1) / (scale * n - 1) + start * (n - 1)
    return x, (x < 0) | (x > n - 1)


def _axis_taps(xp, options: Options, plan: _AxisPlan, y):
    """([(indices, weights)], extrapolated) along one axis, per ONNX: the taps of x_original
    start left of it (at x - 1 when x is an integer, so the ratio to the left one is in (0, 1]),
    clamp to the edge, and exclude_outside drops and renormalizes those outside. Weights None
    mean 1. Antialias widens the taps by 1 / scale when downsampling (zero weights past the filter)."""
    x, extrapolated = _source_coordinates(options, plan, y)
    base = xp.floor(x)
    integral = x == base
    base = xp.where(integral, x - 1, base)
    ratio = x - base
    run_time = options.antialias and isinstance(plan.scale, TorchArray)
    scale = (xp.clip(plan.scale, 0.0, 1.0) if run_time else min(plan.scale, 1.0)) if options.antialias else 1.0
    if options.mode == "nearest":  # the right neighbour, or the left one (an integer x is the right one)
        if options.nearest_mode == "ceil":
            offset = 1.0
        else:
            right = {"round_prefer_floor": lambda: (ratio > 0.5) | integral, "round_prefer_ceil": lambda: (ratio >= 0.5) | integral,
                     "floor": lambda: integral}[options.nearest_mode]()
            offset = xp.where(right, 1.0, 0.0)
        taps = [(base + offset, None)]
    else:
        reach = 1 if options.mode == "linear" else 2
        # a run-time scale gave the declared m = floor(n s) (or round(n s)): s >= (m - 0.5) / n bounds the taps
        start = math.floor(-reach / (min(max(plan.out_length - 0.5, 0.5) / max(plan.in_length, 1), 1.0) if run_time else scale)) + 1
        taps = []
        for offset in range(start, 2 - start):
            distance = (offset - ratio) * scale
            if options.mode == "linear":
                weight = xp.clip(1 - xp.abs(distance), 0.0, 1.0)
            else:
                weight = cubic_kernel(xp, distance, options.cubic_coeff_a)
            taps.append((base + offset, weight))
        if options.antialias:
            total = sum(weight for _, weight in taps)
            taps = [(index, weight / total) for index, weight in taps]
    if options.exclude_outside:
        taps = [(index, xp.where((index < 0) | (index > plan.in_length - 1), 0.0, 1.0 if weight is None else weight))
                for index, weight in taps]
        total = sum(weight for _, weight in taps)
        total = xp.where(total == 0, 1.0, total)
        taps = [(index, weight / total) for index, weight in taps]
    return [(xp.clip(index, 0, plan.in_length - 1), weight) for index, weight in taps], extrapolated


FLOAT_COMPUTE = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64"}
NUMPY_FLOAT = {"f32": np.float32, "f64": np.float64}


def resize_by_taps(node: OnnxNode, b: TorchBuilder, options: Options, plans: list):
    """Each planned axis in turn: the sum over taps of x.index_select(axis, indices) * weights."""
    info = node.input_info(0)
    rank = info.rank
    axis_taps = []
    for plan in plans:
        if plan.at_compile_time:
            taps, extrapolated = _axis_taps(np, options, plan, np.arange(plan.out_length, dtype=np.float64))
            indices, weights = merged_taps(taps, plan.out_length)
            taps = [(indices[:, k], None if np.all(weights[:, k] == 1.0) else weights[:, k]) for k in range(indices.shape[1])]
            if extrapolated is not None and not extrapolated.any():
                extrapolated = None
        else:
            def run_time(value):
                return TorchArray(b, value) if isinstance(value, ir.Value) else value

            roi = None if plan.roi is None else tuple(run_time(bound) for bound in plan.roi)
            y = TorchArray(b, b.literal(np.arange(plan.out_length, dtype=np.float32), "f32"))
            taps, extrapolated = _axis_taps(TorchNumpy(b), options, replace(plan, scale=run_time(plan.scale), roi=roi), y)
        axis_taps.append((plan, taps, extrapolated))
    selection_only = all(weight is None and extrapolated is None for _, taps, extrapolated in axis_taps for _, weight in taps)
    compute = info.element if selection_only else FLOAT_COMPUTE.get(info.element)
    if compute is None:
        node.fail(f"mode '{options.mode}' on {info.element} input: interpolation needs a float input")
    value = b.to_dtype(node.input(0), compute)
    sizes = list(info.sizes)
    by_matrices = _by_matrices(node, axis_taps, compute)
    for plan, taps, extrapolated in axis_taps:
        sizes[plan.axis] = plan.out_length
        result_type = b.tensor_type(sizes, compute)
        column_shape = [plan.out_length] + [1] * (rank - 1 - plan.axis)
        total = _matmul_along(b, value, plan.axis, _matrix(taps, plan), compute) if by_matrices else None
        for index, weight in [] if by_matrices else taps:
            term = _select(b, value, plan, index, result_type)
            if weight is not None:
                term = b.op("aten.mul.Tensor", result_type, term, _column(b, weight, column_shape, compute))
            total = term if total is None else b.op("aten.add.Tensor", result_type, total, term, b.constant_int(1))
        if extrapolated is not None:
            fill = b.scalar_tensor_literal(options.extrapolation_value, compute)
            mask = _column(b, extrapolated, column_shape, "i1")
            total = b.op("aten.where.self", result_type, mask, fill, total)
        value = total
    value = b.to_dtype(value, info.element)
    if value.type != node.result_type():
        value = b.op("tensor_static_info_cast", node.result_type(), value)
    return value


def _by_matrices(node: OnnxNode, axis_taps: list, compute: str) -> bool:
    """Whether to resize each axis by a matmul with its [out, in] interpolation matrix: on TOSA with
    more than one dynamic dim (a dynamic batch and channel count), where TorchToTosa's gather for
    `index_select` takes at most one. Its sum_i W[o, i] x[i] is the taps' sum (the other weights
    are exact zeros), except that an inf or NaN outside the taps reaches the output through 0 * x."""
    return (node.target == "tosa" and node.input_info(0).sizes.count(None) > 1 and compute in NUMPY_FLOAT
            and all(isinstance(index, np.ndarray) for _, taps, _ in axis_taps for index, _ in taps))


def _matrix(taps: list, plan: _AxisPlan) -> np.ndarray:
    """The [out, in] matrix of compile-time taps: W[o, index] += weight."""
    matrix = np.zeros((plan.out_length, plan.in_length))
    rows = np.arange(plan.out_length)
    for index, weight in taps:
        np.add.at(matrix, (rows, index.astype(np.int64)), 1.0 if weight is None else weight)
    return matrix


def _matmul_along(b: TorchBuilder, value: ir.Value, axis: int, matrix: np.ndarray, compute: str) -> ir.Value:
    """value resized along `axis` by `matrix` [out, in]: moved last, matmul with matrix^T, moved back."""
    sizes = list(b.info(value).sizes)
    last = len(sizes) - 1

    def swapped(tensor, tensor_sizes):
        tensor_sizes = list(tensor_sizes)
        tensor_sizes[axis], tensor_sizes[last] = tensor_sizes[last], tensor_sizes[axis]
        moved = b.op("aten.transpose.int", b.tensor_type(tensor_sizes, compute), tensor, b.constant_int(axis),
                     b.constant_int(last))
        return moved, tensor_sizes

    moved, moved_sizes = swapped(value, sizes) if axis != last else (value, sizes)
    weights = b.literal(np.ascontiguousarray(matrix.T).astype(NUMPY_FLOAT[compute]), compute)
    moved_sizes = moved_sizes[:-1] + [matrix.shape[0]]
    result = b.op("aten.matmul", b.tensor_type(moved_sizes, compute), moved, weights)
    return swapped(result, moved_sizes)[0] if axis != last else result


def _select(b: TorchBuilder, value: ir.Value, plan: _AxisPlan, index, result_type: ir.Type) -> ir.Value:
    """value.index_select(axis, index); value itself for a compile-time identity."""
    if isinstance(index, np.ndarray):
        if plan.out_length == plan.in_length and np.array_equal(index, np.arange(plan.in_length)):
            return value
        index_value = b.literal(index, "si64")
    else:
        index_value = b.to_dtype(index.value, "si64")
    return b.op("aten.index_select", result_type, value, b.constant_int(plan.axis), index_value)


def _column(b: TorchBuilder, values, shape: list, element: str) -> ir.Value:
    """A per-output-position vector (numpy or TorchArray) shaped to broadcast along its axis."""
    if isinstance(values, np.ndarray):
        return b.literal(values.astype(np.bool_ if element == "i1" else NUMPY_FLOAT[element]).reshape(shape), element)
    value = values.value if element == "i1" else b.to_dtype(values.value, element)
    return b.op("aten.reshape", b.tensor_type(shape, element), value, b.int_list(shape))

