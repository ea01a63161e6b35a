"""Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7, 9; deprecated from 10).

Both become `aten.__interpolate.size_list_scale_list` over the spatial dimensions (2 and
up). torch-mlir's lowering of that op reads the ONNX coordinate transformation and
nearest rounding from the mode string: `<mode>[_<coordinate_transformation_mode>][,<nearest_mode>]`
where mode is `nearest`, `bilinear` or `cubic`; the coordinate mode is omitted when it is the
mode's own default (`asymmetric` for nearest, `half_pixel` for bilinear and cubic) and
`align_corners` for bilinear is the `align_corners` operand instead. Forms that lowering
cannot express (antialias, tf_crop_and_resize, a cubic coefficient other than -0.75,
exclude_outside, resizing the batch or channel dimension) are refused by name.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

TORCH_MODES = {"nearest": "nearest", "linear": "bilinear", "cubic": "cubic"}
COORDINATE_MODES = (
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
    "tf_half_pixel_for_nn", "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _mode_string(node: OnnxNode, mode: str, coordinate_mode: str, nearest_mode: str | None) -> tuple[str, bool]:
    """(torch mode string, align_corners operand) for an ONNX mode and coordinate mode."""
    if mode not in TORCH_MODES:
        node.fail(f"mode '{mode}' is not one of 'nearest', 'linear', 'cubic'")
    if coordinate_mode not in COORDINATE_MODES:
        node.fail(f"coordinate_transformation_mode '{coordinate_mode}' is not a Resize coordinate mode")
    if coordinate_mode == "tf_crop_and_resize":
        node.fail("coordinate_transformation_mode 'tf_crop_and_resize' is not supported")
    text = TORCH_MODES[mode]
    if mode == "nearest":
        if coordinate_mode != "asymmetric":
            text += f"_{coordinate_mode}"
        if nearest_mode is not None:
            if nearest_mode not in NEAREST_MODES:
                node.fail(f"nearest_mode '{nearest_mode}' is not one of {', '.join(NEAREST_MODES)}")
            text += f",{nearest_mode}"
        return text, False
    if coordinate_mode == "tf_half_pixel_for_nn":
        node.fail(f"coordinate_transformation_mode 'tf_half_pixel_for_nn' with mode '{mode}' is not supported")
    if mode == "linear" and coordinate_mode == "align_corners":
        return text, True
    if coordinate_mode != "half_pixel":
        text += f"_{coordinate_mode}"
    return text, coordinate_mode == "align_corners"


def _element(b: TorchBuilder, vector: ir.Value, position: int, as_float: bool) -> ir.Value:
    """vector[position] as a `!torch.float` or `!torch.int`."""
    info = b.info(vector)
    one = b.op(
        "aten.select.int", b.tensor_type([], info.element), vector, b.constant_int(0), b.constant_int(position)
    )
    return b.op("aten.item", b.type("!torch.float" if as_float else "!torch.int"), one)


def _spatial_values(node: OnnxNode, b: TorchBuilder, index: int, rank: int, axes: list[int], kind: str) -> list:
    """The spatial entries (dims 2..rank-1) of the scales (kind 'scale') or sizes input `index`,
    given for `axes`. Entries for dims 0 and 1 must leave them unchanged: checked when the
    input is a literal, asserted at run time otherwise."""
    vector = node.input(index)
    literal = node.constant_input(index)
    as_float = kind == "scale"
    x_sizes = node.input_info(0).sizes
    count = b.info(vector).sizes[0] if b.info(vector).rank == 1 else None
    if count is not None and count != len(axes):
        node.fail(f"{kind}s has {count} entries for {len(axes)} axes")
    by_axis = {axis: position for position, axis in enumerate(axes)}
    for dim in (0, 1):
        if dim not in by_axis:
            continue
        if literal is not None:
            value = literal.reshape(-1)[by_axis[dim]]
            unchanged = value == 1 if as_float else value == x_sizes[dim]
            if not unchanged:
                node.fail(f"resizing dimension {dim} (batch or channel) is not supported: {kind} {value}")
            continue
        entry = _element(b, vector, by_axis[dim], as_float)
        if as_float:
            expected = b.constant_float(1.0)
            same = b.op("aten.eq.float", b.type("!torch.bool"), entry, expected)
        else:
            expected = b.sizes_of(node.input(0))[dim]
            same = b.op("aten.eq.int", b.type("!torch.bool"), entry, expected)
        b.op("runtime.assert", None, same, attributes={
            "message": ir.StringAttr.get(f"{node.op_type}: {kind} of dimension {dim} must leave it unchanged", b.context)
        })
    values = []
    for dim in range(2, rank):
        if dim not in by_axis:
            values.append(b.constant_float(1.0) if as_float else b.sizes_of(node.input(0))[dim])
        elif literal is not None:
            value = literal.reshape(-1)[by_axis[dim]]
            values.append(b.constant_float(float(value)) if as_float else b.constant_int(int(value)))
        else:
            values.append(_element(b, vector, by_axis[dim], as_float))
    return values


def _aspect_sizes(node: OnnxNode, b: TorchBuilder, policy: str, rank: int, axes: list[int]) -> list:
    """Spatial output sizes for keep_aspect_ratio_policy not_larger / not_smaller: from a
    literal sizes input and static input dimensions, else from the static declared result."""
    literal = node.constant_input(3)
    x_sizes = node.input_info(0).sizes
    if literal is not None and all(x_sizes[axis] is not None for axis in axes):
        requested = literal.reshape(-1).astype(np.float64)
        ratios = [requested[i] / x_sizes[axis] for i, axis in enumerate(axes)]
        scale = min(ratios) if policy == "not_larger" else max(ratios)
        sizes = list(x_sizes)
        for axis in axes:
            sizes[axis] = int(np.floor(scale * x_sizes[axis] + 0.5))
    else:
        sizes = list(node.result_info().sizes or [None] * rank)
    if any(size is None for size in sizes[2:]):
        node.fail(f"keep_aspect_ratio_policy '{policy}' needs constant sizes or a static result shape")
    return [b.constant_int(size) for size in sizes[2:]]


def _static_result_sizes(node: OnnxNode, b: TorchBuilder) -> list | None:
    """The declared spatial result sizes as constants, if all static."""
    sizes = node.result_info().sizes
    if sizes is None or any(size is None for size in sizes[2:]):
        return None
    return [b.constant_int(size) for size in sizes[2:]]


def _keeps_batch_and_channel(node: OnnxNode) -> bool:
    """Whether the declared result statically keeps dims 0 and 1 of the input."""
    x_sizes, result_sizes = node.input_info(0).sizes, node.result_info().sizes
    return result_sizes is not None and all(
        x_sizes[dim] is not None and x_sizes[dim] == result_sizes[dim] for dim in (0, 1)
    )


def _interpolate(node: OnnxNode, b: TorchBuilder, mode_text: str, align_corners, sizes, scales):
    """`aten.__interpolate.size_list_scale_list`; exactly one of sizes / scales is a list of values."""
    none = b.constant_none()
    size_list = none if sizes is None else b.list(sizes, "!torch.int")
    scale_list = none if scales is None else b.list(scales, "!torch.float")
    return b.op(
        "aten.__interpolate.size_list_scale_list", node.result_type(), node.input(0), size_list, scale_list,
        b.constant_string(mode_text), align_corners, none, b.constant_bool(False),
    )


def _rank(node: OnnxNode) -> int:
    info = node.input_info(0)
    if info.rank is None:
        node.fail("input X needs a static rank")
    if info.rank < 3:
        node.fail(f"input X needs rank >= 3 (batch, channel, spatial...), has rank {info.rank}")
    return info.rank


def _resize(node: OnnxNode, b: TorchBuilder, *, scales_index: int, sizes_index: int | None, legacy: bool):
    rank = _rank(node)
    mode = node.attr_string("mode")
    if legacy:  # Resize-10: asymmetric coordinates, nearest rounds down.
        mode_text, align = _mode_string(node, mode, "asymmetric", None)
        return _interpolate(node, b, mode_text, b.constant_bool(align), None,
                            _spatial_values(node, b, scales_index, rank, list(range(rank)), "scale"))
    if node.attr_int("antialias", 0):
        if mode != "nearest":
            node.fail(f"antialias=1 with mode '{mode}' is not supported")
    if mode == "cubic":
        coefficient = node.attr_float("cubic_coeff_a", -0.75)
        if coefficient != -0.75:
            node.fail(f"cubic_coeff_a {coefficient:g} is not supported (only -0.75)")
        if node.attr_int("exclude_outside", 0):
            node.fail("exclude_outside=1 is not supported")
    coordinate_mode = node.attr_string("coordinate_transformation_mode", "half_pixel")
    nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor") if mode == "nearest" else None
    mode_text, align = _mode_string(node, mode, coordinate_mode, nearest_mode)
    axes = node.attr_ints("axes", None)
    if axes is None:
        axes = list(range(rank))
    else:
        for axis in axes:
            if not -rank <= axis < rank:
                node.fail(f"axes entry {axis} is out of range for rank {rank}")
        axes = [axis + rank if axis < 0 else axis for axis in axes]
    use_sizes = sizes_index is not None and node.has_input(sizes_index)
    scales_literal = node.constant_input(scales_index)
    if not use_sizes and (not node.has_input(scales_index) or (scales_literal is not None and scales_literal.size == 0)):
        node.fail("needs either scales or sizes")
    if use_sizes:
        policy = node.attr_string("keep_aspect_ratio_policy", "stretch")
        if policy not in ("stretch", "not_larger", "not_smaller"):
            node.fail(f"keep_aspect_ratio_policy '{policy}' is not one of 'stretch', 'not_larger', 'not_smaller'")
        if policy != "stretch":
            sizes = _aspect_sizes(node, b, policy, rank, axes)
        else:
            # The declared result is the requested size: use it when static (no run-time reads).
            sizes = _static_result_sizes(node, b) if _keeps_batch_and_channel(node) else None
            if sizes is None:
                sizes = _spatial_values(node, b, sizes_index, rank, axes, "size")
        return _interpolate(node, b, mode_text, b.constant_bool(align), sizes, None)
    if coordinate_mode == "align_corners" and _keeps_batch_and_channel(node):
        # align_corners maps by the lengths alone; torch-mlir's lowering would use the scale.
        sizes = _static_result_sizes(node, b)
        if sizes is not None:
            return _interpolate(node, b, mode_text, b.constant_bool(align), sizes, None)
    scales = _spatial_values(node, b, scales_index, rank, axes, "scale")
    return _interpolate(node, b, mode_text, b.constant_bool(align), None, scales)


@converts("Resize", since=10)
def resize_10(node: OnnxNode, b: TorchBuilder):
    """Inputs (X, scales); asymmetric coordinates; nearest rounds down."""
    return _resize(node, b, scales_index=1, sizes_index=None, legacy=True)


@converts("Resize", since=11)
def resize_11(node: OnnxNode, b: TorchBuilder):
    """Inputs (X, roi, scales, sizes): scales or sizes (scales is then empty); coordinate and
    nearest modes, cubic coefficient, exclude_outside, extrapolation_value as attributes."""
    return _resize(node, b, scales_index=2, sizes_index=3, legacy=False)


@converts("Resize", since=13)
def resize_13(node: OnnxNode, b: TorchBuilder):
    """roi and scales become optional inputs."""
    return _resize(node, b, scales_index=2, sizes_index=3, legacy=False)


@converts("Resize", since=18)
def resize_18(node: OnnxNode, b: TorchBuilder):
    """Adds antialias, axes and keep_aspect_ratio_policy."""
    return _resize(node, b, scales_index=2, sizes_index=3, legacy=False)


@converts("Resize", since=19)
def resize_19(node: OnnxNode, b: TorchBuilder):
    """Adds coordinate_transformation_mode 'half_pixel_symmetric'."""
    return _resize(node, b, scales_index=2, sizes_index=3, legacy=False)


def _upsample_mode(node: OnnxNode) -> tuple[str, bool]:
    mode = node.attr_string("mode")
    if mode == "bilinear":  # Upsample-7 accepted this spelling of 'linear'
        mode = "linear"
    if mode not in ("nearest", "linear"):
        node.fail(f"mode '{mode}' is not one of 'nearest', 'linear'")
    return _mode_string(node, mode, "asymmetric", None)


@converts("Upsample", since=7)
def upsample_7(node: OnnxNode, b: TorchBuilder):
    """Scales are a float attribute, one per dimension; output size floor(in * scale)."""
    rank = _rank(node)
    scales = node.attr_floats("scales")
    if len(scales) != rank:
        node.fail(f"scales has {len(scales)} entries for rank {rank}")
    if scales[0] != 1 or scales[1] != 1:
        node.fail(f"resizing dimension 0 or 1 (batch or channel) is not supported: scales {scales[:2]}")
    mode_text, align = _upsample_mode(node)
    return _interpolate(node, b, mode_text, b.constant_bool(align), None, [b.constant_float(s) for s in scales[2:]])


@converts("Upsample", since=9)
def upsample_9(node: OnnxNode, b: TorchBuilder):
    """Scales become input 1."""
    rank = _rank(node)
    mode_text, align = _upsample_mode(node)
    scales = _spatial_values(node, b, 1, rank, list(range(rank)), "scale")
    return _interpolate(node, b, mode_text, b.constant_bool(align), None, scales)
