"""`requantize(v, scale, zero point)`: a float value of the region as int8 (walk.py), op by op.

Monotone ops commute with rounding, so a clamp (Relu, Clip) becomes an int8 clamp to the quantized
bounds, a max pool an int8 max pool, a transpose, reshape, slice, gather or nearest resize the same
op on int8, a pad with its pad value quantized, a concatenation of its inputs each requantized (a
convolution's per-channel rescale then runs on NHWC, channels last, as TOSA's per_channel RESCALE
wants). The sum of two int8 tensors (Add; one may be a constant, a bias or a position embedding)
rescales both to int32 at a common scale of 2^-20 * 2 * max(scales) (TensorFlow Lite's left shift
of 20), adds, and rescales back; the product of two int8 tensors (Mul: SiLU's x * sigmoid(x), a
squeeze-excite gate) widens both to int32 without their zero points, multiplies and rescales.
Each handler takes the walk, the op, the scale and the zero point, and gives an i8 value or None.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .exact_forms import dequantized
from .integers import IntegerBuilder, float_constant, integer_constant, quantized, shape

_ADD_SHIFT = 20  # TensorFlow Lite's left shift for a quantized addition's common scale


def requantize_dequantized(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    form = dequantized(walk, op)
    if (form is not None and form.array is None and form.bits == 8 and form.scale.size == 1
            and float(form.scale.reshape(-1)[0]) == scale and form.zero_point == zero_point):
        return form.value
    return None


def clamp(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    x = walk.requantize(op.operands[0], scale, zero_point)
    if x is None:
        return None
    low = int(quantized(np.array(ir.FloatAttr(op.attributes["min_val"]).value), scale, zero_point))
    high = int(quantized(np.array(ir.FloatAttr(op.attributes["max_val"]).value), scale, zero_point))
    if (low, high) == (-128, 127):
        return x
    i8 = IntegerBuilder.integer(8)
    return IntegerBuilder(op, op.location).like("tosa.clamp", op, [x], 8, {
        "min_val": ir.IntegerAttr.get(i8, low), "max_val": ir.IntegerAttr.get(i8, high)})


def layout(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """Max pools, transposes and reshapes: the same op on int8 (rounding is monotone)."""
    x = walk.requantize(op.operands[0], scale, zero_point)
    if x is None:
        return None
    return IntegerBuilder(op, op.location).like(op.name, op, [x] + list(op.operands)[1:], 8)


def concat(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """A concatenation: each input requantized to the result's scale, then concatenated on int8."""
    parts = [walk.requantize(operand, scale, zero_point) for operand in op.operands]
    if any(part is None for part in parts):
        return None
    return IntegerBuilder(op, op.location).like("tosa.concat", op, parts, 8)


def resize(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """A nearest-neighbour resize picks values: the same op on int8 (a bilinear one interpolates)."""
    if "NEAREST" not in str(op.attributes["mode"]):
        return None
    return layout(walk, op, scale, zero_point)


def gather(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """A gather picks values (TorchToTosa's nearest upsampling): the same op on int8 values."""
    x = walk.requantize(op.operands[0], scale, zero_point)
    if x is None:
        return None
    return IntegerBuilder(op, op.location).like("tosa.gather", op, [x, op.operands[1]], 8)


def pad(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """A pad: the same op on int8, its float pad value quantized."""
    x, value = walk.requantize(op.operands[0], scale, zero_point), float_constant(op.operands[2])
    if x is None or value is None:
        return None
    b = IntegerBuilder(op, op.location)
    pad_value = b.constant(quantized(value, scale, zero_point).reshape(shape(op.operands[2])), 8)
    return b.like("tosa.pad", op, [x, op.operands[1], pad_value], 8)


def sum_(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """The sum of two int8 tensors, or of one and a constant: the tensors rescaled to int32 at a
    common scale, the constant made int32 in it, added, rescaled back."""
    forms = [walk.exact(operand) for operand in op.operands]
    if any(form is None or form.bits != 8 or (form.array is None and form.per_tensor_scale() is None)
           for form in forms) or all(form.array is not None for form in forms):
        return None
    if any(form.array is not None for form in forms):  # a scalar constant (GELU's 1 + erf): one table
        table = walk.looked_up(op.results[0], scale, zero_point)
        if table is not None:
            return table
    largest = max(float(np.max(form.scale)) for form in forms)
    common = 2 * largest / (1 << _ADD_SHIFT)
    b = IntegerBuilder(op, op.location)
    result_shape = shape(op.results[0])
    wide = []
    for operand, form in zip(op.operands, forms):
        if form.array is not None:
            wide.append(b.constant(np.round(np.broadcast_to(form.real(), shape(operand)) / common), 32))
        else:
            wide.append(b.rescale(form.value, np.array([form.per_tensor_scale() / common]), form.zero_point, 0, 32))
    if any(value is None for value in wide):
        return None
    total = b.like("tosa.add", op, wide, 32, shape=result_shape)
    return b.rescale(total, np.array([common / scale]), 0, zero_point, 8)


def product(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    """The product of two int8 tensors (a squeeze-excite gate): both widened to int32 without
    their zero points, multiplied, rescaled to int8."""
    forms = [walk.exact(operand) for operand in op.operands[:2]]
    if any(form is None or form.array is not None or form.bits != 8 or form.per_tensor_scale() is None
           for form in forms) or integer_constant(op.operands[2]) is None:
        return None
    b = IntegerBuilder(op, op.location)
    wide = [b.rescale(form.value, np.ones(1), form.zero_point, 0, 32) for form in forms]
    shift = b.constant(np.zeros(1), 8)
    value = b.like("tosa.mul", op, wide + [shift], 32)
    factor = np.prod([form.per_tensor_scale() for form in forms]) / scale
    return b.rescale(value, np.array([factor]), 0, zero_point, 8)


HANDLERS = {
    "tosa.custom": requantize_dequantized,
    "tosa.clamp": clamp,
    "tosa.max_pool2d": layout,
    "tosa.transpose": layout,
    "tosa.reshape": layout,
    "tosa.slice": layout,
    "tosa.add": sum_,
    "tosa.mul": product,
    "tosa.concat": concat,
    "tosa.resize": resize,
    "tosa.pad": pad,
    "tosa.gather": gather,
}
