"""MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv (ONNX domain, opset 10; QLinearMatMul 21
adds float16/bfloat16 scales and float8 operands).

The products are summed exactly, in int32, in one of three forms:
- torch-mlir's quantized form: both operands read as per-tensor quantized tensors (scale 1, the
  zero point) and multiplied by `aten.matmul` / `aten.convolution`, which its Linalg lowering
  turns into `linalg.quantized_matmul` / `linalg.conv_2d_nchw_fchw_q` and its TOSA lowering into
  `tosa.matmul` / `tosa.conv2d` on int8 with zero points (what `torch-fuse-quantized-ops` makes
  of dequantize -> matmul). Used for literal scalar zero points on Linalg and Torch output
  (int8/uint8) and TOSA (int8; uint8 is shifted by 128 to int8 first), for 2-D convolutions;
- on TOSA, for int8/uint8 operands with run-time or per-row/per-column/per-channel zero points
  (1-D and 2-D convolutions, matmuls with a static K): the int8 product with zero points 0 in that
  quantized form, and the zero points' terms added in int32 (tosa_products.py), since TOSA takes
  no int32 product and only constant per-tensor zero points;
- the integer form: operands widened to int32, zero points subtracted, an int32 matmul or
  convolution. Everywhere else (StableHLO; per-row/per-column/per-channel or run-time zero
  points on Linalg and Torch output; 3-D convolutions, and 1-D ones but on TOSA).

QLinear* then requantize: y = saturate(round(acc * (a_scale * b_scale / y_scale)) + y_zero_point),
the multiplier in the scales' type and the product in float64, as ONNX's reference computes it.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from . import tosa_products
from .qdq_form import as_qdq_on_tosa
from .arith import (
    constant, operand,
    INTEGER_RANGES, divide, literal_number, make_quantized, quantized_form_allowed, requantize, to_signed_byte,
    widen,
)

_BYTES = ("si8", "ui8")


def _zero_points(node: OnnxNode, indices):
    """Literal scalar zero points as ints (0 when absent), or None if any is not one. A zero
    point is the node's input `index`, or a value computed by the pattern (never literal)."""
    values = []
    for index in indices:
        if isinstance(index, ir.Value):
            return None
        if index is None or not node.has_input(index):
            values.append(0)
            continue
        value = literal_number(node, index)
        if value is None:
            return None
        values.append(value)
    return values


def _quantized_operands(node: OnnxNode, b: TorchBuilder, operands, zero_points):
    """The operands as quantized tensors if the target lowers the quantized form, else None."""
    elements = [b.info(x).element for x in operands]
    if zero_points is None or any(element not in _BYTES for element in elements):
        return None
    if node.target == "tosa":
        shifted = [to_signed_byte(node, b, x, zero) for x, zero in zip(operands, zero_points)]
        operands, zero_points = [x for x, _ in shifted], [zero for _, zero in shifted]
        elements = ["si8"] * len(operands)
    if not quantized_form_allowed(node, *elements):
        return None
    return [make_quantized(b, x, 1.0, zero) for x, zero in zip(operands, zero_points)]


def _zero_point(node: OnnxNode, b: TorchBuilder, index) -> ir.Value | None:
    """Zero point `index` (an input index or a value) as si32 (a literal one as an si32 literal: no
    unsigned constants, which StableHLO's lowering to Linalg mistypes), or None if absent."""
    if isinstance(index, ir.Value):
        return widen(node, b, index)
    if index is None or not node.has_input(index):
        return None
    literal = constant(node, index)
    if literal is not None:
        return b.literal(literal.astype(np.int32), "si32")
    return widen(node, b, node.input(index))


def _minus_zero_point(node: OnnxNode, b: TorchBuilder, x: ir.Value, zero_point: ir.Value | None) -> ir.Value:
    """widen(x) - zero_point, in si32 (the zero point si32, shaped to broadcast)."""
    wide = widen(node, b, x)
    if zero_point is None:
        return wide
    return b.binary("aten.sub.Tensor", wide, zero_point)


