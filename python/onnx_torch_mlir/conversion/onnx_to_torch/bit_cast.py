"""BitCast (opset 26): the same bits read as another element type of the same width.

Between integer types (and bool as an 8-bit integer) the bits survive a value conversion
that wraps modulo 2^width, so `aten.to.dtype` is the bit cast on every backend (uint8 to
bool is `!= 0`: a bool byte other than 0 or 1 has no meaning). Where a float type is
involved the op is `aten.view.dtype` for StableHLO (`stablehlo.bitcast_convert`) and for
Torch output; torch-mlir lowers it to neither Linalg nor TOSA, so for those the float is
taken apart (or built) in exact arithmetic: sign, biased exponent (a binary search over a
table of powers of two) and mantissa, each step exact in f32 (f64 for f64). A NaN becomes
the canonical quiet NaN there (its payload and sign are not observable by arithmetic).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import FLOAT_ELEMENTS

_WIDTHS = {
    "i1": 8, "si8": 8, "ui8": 8, "si16": 16, "ui16": 16, "si32": 32, "ui32": 32, "si64": 64, "ui64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "f8E4M3FN": 8, "f8E4M3FNUZ": 8, "f8E5M2": 8, "f8E5M2FNUZ": 8,
}


@converts("BitCast", since=26)
def bit_cast(node: OnnxNode, b: TorchBuilder):
    """Y has X's bits as element type `to` (same width, same shape)."""
    x = node.input(0)
    source = node.input_info(0).element
    target = node.attr_element_type("to")
    widths = _WIDTHS.get(source), _WIDTHS.get(target)
    if None in widths:
        node.fail(f"BitCast from {source} to {target} is not supported")
    if widths[0] != widths[1]:
        node.fail(f"'to' ({target}, {widths[1]} bits) must have the width of the input ({source}, {widths[0]} bits)")
    if source == target:
        return x
    if source not in FLOAT_ELEMENTS and target not in FLOAT_ELEMENTS:
        if target == "i1":
            return b.op("aten.ne.Scalar", node.result_type(), x, b.constant_int(0))
        return b.to_dtype(x, target)
    if node.target not in ("linalg-on-tensors", "tosa"):
        return b.op("aten.view.dtype", node.result_type(), x, b.dtype(target))
    if source in FLOAT_ELEMENTS and target in FLOAT_ELEMENTS:
        node.fail(f"BitCast from {source} to {target} (float to float) is not supported on {node.target}")
    for element in (source, target):
        if element in FLOAT_ELEMENTS and element not in FLOAT_LAYOUTS:
            node.fail(f"BitCast of {element} is not supported on {node.target}")
    if node.target == "tosa" and widths[0] == 64:
        node.fail(f"BitCast from {source} to {target} takes 64-bit arithmetic, which TOSA does not have")
    if source in FLOAT_ELEMENTS:
        return b.to_dtype(_float_to_bits(b, x, source), target)
    return _bits_to_float(b, x, source, target)


# float element: (exponent bits, mantissa bits, the float type the arithmetic runs in)
FLOAT_LAYOUTS = {"f16": (5, 10, "f32"), "bf16": (8, 7, "f32"), "f32": (8, 23, "f32"), "f64": (11, 52, "f64")}
NUMPY_FLOATS = {"f32": np.float32, "f64": np.float64}


def _table(b: TorchBuilder, exponent_bits: int, compute: str, zero_entry: float, top_entry: float) -> ir.Value:
    """2^(k - bias) for each biased exponent k, with entries 0 and 2^E - 1 given."""
    bias = 2 ** (exponent_bits - 1) - 1
    values = np.exp2(np.arange(2**exponent_bits, dtype=np.float64) - bias)
    values[0], values[-1] = zero_entry, top_entry
    return b.literal(values.astype(NUMPY_FLOATS[compute]), compute)


