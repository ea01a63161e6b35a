"""`exact(v)`: a float value of the region as integers (walk.py), op by op.

A dequantized tensor (int8, or an int32 bias); transposes, reshapes and slices of one;
`tosa.conv2d`/`depthwise_conv2d`/`matmul` of int8 operands (int32 accumulators, zero points as the
ops' operands, the float bias made int32 in the accumulator's scale); an int32 `tosa.add` of a
constant in the same scale (a Gemm's bias) or of a tensor in the same scale; `tosa.reduce_sum`
(widened to int32 first); `tosa.mul` by a positive constant (a mean's 1/N goes into the scale).
Each handler takes the walk and the op, and gives an `Integer` or None.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ....conversion.onnx_to_torch.quantization.tosa_markers import DEQUANTIZE
from .integers import (SAME_SCALE, Integer, IntegerBuilder, compressed, element, float_constant, integer_constant,
                       shape, shape_constant)
from .markers import flipped, is_marker, operator, parameters, signed


def dequantized(walk, op: ir.Operation) -> Integer | None:
    if not is_marker(op) or operator(op) != DEQUANTIZE:
        return None
    marker_parameters = parameters(op)
    q = op.operands[0]
    if element(q) not in ("i8", "i32") or len(set(marker_parameters["zero_point"])) != 1:
        return None
    if marker_parameters.get("unsigned"):  # uint8 bits read through a layout op (a Flatten) or an input
        q = flipped(q, op)
        marker_parameters = signed(marker_parameters)
    array = integer_constant(q)
    rank = len(shape(q))
    scale = np.array(marker_parameters["scale"], np.float64)
    if marker_parameters["axis"] is None:
        scale = scale[:1].reshape([1] * rank)
    else:
        scale = scale.reshape([-1 if axis == marker_parameters["axis"] else 1 for axis in range(rank)])
    bits = 8 if element(q) == "i8" else 32
    return Integer(None if array is not None else q, array, scale, marker_parameters["zero_point"][0], bits)


def transpose(walk, op: ir.Operation) -> Integer | None:
    x = walk.exact(op.operands[0])
    if x is None:
        return None
    perms = list(ir.DenseI32ArrayAttr(op.attributes["perms"]))
    scale = np.transpose(x.scale, perms)
    if x.array is not None:
        return Integer(None, np.transpose(x.array, perms), scale, x.zero_point, x.bits)
    value = IntegerBuilder(op, op.location).like("tosa.transpose", op, [x.value], x.bits)
    return Integer(value, None, scale, x.zero_point, x.bits)


def reshape(walk, op: ir.Operation) -> Integer | None:
    x = walk.exact(op.operands[0])
    if x is None:
        return None
    result_shape = shape(op.results[0])
    scale = compressed(np.broadcast_to(x.scale, shape(op.operands[0])).reshape(result_shape))
    if x.array is not None:
        return Integer(None, x.array.reshape(result_shape), scale, x.zero_point, x.bits)
    value = IntegerBuilder(op, op.location).like("tosa.reshape", op, [x.value, op.operands[1]], x.bits)
    return Integer(value, None, scale, x.zero_point, x.bits)


def slice_(walk, op: ir.Operation) -> Integer | None:
    """A slice (TorchToTosa cuts a strided convolution's input to the windows it reads) on the
    integers, the scale along every dim it varies on sliced alike."""
    x = walk.exact(op.operands[0])
    start, size = shape_constant(op.operands[1]), shape_constant(op.operands[2])
    if x is None or x.array is not None or start is None or size is None:
        return None
    window = tuple(slice(begin, begin + count) if extent > 1 else slice(None)
                   for begin, count, extent in zip(start, size, x.scale.shape))
    value = IntegerBuilder(op, op.location).like("tosa.slice", op, [x.value, op.operands[1], op.operands[2]], x.bits)
    return Integer(value, None, x.scale[window], x.zero_point, x.bits)


def convolution(walk, op: ir.Operation) -> Integer | None:
    """tosa.conv2d (weights [O, KH, KW, I]) or depthwise_conv2d ([KH, KW, C, M]) on int8."""
    x, weights = walk.exact(op.operands[0]), walk.exact(op.operands[1])
    if x is None or weights is None or x.bits != 8 or weights.bits != 8:
        return None
    x_scale = x.per_tensor_scale()
    if x_scale is None:
        return None
    weight_scale = np.broadcast_to(weights.scale, shape(op.operands[1]))
    if op.name == "tosa.conv2d":
        per_output = weight_scale[:, 0, 0, 0]
        uniform = np.all(weight_scale == per_output[:, None, None, None])
    else:
        per_output = weight_scale[0, 0].reshape(-1)
        uniform = np.all(weight_scale == weight_scale[:1, :1])
    if not uniform:
        return None
    accumulator_scale = x_scale * per_output
    bias = _bias(walk, op.operands[2], accumulator_scale)
    if bias is None:
        return None
    b = IntegerBuilder(op, op.location)
    x_value = x.value if x.array is None else b.constant(x.array, 8)
    weight_value = weights.value if weights.array is None else b.constant(weights.array, 8)
    value = b.like(op.name, op, [x_value, weight_value, b.constant(bias, 32),
                                 b.zero_point(x.zero_point, 8), b.zero_point(weights.zero_point, 8)],
                   32, {"acc_type": ir.TypeAttr.get(b.integer(32))})
    return Integer(value, None, accumulator_scale.reshape([1, 1, 1, -1]), 0, 32)


def _bias(walk, bias: ir.Value, accumulator_scale: np.ndarray) -> np.ndarray | None:
    """The bias as int32 in the accumulator's scale (one per output channel)."""
    form = walk.exact(bias)
    if form is not None and form.array is not None:
        if form.bits == 32 and form.zero_point == 0 and np.allclose(
                np.broadcast_to(form.scale, form.array.shape), accumulator_scale, rtol=SAME_SCALE, atol=0):
            integers = form.array
        else:
            integers = np.round(form.real() / accumulator_scale)
    else:
        real = float_constant(bias)
        if real is None:
            return None
        integers = np.round(real / accumulator_scale)
    integers = np.broadcast_to(integers, accumulator_scale.shape)
    if np.any(np.abs(integers) >= 2**31):
        return None
    return integers.astype(np.int64)


def matmul(walk, op: ir.Operation) -> Integer | None:
    """tosa.matmul [N, H, C] x [N, C, W] of int8 (weights, or two activations: attention's products):
    scales may vary along H (a) and W (b)."""
    a, b_form = walk.exact(op.operands[0]), walk.exact(op.operands[1])
    if a is None or b_form is None or a.bits != 8 or b_form.bits != 8:
        return None
    a_scale = np.broadcast_to(a.scale, shape(op.operands[0]))
    b_scale = np.broadcast_to(b_form.scale, shape(op.operands[1]))
    if not (np.all(a_scale == a_scale[:, :, :1]) and np.all(b_scale == b_scale[:, :1, :])):
        return None
    b = IntegerBuilder(op, op.location)
    operands = [form.value if form.array is None else b.constant(form.array, 8) for form in (a, b_form)]
    value = b.like("tosa.matmul", op, operands + [b.zero_point(a.zero_point, 8), b.zero_point(b_form.zero_point, 8)], 32)
    return Integer(value, None, compressed(a_scale[:, :, :1] * b_scale[:, :1, :]), 0, 32)


def add(walk, op: ir.Operation) -> Integer | None:
    """An int32 sum with a constant (a bias) or with a tensor of the same scale."""
    forms = [walk.exact(operand) for operand in op.operands]
    constants = [float_constant(operand) if form is None else (form.real() if form.array is not None else None)
                 for operand, form in zip(op.operands, forms)]
    result_shape = shape(op.results[0])
    b = IntegerBuilder(op, op.location)
    if constants[0] is None and constants[1] is None:
        if any(form is None or form.bits != 32 or form.zero_point for form in forms):
            return None
        scales = [np.broadcast_to(form.scale, result_shape) for form in forms]
        if not np.allclose(scales[0], scales[1], rtol=SAME_SCALE, atol=0):
            return None
        value = b.like("tosa.add", op, [forms[0].value, forms[1].value], 32)
        return Integer(value, None, forms[0].scale, 0, 32)
    tensor_index = 0 if constants[0] is None else 1
    tensor, addend = forms[tensor_index], constants[1 - tensor_index]
    if tensor is None or addend is None or tensor.array is not None or tensor.bits != 32 or tensor.zero_point:
        return None
    scale = np.broadcast_to(tensor.scale, result_shape)
    integers = np.round(np.broadcast_to(addend, result_shape) / scale)
    if np.any(np.abs(integers) >= 2**31):
        return None
    operands = [tensor.value, b.constant(integers, 32)]
    value = b.like("tosa.add", op, operands if tensor_index == 0 else operands[::-1], 32)
    return Integer(value, None, tensor.scale, 0, 32)


def reduce_sum(walk, op: ir.Operation) -> Integer | None:
    x = walk.exact(op.operands[0])
    if x is None or x.array is not None:
        return None
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    scale = np.broadcast_to(x.scale, shape(op.operands[0]))
    if not np.all(scale == np.take(scale, [0], axis=axis)):
        return None
    b = IntegerBuilder(op, op.location)
    wide = x.value
    if x.bits == 8:
        wide = b.rescale(x.value, np.ones(1), x.zero_point, 0, 32)
    elif x.zero_point:
        return None
    value = b.like("tosa.reduce_sum", op, [wide], 32)
    return Integer(value, None, compressed(np.take(scale, [0], axis=axis)), 0, 32)


def multiply(walk, op: ir.Operation) -> Integer | None:
    """A product by a positive float constant: the constant goes into the scale."""
    x, factor = walk.exact(op.operands[0]), float_constant(op.operands[1])
    if x is None or factor is None or not np.all(factor > 0) or shape(op.operands[0]) != shape(op.results[0]):
        return None
    shift = integer_constant(op.operands[2]) if len(op.operands) > 2 else np.zeros(1)
    if shift is None or np.any(shift != 0):
        return None
    return Integer(x.value, x.array, compressed(x.scale * factor), x.zero_point, x.bits)


HANDLERS = {
    "tosa.custom": dequantized,
    "tosa.transpose": transpose,
    "tosa.reshape": reshape,
    "tosa.slice": slice_,
    "tosa.conv2d": convolution,
    "tosa.depthwise_conv2d": convolution,
    "tosa.matmul": matmul,
    "tosa.add": add,
    "tosa.reduce_sum": reduce_sum,
    "tosa.mul": multiply,
}
