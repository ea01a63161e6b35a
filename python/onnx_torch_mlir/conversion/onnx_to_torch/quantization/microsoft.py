"""onnxruntime's quantized operators (domain `com.microsoft`, version 1): the QOperator format of
its quantization tool. Semantics from onnxruntime's ContribOperators documentation; every
attribute default is spelled here (ONNX has no schemas for them).

- QLinearAdd, QLinearMul: C = quantize(dequantize(A) + dequantize(B)) (or *), computed in float64,
  where the dequantized values and their sum are exact and the one division by C_scale is
  correctly rounded. onnxruntime computes them in fixed point and may be one step off. TOSA has
  no float64: there (and for the other float64 computations below) the values are float32 and
  the quotient is rounded as a float64 division of them would be (exact_rounding.py): the same
  result wherever the float32 values are exact.
- QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax: quantize(f(dequantize(X))) in float32
  (onnxruntime uses 256-entry tables of its own float32 functions: within one step).
- QLinearGlobalAveragePool: the int32 sum of (X - zero point) over the spatial dims times
  X_scale / (Y_scale * count), in float64; `channels_last` takes NHWC.
- QLinearConcat: each input requantized to Y's scale and zero point (float64), then concatenated.
- QGemm: alpha * (A' - a_zp)(B' - b_zp) + C in int32, requantized with a_scale * b_scale / y_scale,
  or float32 output without y_scale; b_scale and b_zero_point may be per column.
- MatMulIntegerToFloat: (A - a_zp)(B - b_zp) * a_scale * b_scale + bias, in float32.
- DynamicQuantizeMatMul: A quantized to uint8 as DynamicQuantizeLinear does, then as
  MatMulIntegerToFloat.
- QuantizeLinear, DequantizeLinear, QLinearConv: as the ONNX ops (QLinearConv with `channels_last`).
The integer products use integer.py's forms (int8 kernels where the backend takes them).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .arith import constant, operand, quotient_to_integer, requantize, round_to_integer, to_float, widen
from .integer import integer_matmul, multiplier, qlinear_convolution
from .linear import dequantize_linear, dynamic_quantize, quantize_linear
from .qdq_form import as_qdq_on_tosa

MICROSOFT = "com.microsoft"


def _scalar(node: OnnxNode, b: TorchBuilder, index: int) -> ir.Value | None:
    """A one-element operand as a rank-0 tensor, None if absent; a literal integer zero point
    becomes a float32 literal (no unsigned constants for StableHLO's lowering)."""
    if not node.has_input(index):
        return None
    literal = constant(node, index)
    if literal is not None and literal.size == 1 and literal.dtype.kind in "iu":
        return b.literal(np.float32(literal.reshape(-1)[0]), "f32")
    value = node.input(index)
    info = b.info(value)
    if info.sizes is not None and info.rank and None not in info.sizes and int(np.prod(info.sizes)) == 1:
        return b.reshape(value, [], [])
    if info.rank:
        node.fail(f"input {index} must be a scalar (per-tensor quantization)")
    return value


def _dequantize(node: OnnxNode, b: TorchBuilder, x: ir.Value, scale: int, zero: int, element: str) -> ir.Value:
    """(x - zero_point) * scale in float `element` (exact in float64)."""
    value = to_float(node, b, x, element)
    zero_point = _scalar(node, b, zero)
    if zero_point is not None:
        value = b.binary("aten.sub.Tensor", value, to_float(node, b, zero_point, element))
    return b.binary("aten.mul.Tensor", value, to_float(node, b, _scalar(node, b, scale), element))


def _exact_element(node: OnnxNode) -> str:
    """float64, where the dequantized values are exact; float32 on TOSA, which has no float64."""
    return "f32" if node.target == "tosa" else "f64"


def _quantize(node: OnnxNode, b: TorchBuilder, value: ir.Value, scale: int, zero: int,
              division: str | None = None) -> ir.Value:
    """saturate(round(value / scale) + zero_point) as the node's output type, the quotient rounded
    to `division` (default the value's type) first."""
    element = node.result_info().element
    if element not in ("si8", "ui8"):
        node.fail(f"the output is {element}; int8 or uint8 is required")
    scale_value = to_float(node, b, _scalar(node, b, scale), b.info(value).element)
    division = division or b.info(value).element
    y = quotient_to_integer(node, b, value, scale_value, _scalar(node, b, zero), element, division)
    return b.cast_to(y, node.result_type())


@converts("QLinearAdd", since=1, domain=MICROSOFT)
def qlinear_add(node: OnnxNode, b: TorchBuilder):
    """C = (A_scale * (A - A_zp) + B_scale * (B - B_zp)) / C_scale + C_zp, numpy broadcasting."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    exact = _exact_element(node)
    total = b.binary("aten.add.Tensor", _dequantize(node, b, operand(node, b, 0), 1, 2, exact),
                     _dequantize(node, b, operand(node, b, 3), 4, 5, exact))
    return _quantize(node, b, total, 6, 7, "f64")


@converts("QLinearMul", since=1, domain=MICROSOFT)
def qlinear_mul(node: OnnxNode, b: TorchBuilder):
    """C = (A - A_zp) * (B - B_zp) * A_scale * B_scale / C_scale + C_zp, numpy broadcasting."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    exact = _exact_element(node)
    product = b.binary("aten.mul.Tensor", _dequantize(node, b, operand(node, b, 0), 1, 2, exact),
                       _dequantize(node, b, operand(node, b, 3), 4, 5, exact))
    return _quantize(node, b, product, 6, 7, "f64")


@converts("QLinearSigmoid", since=1, domain=MICROSOFT)
def qlinear_sigmoid(node: OnnxNode, b: TorchBuilder):
    """Y = quantize(sigmoid(dequantize(X)))."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    x = _dequantize(node, b, operand(node, b, 0), 1, 2, "f32")
    return _quantize(node, b, b.op("aten.sigmoid", x.type, x), 3, 4)


@converts("QLinearLeakyRelu", since=1, domain=MICROSOFT)
def qlinear_leaky_relu(node: OnnxNode, b: TorchBuilder):
    """Y = quantize(x >= 0 ? x : alpha * x) of x = dequantize(X); alpha 0.01 by default."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    x = _dequantize(node, b, operand(node, b, 0), 1, 2, "f32")
    alpha = node.attr_float("alpha", 0.01)
    return _quantize(node, b, b.op("aten.leaky_relu", x.type, x, b.constant_float(alpha)), 3, 4)


@converts("QLinearSoftmax", since=1, domain=MICROSOFT)
def qlinear_softmax(node: OnnxNode, b: TorchBuilder):
    """Y = quantize(softmax(dequantize(X))) along `axis` (opset >= 13: that axis, default -1;
    older: the input coerced to 2-D at `axis`, default 1)."""
    x = _dequantize(node, b, operand(node, b, 0), 1, 2, "f32")
    sizes = node.input_sizes(0)
    rank = len(sizes)
    opset = node.attr_int("opset")
    axis = node.axis(node.attr_int("axis", -1 if opset >= 13 else 1), max(rank, 1))
    if opset >= 13 or axis == rank - 1:
        result = b.op("aten.softmax.int", x.type, x, b.constant_int(axis), b.constant_none())
        return _quantize(node, b, result, 3, 4)
    if None in sizes:
        node.fail(f"softmax of opset {opset} over dims {axis}.. of a dynamic shape is not supported")
    rows, columns = int(np.prod(sizes[:axis], dtype=np.int64)), int(np.prod(sizes[axis:], dtype=np.int64))
    flat = b.reshape(x, [rows, columns])
    result = b.op("aten.softmax.int", flat.type, flat, b.constant_int(1), b.constant_none())
    return _quantize(node, b, b.reshape(result, sizes), 3, 4)


@converts("QLinearGlobalAveragePool", since=1, domain=MICROSOFT)
def qlinear_global_average_pool(node: OnnxNode, b: TorchBuilder):
    """Y = quantize(mean over the spatial dims of dequantize(X)): the int32 sum of X - x_zp times
    x_scale, divided by y_scale * count. `channels_last`: X is N x spatial... x C."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    x = operand(node, b, 0)
    sizes = node.input_sizes(0)
    if len(sizes) < 3:
        node.fail(f"the input has rank {len(sizes)}; at least 3 (N, C, spatial dims) is required")
    spatial = list(range(1, len(sizes) - 1)) if node.attr_int("channels_last", 0) else list(range(2, len(sizes)))
    difference = widen(node, b, x)
    zero_point = _scalar(node, b, 2)
    if zero_point is not None:
        difference = b.binary("aten.sub.Tensor", difference, widen(node, b, zero_point))
    reduced = [1 if i in spatial else size for i, size in enumerate(sizes)]
    total = b.op("aten.sum.dim_IntList", b.tensor_type(reduced, "si32"), difference, b.int_list(spatial),
                 b.constant_bool(True), b.dtype("si32"))
    count = b.constant_int(1)
    for dim in spatial:
        size = sizes[dim] if sizes[dim] is not None else b.op("aten.size.int", b.type("!torch.int"), x, b.constant_int(dim))
        count = b.op("aten.mul.int", b.type("!torch.int"), count, size if isinstance(size, ir.Value) else b.constant_int(size))
    exact = _exact_element(node)
    numerator = b.binary("aten.mul.Tensor", b.to_dtype(total, exact), to_float(node, b, _scalar(node, b, 1), exact))
    y_scale = to_float(node, b, _scalar(node, b, 3), exact)
    denominator = b.op("aten.mul.Scalar", y_scale.type, y_scale, count)
    element = node.result_info().element
    y = quotient_to_integer(node, b, numerator, denominator, _scalar(node, b, 4), element, "f64")
    return b.cast_to(y, node.result_type())


@converts("QLinearConcat", since=1, domain=MICROSOFT)
def qlinear_concat(node: OnnxNode, b: TorchBuilder):
    """Y = concat(requantize(X_i, scale_i, zp_i -> Y_scale, Y_zp)) along `axis`; inputs are
    Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per tensor."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    count = node.num_inputs - 2
    if count <= 0 or count % 3:
        node.fail(f"{node.num_inputs} inputs are not Y_scale, Y_zero_point and triples of (X, scale, zero point)")
    element = node.result_info().element
    rank = node.result_info().rank
    axis = node.axis(node.attr_int("axis"), rank)
    pieces = []
    for first in range(2, node.num_inputs, 3):
        x = operand(node, b, first)
        if _same_parameters(node, first + 1, 0) and _same_parameters(node, first + 2, 1):
            pieces.append(x)
            continue
        exact = _exact_element(node)
        value = _dequantize(node, b, x, first + 1, first + 2, exact)
        y_scale = to_float(node, b, _scalar(node, b, 0), exact)
        pieces.append(quotient_to_integer(node, b, value, y_scale, _scalar(node, b, 1), element, "f64"))
    sizes = list(node.result_info().sizes)
    return b.cast_to(b.op("aten.cat", b.tensor_type(sizes, element), b.list(pieces, "vtensor"), b.constant_int(axis)),
                     node.result_type())


def _same_parameters(node: OnnxNode, index: int, other: int) -> bool:
    """Whether inputs `index` and `other` are literals of one value (a requantization is then the identity)."""
    first, second = constant(node, index), constant(node, other)
    return first is not None and second is not None and first.size == second.size == 1 and first.item() == second.item()


def _transposed(b: TorchBuilder, x: ir.Value) -> ir.Value:
    info = b.info(x)
    return b.op("aten.transpose.int", b.tensor_type([info.sizes[1], info.sizes[0]], info.element), x,
                b.constant_int(0), b.constant_int(1))


def _float_product(node: OnnxNode, b: TorchBuilder, accumulator: ir.Value, scales, bias: ir.Value | None,
                   element: str, factor: float = 1.0) -> ir.Value:
    """float32(accumulator) * (factor * scale_1 * scale_2) + bias, in float32 (onnxruntime's output
    processor), converted to `element`."""
    literals = [constant(node, index) for index in scales]
    if all(literal is not None for literal in literals):
        value = np.float32(factor) * literals[0].astype(np.float32).reshape(-1) * literals[1].astype(np.float32).reshape(-1)
        scale = b.literal(value.reshape(()) if value.size == 1 else value, "f32")
    else:
        first, second = (to_float(node, b, b.reshape(node.input(i), [-1]), "f32") for i in scales)
        scale = b.binary("aten.mul.Tensor", first, second)
        if factor != 1.0:
            scale = b.binary("aten.mul.Tensor", scale, b.literal(np.float32(factor), "f32"))
    y = b.binary("aten.mul.Tensor", b.to_dtype(accumulator, "f32"), scale)
    if bias is not None:
        y = b.binary("aten.add.Tensor", y, to_float(node, b, bias, "f32"))
    return b.to_dtype(y, element)


@converts("QGemm", since=1, domain=MICROSOFT)
def qgemm(node: OnnxNode, b: TorchBuilder):
    """Y = alpha * (A' - a_zp)(B' - b_zp) * a_scale * b_scale + C (int32, scale alpha * a_scale *
    b_scale), quantized with y_scale/y_zero_point when given, else float32; A' and B' are A and B
    transposed by transA/transB."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    a, other = operand(node, b, 0), operand(node, b, 3)
    if b.info(a).rank != 2 or b.info(other).rank != 2:
        node.fail("A and B must be 2-D")
    if node.attr_int("transA", 0):
        a = _transposed(b, a)
    if node.attr_int("transB", 0):
        other = _transposed(b, other)
    sizes = [b.info(a).sizes[0], b.info(other).sizes[1]]
    accumulator = integer_matmul(node, b, a, 2, other, 5, sizes)
    if node.has_input(6):
        accumulator = b.binary("aten.add.Tensor", accumulator, b.to_dtype(node.input(6), "si32"))
    alpha = node.attr_float("alpha", 1.0)
    if not node.has_input(7):
        return b.cast_to(_float_product(node, b, accumulator, (1, 4), None, "f32", alpha), node.result_type())
    scale = multiplier(node, b, (1, 4), 7, None, 2)
    if alpha != 1.0:
        scale = b.binary("aten.mul.Tensor", scale, b.literal(np.float32(alpha), "f32"))
    y = requantize(node, b, accumulator, scale, _scalar(node, b, 8), node.result_info().element)
    return b.cast_to(y, node.result_type())


@converts("MatMulIntegerToFloat", since=1, domain=MICROSOFT)
def matmul_integer_to_float(node: OnnxNode, b: TorchBuilder):
    """Y = (A - a_zp) @ (B - b_zp) * a_scale * b_scale + bias; b's scale and zero point may be per column."""
    result = node.result_info()
    accumulator = integer_matmul(node, b, operand(node, b, 0), 4, operand(node, b, 1), 5, result.sizes)
    return b.cast_to(_float_product(node, b, accumulator, (2, 3), node.optional_input(6), result.element),
                     node.result_type())


@converts("DynamicQuantizeMatMul", since=1, domain=MICROSOFT)
def dynamic_quantize_matmul(node: OnnxNode, b: TorchBuilder):
    """A (float32) quantized to uint8 as DynamicQuantizeLinear does, then
    Y = (A_q - a_zp) @ (B - b_zp) * a_scale * b_scale + bias."""
    a = node.input(0)
    if b.info(a).element != "f32":
        node.fail(f"A is {b.info(a).element}; float32 is required")
    quantized, a_scale, a_zero = dynamic_quantize(node, b, a)
    result = node.result_info()
    accumulator = integer_matmul(node, b, quantized, a_zero, operand(node, b, 1), 3, result.sizes)
    b_scale = to_float(node, b, b.reshape(node.input(2), [-1]), "f32")
    scale = b.binary("aten.mul.Tensor", a_scale, b_scale)
    y = b.binary("aten.mul.Tensor", b.to_dtype(accumulator, "f32"), scale)
    if node.has_input(4):
        y = b.binary("aten.add.Tensor", y, node.input(4))
    return b.cast_to(y, node.result_type())


@converts("QuantizeLinear", since=1, domain=MICROSOFT)
def quantize_linear_microsoft(node: OnnxNode, b: TorchBuilder):
    """As ONNX's QuantizeLinear (per tensor, or per `axis` with 1-D parameters)."""
    return quantize_linear(node, b)


@converts("DequantizeLinear", since=1, domain=MICROSOFT)
def dequantize_linear_microsoft(node: OnnxNode, b: TorchBuilder):
    """As ONNX's DequantizeLinear (per tensor, or per `axis` with 1-D parameters)."""
    return dequantize_linear(node, b)


@converts("QLinearConv", since=1, domain=MICROSOFT)
def qlinear_conv_microsoft(node: OnnxNode, b: TorchBuilder):
    """As ONNX's QLinearConv; with `channels_last`, X and Y are N x spatial... x C."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    x, result = operand(node, b, 0), node.result_info()
    if not node.attr_int("channels_last", 0):
        return b.cast_to(qlinear_convolution(node, b, x, result), node.result_type())
    rank = node.rank(0)
    to_first = [0, rank - 1] + list(range(1, rank - 1))
    to_last = [0] + list(range(2, rank)) + [1]
    x = _permuted(b, x, to_first)
    y = qlinear_convolution(node, b, x, result.with_sizes([result.sizes[i] for i in to_first]))
    return b.cast_to(_permuted(b, y, to_last), node.result_type())


@converts("QLinearAveragePool", since=1, domain=MICROSOFT)
def qlinear_average_pool(node: OnnxNode, b: TorchBuilder):
    """Y = quantize(AveragePool(dequantize(X))) in float32, 1 to 3 spatial dims, `channels_last`
    (N x spatial... x C); pads at both ends of a dim must be equal, and ceil_mode is not supported."""
    expanded = as_qdq_on_tosa(node)
    if expanded is not None:
        return expanded
    x = _dequantize(node, b, operand(node, b, 0), 1, 2, "f32")
    rank = node.rank(0)
    count = rank - 2
    if not 1 <= count <= 3:
        node.fail(f"{count} spatial dims: only 1 to 3 are supported")
    channels_last = node.attr_int("channels_last", 0)
    if channels_last:
        x = _permuted(b, x, [0, rank - 1] + list(range(1, rank - 1)))
    if node.attr_int("ceil_mode", 0):
        node.fail("ceil_mode is not supported")
    kernel = node.attr_ints("kernel_shape")
    if len(kernel) != count:
        node.fail(f"attribute 'kernel_shape' {kernel} does not match {count} spatial dims")
    strides = node.spatial_ints("strides", count, 1)
    begins, ends = node.resolve_pads(list(b.info(x).sizes[2:]), kernel, strides, [1] * count)
    if begins != ends:
        node.fail(f"asymmetric pads (begins {begins}, ends {ends}) are not supported")
    result = node.result_info()
    sizes = list(result.sizes)
    if channels_last:
        sizes = [sizes[0], sizes[-1]] + sizes[1:-1]
    operands = [x, b.int_list(kernel), b.int_list(strides), b.int_list(begins), b.constant_bool(False),
                b.constant_bool(bool(node.attr_int("count_include_pad", 0)))]
    if count > 1:
        operands.append(b.constant_none())  # divisor_override
    pooled = b.op(f"aten.avg_pool{count}d", b.tensor_type(sizes, "f32"), *operands)
    if channels_last:
        pooled = _permuted(b, pooled, [0] + list(range(2, rank)) + [1])
    return _quantize(node, b, pooled, 3, 4)


def _permuted(b: TorchBuilder, x: ir.Value, order) -> ir.Value:
    info = b.info(x)
    return b.op("aten.permute", b.tensor_type([info.sizes[i] for i in order], info.element), x, b.int_list(order))