def _lookup(b: TorchBuilder, table: ir.Value, index: ir.Value) -> ir.Value:
    """table[index] elementwise (index_select of the flattened index, reshaped back)."""
    info = b.info(index)
    flat = b.flatten(index)
    element = b.info(table).element
    picked = b.op("aten.index_select", b.tensor_type(b.info(flat).sizes, element), table, b.constant_int(0), flat)
    return b.reshape(picked, b.dims(index), info.sizes) if info.rank != 1 else picked


def _where(b: TorchBuilder, condition: ir.Value, value: ir.Value, other: ir.Value) -> ir.Value:
    sizes = b.info(b.broadcast_type(condition, b.broadcast_type(value, other))).sizes
    return b.op("aten.where.self", b.tensor_type(sizes, b.info(value).element), condition, value, other)


def _compare(b: TorchBuilder, name: str, x: ir.Value, scalar) -> ir.Value:
    info = b.info(x)
    return b.op(name, b.tensor_type(info.sizes, "i1"), x, b.constant_scalar(scalar, info.element))


def _integer_element(width: int) -> str:
    """The integer type the bit arithmetic runs in: si32 up to 32 bits (TOSA has no si64)."""
    return "si32" if width <= 32 else "si64"


def _one_over(b: TorchBuilder, value: ir.Value) -> ir.Value:
    """1 / value as a division (Linalg's aten.reciprocal asserts a non-zero operand)."""
    one = b.scalar_tensor_literal(1.0, b.info(value).element)
    return b.op("aten.div.Tensor", value.type, one, value)


def _float_to_bits(b: TorchBuilder, x: ir.Value, source: str) -> ir.Value:
    """The bits of float `x` as si32 (si64 for 64 bits), the sign bit as the integer's sign
    for 32 and 64 bits."""
    exponent_bits, mantissa_bits, compute = FLOAT_LAYOUTS[source]
    bias, top = 2 ** (exponent_bits - 1) - 1, 2**exponent_bits - 1
    width = 1 + exponent_bits + mantissa_bits
    integer = _integer_element(width)
    value = b.to_dtype(x, compute)
    negative = _compare(b, "aten.lt.Scalar", value, 0.0)
    # -0.0: 1 / -0.0 is -inf.
    minus_zero = b.op("aten.logical_and", negative.type, _compare(b, "aten.eq.Scalar", value, 0.0),
                      _compare(b, "aten.lt.Scalar", _one_over(b, value), 0.0))
    negative = b.op("aten.logical_or", negative.type, negative, minus_zero)
    magnitude = b.unary("aten.abs", value)
    is_nan = b.op("aten.ne.Tensor", negative.type, magnitude, magnitude)
    # The largest k whose threshold 2^(k - bias) is <= |x| (0 for 0 and subnormals, top for inf).
    thresholds = _table(b, exponent_bits, compute, 0.0, np.inf)
    exponent = b.op("aten.zeros_like", b.tensor_type(b.info(value).sizes, integer), value, b.dtype(integer),
                    b.constant_none(), b.constant_none(), b.constant_none(), b.constant_none())
    for bit in reversed(range(exponent_bits)):
        candidate = b.op("aten.add.Scalar", exponent.type, exponent, b.constant_int(2**bit), b.constant_int(1))
        reached = b.op("aten.ge.Tensor", negative.type, magnitude, _lookup(b, thresholds, candidate))
        exponent = _where(b, reached, candidate, exponent)
    powers = _table(b, exponent_bits, compute, 2.0 ** (1 - bias), 1.0)
    normal_fraction = b.scalar_op("aten.sub.Scalar", b.binary("aten.div.Tensor", magnitude, _lookup(b, powers, exponent)),
                                  1.0)
    subnormal_fraction = b.scalar_op("aten.mul.Scalar", magnitude, 2.0 ** (bias - 1))
    is_normal = _compare(b, "aten.gt.Scalar", exponent, 0)
    fraction = _where(b, is_normal, normal_fraction, subnormal_fraction)
    mantissa = b.to_dtype(b.scalar_op("aten.mul.Scalar", fraction, 2.0**mantissa_bits), integer)
    is_top = _compare(b, "aten.eq.Scalar", exponent, top)
    mantissa = _where(b, is_top, b.scalar_tensor_literal(0, integer), mantissa)
    mantissa = _where(b, is_nan, b.scalar_tensor_literal(2 ** (mantissa_bits - 1), integer), mantissa)
    exponent = _where(b, is_nan, b.scalar_tensor_literal(top, integer), exponent)
    negative = b.op("aten.logical_and", negative.type, negative, b.op("aten.logical_not", is_nan.type, is_nan))
    bits = b.binary("aten.add.Tensor", b.op("aten.mul.Scalar", exponent.type, exponent,
                                            b.constant_int(2**mantissa_bits)), mantissa)
    sign_value = -(2 ** (width - 1)) if width in (32, 64) else 2 ** (width - 1)
    return _where(b, negative, b.op("aten.add.Scalar", bits.type, bits, b.constant_int(sign_value),
                                    b.constant_int(1)), bits)