def _per_row(node: OnnxNode, b: TorchBuilder, index: int, rank: int) -> ir.Value | None:
    """MatMulInteger's A zero point: a 1-D per-row one [M] becomes [M, 1]."""
    zero_point = _zero_point(node, b, index)
    if zero_point is not None and b.info(zero_point).rank == 1 and rank >= 2:
        zero_point = b.unsqueeze(zero_point, -1)
    return zero_point


def integer_matmul(node: OnnxNode, b: TorchBuilder, a: ir.Value, a_zero: int | None, other: ir.Value,
                   b_zero: int | None, sizes) -> ir.Value:
    """sum_k (a - a_zero_point) * (b - b_zero_point) exactly, as si32 of `sizes` (the zero points
    are the node's inputs `a_zero` and `b_zero`, absent if None)."""
    rank = b.info(a).rank
    if rank is None or b.info(other).rank is None:
        node.fail("the operands need static ranks")
    zero_points = _zero_points(node, (a_zero, b_zero))
    quantized = _quantized_operands(node, b, [a, other], zero_points)
    if quantized is not None:
        product = b.op("aten.matmul", b.tensor_type(sizes, "!torch.qint32"), *quantized)
        return b.op("aten.int_repr", b.tensor_type(sizes, "si32"), product)
    if tosa_products.applies(node, b, a, other):
        accumulator = tosa_products.matmul(node, b, a, a_zero, other, b_zero, sizes)
        if accumulator is not None:
            return accumulator
    lhs = _minus_zero_point(node, b, a, _per_row(node, b, a_zero, rank))
    rhs = _minus_zero_point(node, b, other, _zero_point(node, b, b_zero))
    if rank > 3 and b.info(rhs).rank == 2 and node.target in (None, "linalg-on-tensors"):
        # torch-mlir's Linalg lowering of a matmul of rank > 3 by a matrix converts the elements with
        # `arith.extf`, which an integer fails: the rows are multiplied as one matrix instead (not on
        # StableHLO, which takes the matmul, and where a reshape to dynamic dims IREE refuses).
        lhs_dims = b.dims(lhs)
        rows = b.reshape(lhs, [-1, lhs_dims[-1]], [None, b.info(lhs).sizes[-1]])
        columns = b.info(rhs).sizes[1]
        product = b.op("aten.mm", b.tensor_type([b.info(rows).sizes[0], columns], "si32"), rows, rhs)
        return b.reshape(product, lhs_dims[:-1] + [b.dim(rhs, 1)], sizes)
    return b.op("aten.matmul", b.tensor_type(sizes, "si32"), lhs, rhs)


def _kernel(node: OnnxNode, weight_sizes: list) -> list:
    kernel = list(weight_sizes[2:])
    declared = node.attr_ints("kernel_shape", None)
    if declared is not None:
        if len(declared) != len(kernel) or any(k is not None and k != d for k, d in zip(kernel, declared)):
            node.fail(f"attribute 'kernel_shape' {declared} does not match the weight's sizes {weight_sizes}")
        kernel = list(declared)
    return kernel


