"""Building blocks of integer TOSA: constants, `tosa.rescale` with its multiplier and shift.

A real factor m > 0 is applied as `(value * multiplier + 2^(shift - 1)) >> shift` (TOSA's RESCALE
with scale32 and SINGLE_ROUND): m = f * 2^e with f in [0.5, 1) (frexp), multiplier = round(f * 2^31)
(an int32 of 31 significant bits), shift = 31 - e, which TOSA bounds to [2, 62]. This is how
TensorFlow Lite's QuantizeMultiplier and its TOSA legalization compute them; the product is exact
in 64 bits, so the one rounding is the final shift's (half up, where ONNX rounds half to even: one
step apart on exact ties).
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

_MOST_SHIFT = 62
_LEAST_SHIFT = 2


def multiplier_and_shift(factor: float) -> tuple[int, int] | None:
    """(multiplier, shift) that apply `factor` (module docstring); None for a factor of 2^29 or
    more (no shift of at least 2 holds it) or not > 0."""
    if not factor > 0 or not math.isfinite(factor):
        return None
    mantissa, exponent = math.frexp(factor)
    multiplier = round(mantissa * (1 << 31))
    if multiplier == 1 << 31:
        multiplier //= 2
        exponent += 1
    shift = 31 - exponent
    if shift < _LEAST_SHIFT:
        return None
    if shift > _MOST_SHIFT:  # below 2^-31: fewer significant bits, or none (the factor rounds every value to 0)
        multiplier = (multiplier + (1 << (shift - _MOST_SHIFT - 1))) >> (shift - _MOST_SHIFT)
        shift = _MOST_SHIFT
    return multiplier, shift


class TosaBuilder:
    """TOSA ops in front of an op, at a location."""

    def __init__(self, before: ir.Operation, location: ir.Location):
        self.ip, self.location = ir.InsertionPoint(before), location

    @staticmethod
    def integer(bits: int) -> ir.Type:
        return ir.IntegerType.get_signless(bits)

    def create(self, name: str, result_type: ir.Type, operands: list, attributes: dict | None = None) -> ir.Value:
        return ir.Operation.create(name, results=[result_type], operands=list(operands), attributes=attributes or {},
                                   loc=self.location, ip=self.ip).results[0]

    def constant(self, array: np.ndarray, bits: int) -> ir.Value:
        """A `tosa.const` of the integers `array` as i<bits>."""
        tensor_type = ir.RankedTensorType.get(list(array.shape), self.integer(bits))
        values = np.ascontiguousarray(array.astype({8: np.int8, 32: np.int32}[bits]))
        attribute = ir.DenseElementsAttr.get(values, type=tensor_type)
        return self.create("tosa.const", tensor_type, [], {"values": attribute})

    def zero_point(self, value: int, bits: int) -> ir.Value:
        return self.constant(np.array([value]), bits)

    def rescale(self, x: ir.Value, factors: np.ndarray, input_zero_point: int, output_zero_point: int,
                bits: int) -> ir.Value | None:
        """x (i8 or i32) times `factors` (one, or one per element of x's last dim), with its zero
        point taken off first and `output_zero_point` added, as i<bits>; None when a factor has no
        multiplier and shift."""
        factors = np.asarray(factors, np.float64).reshape(-1)
        pairs = [multiplier_and_shift(float(factor)) for factor in factors]
        if any(pair is None for pair in pairs):
            return None
        x_type = ir.RankedTensorType(x.type)
        x_bits = ir.IntegerType(x_type.element_type).width
        result_type = ir.RankedTensorType.get(x_type.shape, self.integer(bits))
        multipliers = self.constant(np.array([pair[0] for pair in pairs]), 32)
        shifts = self.constant(np.array([pair[1] for pair in pairs]), 8)
        operands = [x, multipliers, shifts, self.zero_point(input_zero_point, x_bits),
                    self.zero_point(output_zero_point, bits)]
        return self.create("tosa.rescale", result_type, operands, {
            "scale32": ir.BoolAttr.get(True),
            "rounding_mode": ir.Attribute.parse("#tosa.rounding_mode<SINGLE_ROUND>"),
            "per_channel": ir.BoolAttr.get(len(pairs) > 1),
            "input_unsigned": ir.BoolAttr.get(False),
            "output_unsigned": ir.BoolAttr.get(False),
        })

    def like(self, name: str, original: ir.Operation, operands: list, bits: int, attributes: dict | None = None,
             shape=None) -> ir.Value:
        """`name` with `original`'s attributes (updated by `attributes`) on integer operands, its
        result of `original`'s shape (or `shape`) as i<bits>."""
        merged = {original.attributes[index].name: original.attributes[index].attr
                  for index in range(len(original.attributes))}
        merged.update(attributes or {})
        result_shape = ir.RankedTensorType(original.results[0].type).shape if shape is None else shape
        return self.create(name, ir.RankedTensorType.get(result_shape, self.integer(bits)), operands, merged)