def _bits_to_float(b: TorchBuilder, x: ir.Value, source: str, target: str) -> ir.Value:
    """The float `target` whose bits are the integers `x`."""
    exponent_bits, mantissa_bits, compute = FLOAT_LAYOUTS[target]
    bias, top = 2 ** (exponent_bits - 1) - 1, 2**exponent_bits - 1
    width = 1 + exponent_bits + mantissa_bits
    integer = _integer_element(width)
    bits = b.to_dtype(x, integer)
    if width in (32, 64):
        negative = _compare(b, "aten.lt.Scalar", bits, 0)
        low = _where(b, negative, b.op("aten.sub.Scalar", bits.type, bits, b.constant_int(-(2 ** (width - 1))),
                                       b.constant_int(1)), bits)
    else:
        # The unsigned reading of the `width` low bits, then the sign bit apart.
        unsigned = _where(b, _compare(b, "aten.lt.Scalar", bits, 0),
                          b.op("aten.add.Scalar", bits.type, bits, b.constant_int(2**width), b.constant_int(1)), bits)
        negative = _compare(b, "aten.ge.Scalar", unsigned, 2 ** (width - 1))
        low = _where(b, negative, b.op("aten.sub.Scalar", bits.type, unsigned, b.constant_int(2 ** (width - 1)),
                                       b.constant_int(1)), unsigned)
    # Shifts and masks, not a division (TOSA divides integers through floats).
    exponent = b.op("aten.bitwise_right_shift.Tensor", bits.type, low,
                    b.scalar_tensor_literal(mantissa_bits, integer))
    mantissa = b.op("aten.bitwise_and.Scalar", bits.type, low, b.constant_int(2**mantissa_bits - 1))
    is_normal = _compare(b, "aten.gt.Scalar", exponent, 0)
    implicit = b.op("aten.mul.Scalar", exponent.type, b.to_dtype(is_normal, integer),
                    b.constant_int(2**mantissa_bits))
    significand = b.to_dtype(b.binary("aten.add.Tensor", mantissa, implicit), compute)
    fraction = b.scalar_op("aten.mul.Scalar", significand, 2.0**-mantissa_bits)
    powers = _table(b, exponent_bits, compute, 2.0 ** (1 - bias), 1.0)
    value = b.binary("aten.mul.Tensor", fraction, _lookup(b, powers, exponent))
    special = _where(b, _compare(b, "aten.eq.Scalar", mantissa, 0), b.scalar_tensor_literal(np.inf, compute),
                     b.scalar_tensor_literal(np.nan, compute))
    value = _where(b, _compare(b, "aten.eq.Scalar", exponent, top), special, value)
    value = _where(b, negative, b.negate(value), value)
    return b.to_dtype(value, target)