def integer_convolution(node: OnnxNode, b: TorchBuilder, x: ir.Value, x_zero: int | None, weight: ir.Value,
                        w_zero: int | None, sizes) -> ir.Value:
    """The convolution of (x - x_zero_point) and (w - w_zero_point) exactly, as si32 of `sizes`
    (ONNX Conv attributes: pads or auto_pad, strides, dilations, group; the zero points are the
    node's inputs `x_zero` and `w_zero`)."""
    x_sizes, weight_sizes = b.info(x).sizes, b.info(weight).sizes
    if x_sizes is None or weight_sizes is None:
        node.fail("the input and the weight need static ranks")
    x_sizes, weight_sizes = list(x_sizes), list(weight_sizes)
    count = len(x_sizes) - 2
    if count < 1 or len(weight_sizes) != len(x_sizes):
        node.fail(f"input rank {len(x_sizes)} and weight rank {len(weight_sizes)} do not form a convolution")
    kernel = _kernel(node, weight_sizes)
    strides, dilations = node.spatial_ints("strides", count, 1), node.spatial_ints("dilations", count, 1)
    begins, ends = node.resolve_pads(x_sizes[2:], kernel, strides, dilations)
    group = node.attr_int("group", 1)
    zero_points = _zero_points(node, (x_zero, w_zero))
    quantized = None
    if count == 2 and zero_points is not None and {b.info(x).element, b.info(weight).element} <= set(_BYTES):
        # Bytes are made signed first (torch-mlir's Linalg lowering pads uint8 with a value
        # converted by fptosi); padding the input with its zero point makes padded elements add 0.
        (x_signed, x_zero_value), (w_signed, w_zero_value) = (
            to_signed_byte(node, b, x, zero_points[0]), to_signed_byte(node, b, weight, zero_points[1]))
        padded = _pad(b, x_signed, begins, ends, x_zero_value)
        quantized = _quantized_operands(node, b, [padded, w_signed], [x_zero_value, w_zero_value])
    if quantized is None and count <= 2 and tosa_products.applies(node, b, x, weight):
        accumulator = tosa_products.convolution(node, b, x, x_zero, weight, w_zero, sizes,
                                                (begins, ends, strides, dilations, group))
        if accumulator is not None:
            return accumulator
    if quantized is not None:
        operands, padding = quantized, [0] * count
    else:
        x_zero_point = _zero_point(node, b, x_zero)
        if x_zero_point is not None and b.info(x_zero_point).rank:
            x_zero_point = b.reshape(x_zero_point, [], [])
        w_zero_point = _zero_point(node, b, w_zero)
        if w_zero_point is not None and b.info(w_zero_point).rank == 1:
            w_zero_point = b.reshape(w_zero_point, [-1] + [1] * (count + 1), [b.info(w_zero_point).sizes[0]] + [1] * (count + 1))
        lhs = _minus_zero_point(node, b, x, x_zero_point)
        padding = [min(p, q) for p, q in zip(begins, ends)]
        lhs = _pad(b, lhs, [p - s for p, s in zip(begins, padding)], [q - s for q, s in zip(ends, padding)], 0)
        operands = [lhs, _minus_zero_point(node, b, weight, w_zero_point)]
    return b.op(
        "aten.convolution", b.tensor_type(sizes, "si32"), *operands, b.constant_none(), b.int_list(strides),
        b.int_list(padding), b.int_list(dilations), b.constant_bool(False), b.int_list([0] * count),
        b.constant_int(group),
    )


def _pad(b: TorchBuilder, x: ir.Value, begins, ends, value: int) -> ir.Value:
    """`aten.constant_pad_nd` of the trailing spatial dims of x with `value`."""
    if not any(begins) and not any(ends):
        return x
    info = b.info(x)
    pad, sizes = [], list(info.sizes)
    for i in reversed(range(len(begins))):  # torch lists the last dim first
        pad += [begins[i], ends[i]]
    for i in range(len(begins)):
        dim = info.rank - len(begins) + i
        if sizes[dim] is not None:
            sizes[dim] += begins[i] + ends[i]
    return b.op("aten.constant_pad_nd", b.tensor_type(sizes, info.element), x, b.int_list(pad), b.constant_float(value))


def multiplier(node: OnnxNode, b: TorchBuilder, scale_indices, y_scale_index: int, channel_axis: int | None,
               rank: int) -> ir.Value:
    """(scale_1 * scale_2) / y_scale in the scales' type: a literal when all are literals, else torch
    ops; a per-channel scale [C] is shaped [C, 1, ...] to broadcast at `channel_axis` of a rank-`rank` result."""
    elements = {node.input_info(i).element for i in (*scale_indices, y_scale_index)}
    if len(elements) != 1 or not elements <= {"f32", "f16", "bf16"}:
        node.fail(f"the scales must be of one float type, not {sorted(elements)}")
    element = elements.pop()
    literals = [constant(node, i) for i in (*scale_indices, y_scale_index)]
    if all(literal is not None for literal in literals):
        first, second, y_scale = (np.asarray(literal).reshape(-1) for literal in literals)
        value = (first * second) / y_scale
        value = value.reshape(-1) if value.size > 1 else value.reshape(())
        result = b.literal(value, element) if element != "bf16" else None
        if result is not None:
            return _per_channel_shape(b, result, channel_axis, rank)
    first, second, y_scale = (b.reshape(node.input(i), [-1]) for i in (*scale_indices, y_scale_index))
    value = divide(node, b, b.binary("aten.mul.Tensor", first, second), y_scale, element)
    if (b.info(value).sizes or [1])[0] == 1:
        return b.reshape(value, [], [])
    return _per_channel_shape(b, value, channel_axis, rank)


