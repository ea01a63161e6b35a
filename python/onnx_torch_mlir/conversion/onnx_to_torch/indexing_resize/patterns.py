"""The Resize and Upsample patterns: by taps (`taps.py`) where that form applies, else through
`aten.__interpolate.size_list_scale_list` or a backend-legal `aten.upsample_*`."""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .repeats import repeated_upsample, scale_factors, whole_number_factors
from .taps import (
    COORDINATE_MODES, DYNAMIC_TAPS_TARGETS, NEAREST_MODES, TORCH_MODES, Options, checked_options, resize_by_taps,
    run_time_element, static_plan,
)

WITHOUT_TAPS = "needs static input extents and a known output size on the resized axes"


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
        entry = run_time_element(b, vector, by_axis[dim], as_float)
        if as_float:
            expected = b.constant_float(1.0)
            same = b.op("aten.eq.float", b.type("!torch.bool"), entry, expected)
        else:
            expected = b.dim_value(b.dim(node.input(0), dim))
            same = b.op("aten.eq.int", b.type("!torch.bool"), entry, expected)
        b.op("runtime.assert", None, same, attributes={
            "message": ir.StringAttr.get(f"{node.op_type}: {kind} of dimension {dim} must leave it unchanged", b.context)
        })
    values = []
    for dim in range(2, rank):
        if dim not in by_axis:
            values.append(b.constant_float(1.0) if as_float else b.dim_value(b.dim(node.input(0), dim)))
        elif literal is not None:
            value = literal.reshape(-1)[by_axis[dim]]
            values.append(b.constant_float(float(value)) if as_float else b.constant_int(int(value)))
        else:
            values.append(run_time_element(b, vector, by_axis[dim], as_float))
    return values


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
        literal = node.constant_input(scales_index)
        kept = None if literal is None else _kept_upsample(node, b, mode, "asymmetric", "floor", list(literal)[2:])
        if kept is None:
            factors = whole_number_factors(node, scales_index, "scale", list(range(rank)))
            kept = repeated_upsample(node, b, mode, "asymmetric", "floor", factors)
        kept = kept if kept is not None else _legacy_by_taps(node, b, mode, scales_index)
        if kept is not None:
            return kept
        mode_text, align = _mode_string(node, mode, "asymmetric", None)
        return _interpolate(node, b, mode_text, b.constant_bool(align), None,
                            _spatial_values(node, b, scales_index, rank, list(range(rank)), "scale"))
    options = checked_options(node, mode, rank)
    use_sizes = sizes_index is not None and node.has_input(sizes_index)
    scales_literal = node.constant_input(scales_index)
    if not use_sizes and (not node.has_input(scales_index) or (scales_literal is not None and scales_literal.size == 0)):
        node.fail("needs either scales or sizes")
    if (use_sizes or scales_literal is not None) and not options.antialias and options.policy == "stretch":
        scales = None if use_sizes or options.axes != list(range(rank)) else list(scales_literal)[2:]
        if use_sizes or scales is not None:
            kept = _kept_upsample(node, b, mode, options.coordinate_mode, options.nearest_mode, scales)
            if kept is not None:
                return kept
    if not options.antialias and (options.policy == "stretch" or not use_sizes):
        factors = whole_number_factors(node, sizes_index if use_sizes else scales_index, "size" if use_sizes else "scale",
                                       options.axes)
        repeated = repeated_upsample(node, b, mode, options.coordinate_mode, options.nearest_mode, factors)
        if repeated is not None:
            return repeated
    by_sizes = sizes_index if use_sizes else None
    # Where no interpolation of dynamic shape lowers (or this form has none): taps, the batch kept dynamic.
    keep_dynamic = node.target in DYNAMIC_TAPS_TARGETS or _interpolation_refusal(options, rank, by_sizes) is not None
    plan = static_plan(node, b, options, rank, scales_index, by_sizes, keep_dynamic=keep_dynamic)
    if plan is not None:
        return resize_by_taps(node, b, options, plan)
    return _resize_by_interpolate(node, b, options, rank, scales_index, by_sizes)


def _resize_by_interpolate(node: OnnxNode, b: TorchBuilder, options: Options, rank: int, scales_index: int,
                           sizes_index: int | None):
    """The forms without a static plan, through torch-mlir's interpolate lowering."""
    mode, coordinate_mode, axes = options.mode, options.coordinate_mode, options.axes
    why = WITHOUT_TAPS
    refusal = _interpolation_refusal(options, rank, sizes_index)
    if refusal is not None:
        node.fail(refusal)
    mode_text, align = _mode_string(node, mode, coordinate_mode, options.nearest_mode)
    if sizes_index is None:
        scales = _spatial_values(node, b, scales_index, rank, axes, "scale")
        return _interpolate(node, b, mode_text, b.constant_bool(align), None, scales)
    if options.policy != "stretch":
        node.fail(f"keep_aspect_ratio_policy '{options.policy}' {why}")
    # The declared result is the requested size: use it when static (no run-time reads).
    sizes = _static_result_sizes(node, b) if _keeps_batch_and_channel(node) else None
    if sizes is None:
        sizes = _spatial_values(node, b, sizes_index, rank, axes, "size")
    return _interpolate(node, b, mode_text, b.constant_bool(align), sizes, None)

