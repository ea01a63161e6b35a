"""int32 fixed-point arithmetic in TOSA's integer profile: a reciprocal and an inverse square root.

Softmax divides by a row's sum and LayerNormalization by a row's standard deviation; TOSA's
integer profile has no division by a tensor (INTDIV truncates to an integer quotient) and Vela
takes no float op. Both are Newton iterations on a value normalized to [0.5, 1) or [0.25, 1) by
its count of leading zeros (`tosa.clz`, `tosa.logical_left_shift`), in int32 with Q-format
products: `tosa.mul` of int32 with a shift s computes (a * b + 2^(s-1)) >> s from the exact 64-bit
product, the rounding product of two fixed-point numbers. Every op here is in TOSA 1.0's PRO-INT
profile, which Vela 5.2 maps to the Ethos-U85 NPU in full.

Precision (checked over int32 inputs by sampling, in a numpy model of TOSA's integer semantics):
both to about 2e-9 relative, as a 30-bit mantissa and a power of two the caller applies.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .integers import IntegerBuilder, shape

# 1/sqrt(y) on [0.25, 1) ~ _RSQRT_A - _RSQRT_B * y (the linear guess of least maximum relative error, 8.6%);
# three Newton steps take it to 2e-9 before the final shift.
_RSQRT_A, _RSQRT_B = 2.134, 1.22
_RSQRT_STEPS = 3
# 1/y on [0.5, 1) ~ 48/17 - 32/17 * y (error at most 1/17); three steps take it to 2e-9.
_RECIPROCAL_STEPS = 3


class FixedPointBuilder(IntegerBuilder):
    """int32 TOSA ops in front of an op; operands of equal rank broadcast as TOSA's do."""

    def int32(self, values, rank: int) -> ir.Value:
        """An int32 constant: a scalar as a [1] * rank tensor, else the array as it is."""
        array = np.asarray(values)
        return self.constant(array.reshape([1] * rank) if array.ndim == 0 else array, 32)

    def binary(self, name: str, a: ir.Value, b: ir.Value, attributes: dict | None = None) -> ir.Value:
        result_shape = list(np.broadcast_shapes(tuple(shape(a)), tuple(shape(b))))
        return self.create(name, ir.RankedTensorType.get(result_shape, self.integer(32)), [a, b], attributes)

    def unary(self, name: str, a: ir.Value, attributes: dict | None = None) -> ir.Value:
        return self.create(name, a.type, [a], attributes)

    def mul(self, a: ir.Value, b: ir.Value, shift: int = 0) -> ir.Value:
        """a * b >> shift, rounded (the product is exact in 64 bits; the result must fit int32)."""
        result_shape = list(np.broadcast_shapes(tuple(shape(a)), tuple(shape(b))))
        return self.create("tosa.mul", ir.RankedTensorType.get(result_shape, self.integer(32)),
                           [a, b, self.constant(np.array([shift]), 8)])

    def shift_right(self, a: ir.Value, amount: ir.Value) -> ir.Value:
        """a >> amount, rounded half up (TOSA's ARITHMETIC_RIGHT_SHIFT with round)."""
        return self.binary("tosa.arithmetic_right_shift", a, amount, {"round": ir.BoolAttr.get(True)})

    def reduce(self, name: str, a: ir.Value, axis: int) -> ir.Value:
        reduced = shape(a)
        reduced[axis] = 1
        return self.create(name, ir.RankedTensorType.get(reduced, self.integer(32)), [a],
                           {"axis": ir.IntegerAttr.get(self.integer(32), axis)})

    def reciprocal(self, s: ir.Value) -> tuple[ir.Value, ir.Value]:
        """(x, h) for s > 0: h = clz(s) and x = 2^60 / (s * 2^(h-1)) in [2^29, 2^30], so that
        1/s = x * 2^(h - 61)."""
        rank = len(shape(s))
        leading = self.unary("tosa.clz", s)
        normalized = self.binary("tosa.logical_left_shift", s,
                                 self.binary("tosa.sub", leading, self.int32(1, rank)))  # in [2^30, 2^31): y * 2^31
        x = self.binary("tosa.sub", self.int32(round(48 / 17 * 2**29), rank),
                        self.mul(normalized, self.int32(round(32 / 17 * 2**29), rank), 31))
        for _ in range(_RECIPROCAL_STEPS):  # x (Q29) <- x * (2 - y * x)
            error = self.binary("tosa.sub", self.int32(2**30, rank), self.mul(normalized, x, 31))
            x = self.mul(x, error, 29)
        return x, leading

    def inverse_square_root(self, z: ir.Value) -> tuple[ir.Value, ir.Value]:
        """(x, half) for z >= 1: x in [2^28, 2^29] and half in [0, 15] with 1/sqrt(z) = x * 2^(half - 43.5)
        (to 2e-9 relative); the caller applies the power of two where its value has room."""
        rank = len(shape(z))
        leading = self.unary("tosa.clz", z)
        half = self.shift_right_floor(self.binary("tosa.sub", leading, self.int32(1, rank)), 1)
        even = self.binary("tosa.add", half, half)
        normalized = self.binary("tosa.logical_left_shift", z, even)  # in [2^29, 2^31): y * 2^31, y in [0.25, 1)
        x = self.binary("tosa.sub", self.int32(round(_RSQRT_A * 2**28), rank),
                        self.mul(normalized, self.int32(round(_RSQRT_B * 2**28), rank), 31))
        for _ in range(_RSQRT_STEPS):  # x (Q28) <- x * (3 - y * x^2) / 2
            square = self.mul(x, x, 28)
            error = self.binary("tosa.sub", self.int32(3 * 2**28, rank), self.mul(normalized, square, 31))
            x = self.mul(x, error, 29)
        return x, half  # 1/sqrt(z) = 2^half / sqrt(y * 2^31) = x * 2^(half - 28 - 15.5)

    def shift_right_floor(self, a: ir.Value, amount: int) -> ir.Value:
        return self.binary("tosa.arithmetic_right_shift", a, self.int32(amount, len(shape(a))),
                           {"round": ir.BoolAttr.get(False)})