def _per_channel_shape(b: TorchBuilder, value: ir.Value, channel_axis: int | None, rank: int) -> ir.Value:
    info = b.info(value)
    if not info.rank or channel_axis is None:
        return value
    sizes = [1] * (rank - channel_axis)
    sizes[0] = -1 if info.sizes[0] is None else info.sizes[0]
    return b.reshape(value, sizes, [None if s == -1 else s for s in sizes])


def _output_element(node: OnnxNode, index: int) -> str:
    element = node.input_info(index).element
    if element not in INTEGER_RANGES or element == "si32":
        node.fail(f"a {element} output is not supported (int8 and uint8 are)")
    return element


@converts("MatMulInteger", since=10)
def matmul_integer(node: OnnxNode, b: TorchBuilder):
    """Y = (A - a_zero_point) @ (B - b_zero_point) in int32; a_zero_point scalar or per row (M,
    or [..., M, 1]), b_zero_point scalar or per column (N, or [..., 1, N])."""
    sizes = node.result_info().sizes
    accumulator = integer_matmul(node, b, operand(node, b, 0), 2, operand(node, b, 1), 3, sizes)
    return b.cast_to(accumulator, node.result_type())


@converts("ConvInteger", since=10)
def conv_integer(node: OnnxNode, b: TorchBuilder):
    """Y = conv(x - x_zero_point, w - w_zero_point) in int32; w_zero_point scalar or per output channel."""
    sizes = node.result_info().sizes
    accumulator = integer_convolution(node, b, operand(node, b, 0), 2, operand(node, b, 1), 3, sizes)
    return b.cast_to(accumulator, node.result_type())


@converts("QLinearMatMul", since=10)
def qlinear_matmul(node: OnnxNode, b: TorchBuilder):
    """y = saturate(round((a - a_zp) @ (b - b_zp) * a_scale * b_scale / y_scale) + y_zp);
    b_scale and b_zero_point may be per column."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    for index in range(8):
        if node.input_info(index).element.startswith("f8"):
            node.fail("float8 QLinearMatMul is not supported")
    result = node.result_info()
    accumulator = integer_matmul(node, b, operand(node, b, 0), 2, operand(node, b, 3), 5, result.sizes)
    scale = multiplier(node, b, (1, 4), 6, None, result.rank)
    y_zero = node.input(7)
    y_zero = b.reshape(y_zero, [], []) if b.info(y_zero).rank else y_zero
    return b.cast_to(requantize(node, b, accumulator, scale, y_zero, _output_element(node, 7)), node.result_type())


@converts("QLinearConv", since=10)
def qlinear_conv(node: OnnxNode, b: TorchBuilder):
    """y = saturate(round((conv(x - x_zp, w - w_zp) + B) * x_scale * w_scale / y_scale) + y_zp);
    w_scale and w_zero_point may be per output channel, B is int32 (scale x_scale * w_scale)."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    return b.cast_to(qlinear_convolution(node, b, operand(node, b, 0), node.result_info()), node.result_type())


def qlinear_convolution(node: OnnxNode, b: TorchBuilder, x: ir.Value, result) -> ir.Value:
    """QLinearConv of x (NCHW) with the node's other inputs, `result` the output's TensorInfo."""
    accumulator = integer_convolution(node, b, x, 2, operand(node, b, 3), 5, result.sizes)
    if node.has_input(8):
        bias = widen(node, b, node.input(8))
        bias = b.reshape(bias, [-1] + [1] * (result.rank - 2), [b.info(bias).sizes[0]] + [1] * (result.rank - 2))
        accumulator = b.binary("aten.add.Tensor", accumulator, bias)
    scale = multiplier(node, b, (1, 4), 6, 1, result.rank)
    y_zero = node.input(7)
    y_zero = b.reshape(y_zero, [], []) if b.info(y_zero).rank else y_zero
    return requantize(node, b, accumulator, scale, y_zero, _output_element(node, 7))
