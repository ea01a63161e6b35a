"""Softmax and LayerNormalization of one int8 tensor in integer arithmetic (walk.py's `requantize`).

Both read their input twice, through a reduction along a row, so neither is one rescale nor a
table. torch-mlir's TOSA lowering writes them as float ops, which these handlers recognize from
the op the QuantizeLinear reads:

- Softmax: `exp(x - reduce_max(x)) * reciprocal(reduce_sum(exp(...)))`. Integer form: x's codes
  widened to int32, minus the row's maximum (int32 `reduce_max`), so each difference d is one of
  the 256 values -255..0; d * 128 as int16 indexes an int16 `tosa.table` exactly (no
  interpolation: TABLE's index is (value + 32768) >> 7) whose entries are A * exp(scale * d), giving
  int32 A * 2^7 * exp(scale * d), with A (at most 32767) chosen so that a row's sum fits int32;
  the int32 row sum's reciprocal in fixed point (fixed_point.py); each exponential times it, the
  per-row power of two by an arithmetic right shift to the probability in Q16, then one rescale
  to the output's scale.
- LayerNormalization over the last axis, `(x - mean) * rsqrt(var + eps) [* gamma] [+ beta]`
  (gamma and beta literal, dequantized or not). Integer form, in x's codes q: the mean rounded
  to an integer m, d = q - m, D = sum d and V = sum d^2 (exact in int32 for rows up to 2^15),
  N * var = V - D^2 / N (D^2 / N rounded: off by at most 1/2 in N * var), Z = that + N * eps /
  scale^2 (rounded), at least 1; the inverse square root of Z in fixed point; the normalized value
  (N * d - D) / sqrt(N * Z) as an int32 product and shift, times gamma as int32 integers (12
  bits), plus beta as int32 in that scale, one per-channel rescale to the output (channels are
  the last axis, as TOSA's per-channel RESCALE wants).

Every op is in TOSA's PRO-INT profile (with EXT-INT16 for the int16 table), which Vela 5.2 maps to
the Ethos-U85's NPU. Results are within one output step of the float definition.
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ....conversion.onnx_to_torch.quantization.tosa_markers import DEQUANTIZE
from ...torch.rewriting import defining_op
from .fixed_point import FixedPointBuilder
from .integers import Integer, constant, element, shape
from .markers import is_marker, operator

_INT31 = 2**31
_GAMMA_BITS = 12  # gamma as integers of at most 2^12 in magnitude


def _op(value: ir.Value, name: str) -> ir.Operation | None:
    op = defining_op(value)
    return op if op is not None and op.name == name else None


def _axis(op: ir.Operation) -> int:
    return ir.IntegerAttr(op.attributes["axis"]).value


def _folded(value: ir.Value, depth: int = 0) -> np.ndarray | None:
    """The float32 values of a computation of constants (casts, products, sums, reshapes and
    dequantizations of literals: LayerNormalization's gamma and beta), else None."""
    op = defining_op(value)
    if op is None or depth > 16:
        return None
    if op.name in ("tosa.const", "arith.constant"):
        values = constant(value, ("f32", "f16", "i8", "i32"))
        return None if values is None else values.astype(np.float32)
    if is_marker(op) and operator(op) == DEQUANTIZE:
        return _folded(op.operands[1], depth + 1)
    if op.name == "tosa.cast" and element(value) == "f32":
        return _folded(op.operands[0], depth + 1)
    if op.name == "tosa.reshape":
        inner = _folded(op.operands[0], depth + 1)
        return None if inner is None else inner.reshape(shape(value))
    if op.name in ("tosa.mul", "tosa.add", "tosa.sub") and element(value) == "f32":
        a, b = _folded(op.operands[0], depth + 1), _folded(op.operands[1], depth + 1)
        if a is None or b is None:
            return None
        return {"tosa.mul": np.multiply, "tosa.add": np.add, "tosa.sub": np.subtract}[op.name](a, b)
    return None


def _scalar(value: ir.Value) -> float | None:
    values = _folded(value)
    if values is None or values.size == 0 or not np.all(values == values.reshape(-1)[0]):
        return None
    return float(values.reshape(-1)[0])


def _int8_input(walk, value: ir.Value) -> Integer | None:
    form = walk.exact(value)
    if form is None or form.array is not None or form.bits != 8 or form.per_tensor_scale() is None:
        return None
    return form


# -- Softmax -------------------------------------------------------------------------------------------------------

def _softmax_input(op: ir.Operation) -> tuple[ir.Value, int] | None:
    """(x, axis) of `exp(x - reduce_max(x)) * reciprocal(reduce_sum(exp(x - reduce_max(x))))`."""
    if op.name != "tosa.mul" or element(op.results[0]) != "f32":
        return None
    for exponentials, reciprocal in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        inverse = _op(reciprocal, "tosa.reciprocal")
        total = _op(inverse.operands[0], "tosa.reduce_sum") if inverse else None
        exponential = _op(exponentials, "tosa.exp")
        if total is None or exponential is None or total.operands[0] != exponentials:
            continue
        difference = _op(exponential.operands[0], "tosa.sub")
        top = _op(difference.operands[1], "tosa.reduce_max") if difference else None
        if top is None or top.operands[0] != difference.operands[0] or _axis(top) != _axis(total):
            continue
        return difference.operands[0], _axis(total)
    return None


def softmax(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    found = _softmax_input(op)
    if found is None:
        return None
    x_value, axis = found
    x = _int8_input(walk, x_value)
    if x is None or shape(x_value) != shape(op.results[0]):
        return None
    length = shape(x_value)[axis]
    amplitude = min(32767, (_INT31 - 1) // (128 * length))  # a row's sum of A * 2^7 * exp(...) fits int32
    if amplitude < 256:
        return None
    rank = len(shape(x_value))
    b = FixedPointBuilder(op, op.location)
    wide = b.rescale(x.value, np.ones(1), 0, 0, 32)  # the codes: the zero point cancels in x - max
    difference = b.binary("tosa.sub", wide, b.reduce("tosa.reduce_max", wide, axis))  # in [-255, 0]
    index = b.rescale(difference, np.array([128.0]), 0, 0, 16)  # table entry 256 + d, no interpolation
    steps = np.minimum(np.arange(513) - 256, 0).astype(np.float32)
    exponentials_at_steps = np.exp(np.float32(x.per_tensor_scale()) * steps, dtype=np.float32)  # as the float graph
    entries = np.round(amplitude * exponentials_at_steps.astype(np.float64))
    exponentials = b.create("tosa.table", ir.RankedTensorType.get(shape(x_value), b.integer(32)),
                            [index, b.constant(entries, 16)])
    inverse, leading = b.reciprocal(b.reduce("tosa.reduce_sum", exponentials, axis))
    # e / sum = (e * inverse >> 22) * 2^(leading - 39); in Q16: shifted right by 23 - leading (>= 7: sum >= 2^15)
    product = b.mul(exponentials, inverse, 22)
    probability = b.shift_right(product, b.binary("tosa.sub", b.int32(23, rank), leading))
    return b.rescale(probability, np.array([2.0**-16 / scale]), 0, zero_point, 8)


# -- LayerNormalization --------------------------------------------------------------------------------------------

def _layer_norm_parts(op: ir.Operation):
    """(x, epsilon, gamma, beta) of `(x - mean) * rsqrt(var + eps) [* gamma] [+ beta]` over x's last
    axis, gamma and beta (or None) as (their values as vectors along it, the operand); else None."""
    if element(op.results[0]) != "f32":
        return None
    length = shape(op.results[0])[-1]
    rank = len(shape(op.results[0]))
    affine = {"tosa.add": None, "tosa.mul": None}  # beta, then gamma
    for name in affine:
        if op is None or op.name != name:
            continue
        for index in (0, 1):
            values = _folded(op.operands[index])
            if values is not None and values.ndim == rank and all(size == 1 for size in values.shape[:-1]) \
                    and values.shape[-1] in (1, length):
                affine[name] = (np.broadcast_to(values.reshape(-1), [length]).astype(np.float64), op.operands[index])
                op = defining_op(op.operands[1 - index])
                break
    if op is None or op.name != "tosa.mul":
        return None
    for centered, root in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        rsqrt = _op(root, "tosa.rsqrt")
        plus_epsilon = _op(rsqrt.operands[0], "tosa.add") if rsqrt else None
        if plus_epsilon is None:
            continue
        epsilon, variance = _scalar(plus_epsilon.operands[1]), _op(plus_epsilon.operands[0], "tosa.mul")
        squares_sum = _op(variance.operands[0], "tosa.reduce_sum") if variance else None
        squares = _op(squares_sum.operands[0], "tosa.mul") if squares_sum else None
        difference = _op(centered, "tosa.sub")
        mean = _op(difference.operands[1], "tosa.mul") if difference else None
        total = _op(mean.operands[0], "tosa.reduce_sum") if mean else None
        if (epsilon is None or squares is None or total is None or squares.operands[0] != centered
                or squares.operands[1] != centered or total.operands[0] != difference.operands[0]
                or _axis(total) != rank - 1 or _axis(squares_sum) != rank - 1
                or not math.isclose(_scalar(mean.operands[1]) or 0, 1 / length, rel_tol=1e-6)
                or not math.isclose(_scalar(variance.operands[1]) or 0, 1 / length, rel_tol=1e-6)):
            continue
        return difference.operands[0], epsilon, affine["tosa.mul"], affine["tosa.add"]
    return None


def layer_norm(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    parts = _layer_norm_parts(op)
    if parts is None:
        return None
    x_value, epsilon, gamma, beta = parts
    x = _int8_input(walk, x_value)
    if x is None or shape(x_value) != shape(op.results[0]) or not epsilon >= 0:
        return None
    length, rank = shape(x_value)[-1], len(shape(x_value))
    x_scale = x.per_tensor_scale()
    gamma_scale, gamma_integers = _gamma_integers(walk, gamma, length)
    beta = np.zeros(length) if beta is None else beta[0]
    # N * var in codes^2 with `fraction` bits: V = sum d^2 <= N * 255^2 must fit int32 with them
    fraction = max(0, 30 - math.ceil(math.log2(length * 255**2)))
    epsilon_codes = round(length * epsilon / x_scale**2 * 2**fraction)
    if length >= 2**15 or epsilon_codes >= 2**30:
        return None
    # t = ((N (q - mean)) << half) * x >> shift is the normalized value v (|v| <= sqrt(N)) in units of
    # 2^(shift - 43.5 + fraction / 2) / sqrt(N) (fixed_point.inverse_square_root). N (q - mean) is at most
    # sqrt(N * N * Z) and 2^half at most 2^15.5 / sqrt(Z * 2^fraction): the shifted value fits int32.
    if length * 2.0 ** (16.5 - fraction / 2) >= 2**31:
        return None
    largest_gamma = float(np.max(np.abs(gamma_integers))) if gamma_integers is not None else 1.0
    for shift in range(0, 64):
        unit = 2.0 ** (shift - 43.5 + fraction / 2) / math.sqrt(length) * gamma_scale
        bias = np.round(beta / unit)
        bound = 2 * length * 2.0 ** (43.5 - fraction / 2 - shift) * max(largest_gamma, 1.0)
        if bound + float(np.max(np.abs(bias))) < 2**30:
            break
    else:
        return None
    b = FixedPointBuilder(op, op.location)
    wide = b.rescale(x.value, np.ones(1), 0, 0, 32)  # the codes: the zero point cancels in x - mean
    mean = b.rescale(b.reduce("tosa.reduce_sum", wide, rank - 1), np.array([1.0 / length]), 0, 0, 32)
    centered = b.binary("tosa.sub", wide, mean)
    offset = b.reduce("tosa.reduce_sum", centered, rank - 1)  # D = sum (q - m), |D| <= N / 2
    squares = b.mul(b.reduce("tosa.reduce_sum", b.mul(centered, centered), rank - 1), b.int32(2**fraction, rank))
    correction = b.rescale(b.mul(offset, offset), np.array([2.0**fraction / length]), 0, 0, 32)
    variance = b.binary("tosa.add", b.binary("tosa.sub", squares, correction), b.int32(epsilon_codes, rank))
    variance = b.binary("tosa.maximum", variance, b.int32(1, rank))  # N * (var + eps) in codes^2, >= 2^-fraction
    numerator = b.binary("tosa.sub", b.mul(centered, b.int32(length, rank)), offset)  # N (q - mean)
    inverse, half = b.inverse_square_root(variance)
    normalized = b.mul(b.binary("tosa.logical_left_shift", numerator, half), inverse, shift)
    if gamma_integers is not None:
        normalized = b.mul(normalized, b.int32(gamma_integers.reshape([1] * (rank - 1) + [length]), rank))
    if np.any(bias != 0):
        normalized = b.binary("tosa.add", normalized, b.int32(bias.reshape([1] * (rank - 1) + [length]), rank))
    return b.rescale(normalized, np.array([unit / scale]), 0, zero_point, 8)


def _gamma_integers(walk, gamma, length: int) -> tuple[float, np.ndarray | None]:
    """(scale, integers) of gamma: a dequantized per-tensor literal's own integers, else gamma's
    values rounded to _GAMMA_BITS bits; (1, None) without gamma."""
    if gamma is None:
        return 1.0, None
    values, operand = gamma
    form = walk.exact(operand)
    if form is not None and form.array is not None and form.per_tensor_scale() is not None:
        integers = np.broadcast_to(form.array.astype(np.float64) - form.zero_point, shape(operand)).reshape(-1)
        if integers.size in (1, length) and np.allclose(form.per_tensor_scale() * integers, values, rtol=1e-5):
            return form.per_tensor_scale(), np.broadcast_to(integers, [length])
    largest = float(np.max(np.abs(values)))
    scale = 2.0 ** (math.ceil(math.log2(largest)) - _GAMMA_BITS) if largest > 0 else 1.0
    return scale, np.round(values / scale)


def _product(walk, op: ir.Operation, scale: float, zero_point: int) -> ir.Value | None:
    result = softmax(walk, op, scale, zero_point)
    return result if result is not None else layer_norm(walk, op, scale, zero_point)


HANDLERS = {"tosa.mul": _product, "tosa.add": layer_norm}