def _interpolation_refusal(options: Options, rank: int, sizes_index: int | None) -> str | None:
    """What torch-mlir's interpolate lowering gets wrong or cannot express in this form, else None (the reason)."""
    mode, coordinate_mode, why = options.mode, options.coordinate_mode, WITHOUT_TAPS
    if options.antialias and mode != "nearest":
        return f"antialias=1 with mode '{mode}' {why}"
    if mode == "cubic" and options.cubic_coeff_a != -0.75:
        return f"cubic_coeff_a {options.cubic_coeff_a:g} {why} (only -0.75 otherwise)"
    if mode == "cubic" and options.exclude_outside:
        return f"exclude_outside=1 {why}"
    if coordinate_mode == "tf_crop_and_resize":
        return f"coordinate_transformation_mode 'tf_crop_and_resize' {why}"
    if mode == "nearest" and coordinate_mode not in ("half_pixel", "asymmetric"):
        return f"mode 'nearest' with coordinate_transformation_mode '{coordinate_mode}' {why}"
    if mode != "nearest" and rank != 4:
        return f"mode '{mode}' over {rank - 2} spatial dimensions {why} (two otherwise)"
    if coordinate_mode == "align_corners" and sizes_index is None:
        return f"coordinate_transformation_mode 'align_corners' with scales {why}"
    return None


@converts("Resize", since=10)
def resize_10(node: OnnxNode, b: TorchBuilder):
    """Inputs (X, scales); asymmetric coordinates; nearest rounds down."""
    return _resize(node, b, scales_index=1, sizes_index=None, legacy=True)


@converts("Resize", since=19)
@converts("Resize", since=18)
@converts("Resize", since=13)
@converts("Resize", since=11)
def resize_11(node: OnnxNode, b: TorchBuilder):
    """Inputs (X, roi, scales, sizes): scales or sizes (scales is then empty); coordinate and
    nearest modes, cubic coefficient, exclude_outside, extrapolation_value as attributes. Opset 13
    makes roi and scales optional; 18 adds antialias, axes and keep_aspect_ratio_policy; 19 adds
    coordinate_transformation_mode 'half_pixel_symmetric'."""
    return _resize(node, b, scales_index=2, sizes_index=3, legacy=False)


def _kept_upsample(node: OnnxNode, b: TorchBuilder, mode: str, coordinate_mode: str, nearest_mode: str, scales):
    """aten.upsample_nearest1d/2d or aten.upsample_bilinear2d when the user keeps it backend-legal and
    it computes this form exactly: the output size static, dims 0 and 1 kept; `scales` are the
    ONNX spatial scales (torch maps by them, as ONNX does), None when sizes were given. Else None."""
    rank, sizes = node.input_info(0).rank, node.result_info().sizes
    nearest = mode == "nearest" and coordinate_mode == "asymmetric" and nearest_mode == "floor" and rank in (3, 4)
    bilinear = mode == "linear" and coordinate_mode in ("half_pixel", "align_corners") and rank == 4
    name = f"aten.upsample_nearest{rank - 2}d" if nearest else "aten.upsample_bilinear2d"
    if not (nearest or bilinear) or not node.is_backend_legal(name) or not _keeps_batch_and_channel(node):
        return None
    if None in sizes[2:]:
        return None
    flags = [b.constant_bool(coordinate_mode == "align_corners")] if bilinear else []
    spatial = [b.constant_none() if s is None else b.constant_float(float(s)) for s in scales or [None] * (rank - 2)]
    return b.op(name, node.result_type(), node.input(0), b.int_list(sizes[2:]), *flags, *spatial)


def _legacy_by_taps(node: OnnxNode, b: TorchBuilder, mode: str, scales_index: int):
    """Resize-10 and Upsample-9 (asymmetric coordinates, nearest rounds down, output floor(in * scale))
    by taps on TOSA and StableHLO with constant scales: torch-mlir lowers no interpolation of dynamic
    shape there (a dynamic batch the scales leave as it is), and on static shapes its TOSA
    interpolation of a 5x6 image by 2 came out wrong and its StableHLO one failed to legalize the
    scale constants. Else None."""
    sizes = node.input_info(0).sizes
    if node.target not in DYNAMIC_TAPS_TARGETS or mode not in ("nearest", "linear") or sizes is None:
        return None
    if node.constant_input(scales_index) is None:
        return None
    options = Options(mode=mode, coordinate_mode="asymmetric", nearest_mode="floor", cubic_coeff_a=-0.75,
                      exclude_outside=False, antialias=False, extrapolation_value=0.0, policy="stretch",
                      axes=list(range(len(sizes))))
    plans = static_plan(node, b, options, len(sizes), scales_index, None)
    return None if plans is None else resize_by_taps(node, b, options, plans)


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
    kept = _kept_upsample(node, b, node.attr_string("mode"), "asymmetric", "floor", scales[2:])
    if kept is None:
        kept = repeated_upsample(node, b, node.attr_string("mode"), "asymmetric", "floor",
                                 scale_factors(scales, list(range(rank)), rank))
    if kept is not None:
        return kept
    return _interpolate(node, b, mode_text, b.constant_bool(align), None, [b.constant_float(s) for s in scales[2:]])


@converts("Upsample", since=9)
def upsample_9(node: OnnxNode, b: TorchBuilder):
    """Scales become input 1."""
    rank = _rank(node)
    mode_text, align = _upsample_mode(node)
    literal = node.constant_input(1)
    kept = None if literal is None else _kept_upsample(node, b, node.attr_string("mode"), "asymmetric", "floor",
                                                       list(literal)[2:])
    if kept is None:
        factors = whole_number_factors(node, 1, "scale", list(range(rank)))
        kept = repeated_upsample(node, b, node.attr_string("mode"), "asymmetric", "floor", factors)
    if kept is None:
        kept = _legacy_by_taps(node, b, "nearest" if mode_text.startswith("nearest") else "linear", 1)
    if kept is not None:
        return kept
    scales = _spatial_values(node, b, 1, rank, list(range(rank)), "scale")
    return _interpolate(node, b, mode_text, b.constant_bool(align), None, scales)
