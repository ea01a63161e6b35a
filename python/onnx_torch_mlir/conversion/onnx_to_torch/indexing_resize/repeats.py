"""Nearest Resize and Upsample by whole-number factors on dynamic spatial sizes, as repeats.

A YOLO neck, PP-OCR's detector and diffusers' UNet and VAE upsample by 2 with nearest Resize on an
image size the export leaves dynamic. As an interpolation, torch-mlir's Linalg lowering computes
the output size in float (`floor(float(h) * 2.0)`) and reads the input through a gather;
IREE (3.13) cannot compile a padded convolution after it ("'iree_codegen.workgroup_count_hint' op
failed to resolve workgroup count hint in terms of workload ordinals"), and torch-mlir's own
ONNX path fails the same way. Where each output position k*i + r reads input position i (the
coordinate mode and nearest rounding decide: floor with asymmetric coordinates, any rounding to
nearest with half-pixel ones at any factor, ...), the upsampling needs no gather and no float:
per resized axis, `unsqueeze` after the axis, `expand` that unit dim to k, and merge the two dims
(`prims.collapse`), so every size is the input's times k. Every backend lowers that form on
dynamic sizes.

The factors come from constant scales (whole numbers), or from sizes that are the input's own dims
times constants (`Shape(x) * [1, 1, 2, 2]`, `Concat(Shape(x)[:2], Shape(x)[2:] * 2)`: `!torch.int`
values `aten.mul.int(aten.size.int(x, axis), k)`). Any other form (a fractional or run-time factor,
a rounding that moves some rows to the next input position) keeps the interpolation or taps.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode

# Source coordinate of output row r (of k) relative to input position i, per coordinate mode; with
# a whole-number factor and an output of exactly k * n rows it does not depend on i or n.
_OFFSETS = {
    "asymmetric": lambda r, k: r / k,
    "half_pixel": lambda r, k: (r + 0.5) / k - 0.5,
    "half_pixel_symmetric": lambda r, k: (r + 0.5) / k - 0.5,
    "pytorch_half_pixel": lambda r, k: (r + 0.5) / k - 0.5,
    "tf_half_pixel_for_nn": lambda r, k: (r + 0.5) / k,
}
_ROUNDINGS = {
    "floor": math.floor, "ceil": math.ceil,
    "round_prefer_floor": lambda d: math.ceil(d - 0.5), "round_prefer_ceil": lambda d: math.floor(d + 0.5),
}


def repeats_each_position(coordinate_mode: str, nearest_mode: str, factor: int) -> bool:
    """Whether every output row k*i + r of a nearest resize by `factor` reads input position i."""
    offset, rounding = _OFFSETS.get(coordinate_mode), _ROUNDINGS.get(nearest_mode)
    if offset is None or rounding is None:
        return False
    return all(rounding(offset(r, factor)) == 0 for r in range(factor))


def whole_number_factors(node: OnnxNode, index: int, kind: str, axes: list[int]) -> list[int] | None:
    """The factor of each dim of X (1 for the batch and channel) when input `index` (scales or sizes,
    `kind`, given for `axes`) resizes by whole numbers as the module docstring says; else None."""
    rank = node.input_info(0).rank
    if kind == "scale":
        literal = node.constant_input(index)
        return None if literal is None else scale_factors(literal.reshape(-1).tolist(), axes, rank)
    elements = node.dim_elements(index)
    if elements is None or len(elements) != len(axes):
        return None
    factors = [1] * rank
    x_sizes = node.input_info(0).sizes
    for axis, element in zip(axes, elements):
        factor = _multiple_of_dim(node, element, axis, x_sizes[axis])
        if factor is None:
            return None
        factors[axis] = factor
    return factors if factors[:2] == [1, 1] else None


def scale_factors(scales: list[float], axes: list[int], rank: int) -> list[int] | None:
    """Whole-number `scales` (given for `axes`) as the factor of each dim; None for another scale,
    or one that resizes the batch or channel."""
    if len(scales) != len(axes):
        return None
    factors = [1] * rank
    for axis, scale in zip(axes, scales):
        if scale < 1 or scale != int(scale):
            return None
        factors[axis] = int(scale)
    return factors if factors[:2] == [1, 1] else None


def _multiple_of_dim(node: OnnxNode, element, axis: int, static_size: int | None) -> int | None:
    """k when the size `element` is k times dim `axis` of X (a static size divisible by it, or
    `aten.size.int(X, axis)` times a constant); else None."""
    if not isinstance(element, ir.Value):
        if static_size is None or static_size <= 0 or element % static_size:
            return None
        return element // static_size
    if _is_dim_of_input(node, element, axis):
        return 1
    product = _producer(element, "torch.aten.mul.int")
    if product is None:
        return None
    for dim, factor in (product.operands[0], product.operands[1]), (product.operands[1], product.operands[0]):
        constant = _producer(factor, "torch.constant.int")
        if constant is not None and _is_dim_of_input(node, dim, axis):
            value = ir.IntegerAttr(constant.attributes["value"]).value
            return value if value >= 1 else None
    return None


def _producer(value: ir.Value, name: str) -> ir.Operation | None:
    owner = value.owner
    operation = owner.operation if isinstance(owner, ir.OpView) else owner
    return operation if isinstance(operation, ir.Operation) and operation.name == name else None


def _is_dim_of_input(node: OnnxNode, value: ir.Value, axis: int) -> bool:
    size = _producer(value, "torch.aten.size.int")
    if size is None or size.operands[0] != node.input(0):
        return False
    position = _producer(size.operands[1], "torch.constant.int")
    return position is not None and ir.IntegerAttr(position.attributes["value"]).value == axis


def repeated_upsample(node: OnnxNode, b: TorchBuilder, mode: str, coordinate_mode: str, nearest_mode: str,
                      factors: list[int] | None):
    """The upsampling as repeats when it is nearest by whole-number `factors` (None: not known) that
    repeat each position, along at least one dynamic dim of X; else None (the other forms)."""
    sizes = node.input_info(0).sizes
    if mode != "nearest" or factors is None or sizes is None:
        return None
    if not any(factor > 1 and sizes[axis] is None for axis, factor in enumerate(factors)):
        return None  # static extents: the taps (index_select) lower everywhere
    if not all(repeats_each_position(coordinate_mode, nearest_mode, factor) for factor in factors if factor > 1):
        return None
    return upsample_by_repeats(node, b, factors)


def upsample_by_repeats(node: OnnxNode, b: TorchBuilder, factors: list[int]):
    """X with each dim repeated `factors[dim]` times in place: unsqueeze, expand, merge per axis."""
    x = node.input(0)
    for axis, factor in enumerate(factors):
        if factor == 1:
            continue
        info = b.info(x)
        unit = b.unsqueeze(x, axis + 1)
        sizes = list(info.sizes)
        expanded_sizes = sizes[: axis + 1] + [factor] + sizes[axis + 1:]
        targets = [-1] * (axis + 1) + [factor] + [-1] * (len(sizes) - axis - 1)
        expanded = b.op("aten.expand", b.tensor_type(expanded_sizes, info.element), unit, b.int_list(targets),
                        b.constant_bool(False))
        merged_sizes = list(sizes)
        merged_sizes[axis] = None if sizes[axis] is None else sizes[axis] * factor
        # prims.collapse lowers to a tensor.collapse_shape on every backend; torch-mlir decomposes a
        # flatten into a view with -1, which its Linalg lowering sizes by a division.
        x = b.op("prims.collapse", b.tensor_type(merged_sizes, info.element), expanded, b.constant_int(axis),
                 b.constant_int(axis + 1))
    return b.cast_to(x, node.result_type())
