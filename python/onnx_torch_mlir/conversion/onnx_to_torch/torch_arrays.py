"""Formulas written once for numpy arrays, evaluated as numpy at compile time or as torch ops
at run time.

A pattern that computes indices or weights by a formula (Resize's coordinate transformation
and interpolation taps) writes it against an `xp` module and array operators. With `numpy`
and numpy arrays it runs at conversion time, in float64, and the results become literals;
when an operand is only known at run time (a scale that is a graph input), the same formula
runs with `TorchNumpy(b)` and `TorchArray`s, which build the float32 torch ops that compute
it. One formula, so the two paths cannot drift apart. Resize's cubic kernel and its merging of
compile-time taps (`cubic_kernel`, `merged_taps`) live here too.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder


class TorchArray:
    """A float32 (or, from a comparison, i1) tensor value with the operators of a numpy array:
    each operation builds its torch op with `b`. Operands are TorchArrays of rank 0 or [m] (one
    m), or Python numbers; adding 0 or multiplying by 1 builds nothing."""

    def __init__(self, b: TorchBuilder, value: ir.Value):
        self.b, self.value = b, value

    def _sizes(self, *others):
        """The broadcast sizes: every operand is 0-d or [m] of one m."""
        sizes = [self.b.info(value.value).sizes for value in (self, *others) if isinstance(value, TorchArray)]
        return list(max(sizes, key=len))

    def _binary(self, tensor_op, scalar_op, other, element="f32"):
        b = self.b
        identity = {"aten.add.Scalar": 0, "aten.sub.Scalar": 0, "aten.mul.Scalar": 1, "aten.div.Scalar": 1}
        if not isinstance(other, TorchArray) and identity.get(scalar_op) == other:
            return self
        result = b.tensor_type(self._sizes(other), element)
        if isinstance(other, TorchArray):
            operands = (self.value, other.value)
        else:
            operands = (self.value, b.constant_float(float(other)))
            tensor_op = scalar_op
        if tensor_op.startswith(("aten.add.", "aten.sub.", "aten.rsub.")):
            operands += (b.constant_int(1),)
        return TorchArray(b, b.op(tensor_op, result, *operands))

    def __add__(self, other):
        return self._binary("aten.add.Tensor", "aten.add.Scalar", other)

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary("aten.sub.Tensor", "aten.sub.Scalar", other)

    def __rsub__(self, other):
        return self._binary("aten.rsub.Scalar", "aten.rsub.Scalar", other)

    def __mul__(self, other):
        return self._binary("aten.mul.Tensor", "aten.mul.Scalar", other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary("aten.div.Tensor", "aten.div.Scalar", other)

    def __rtruediv__(self, other):
        reciprocal = TorchArray(self.b, self.b.op("aten.reciprocal", self.value.type, self.value))
        return reciprocal * other

    def _compare(self, name, other):
        return self._binary(f"aten.{name}.Tensor", f"aten.{name}.Scalar", other, element="i1")

    def __eq__(self, other):  # noqa: D105 - elementwise, as numpy's
        return self._compare("eq", other)

    __hash__ = None

    def __lt__(self, other):
        return self._compare("lt", other)

    def __le__(self, other):
        return self._compare("le", other)

    def __gt__(self, other):
        return self._compare("gt", other)

    def __ge__(self, other):
        return self._compare("ge", other)

    def __or__(self, other):
        return self._binary("aten.logical_or", None, other, element="i1")

    def __and__(self, other):
        return self._binary("aten.logical_and", None, other, element="i1")


class TorchNumpy:
    """Stands in for the `numpy` module in a formula: floor, abs, where and clip of TorchArrays
    (and Python numbers)."""

    def __init__(self, b: TorchBuilder):
        self.b = b

    def _unary(self, name, x):
        return TorchArray(self.b, self.b.op(name, x.value.type, x.value))

    def floor(self, x):
        return self._unary("aten.floor", x)

    def abs(self, x):
        return self._unary("aten.abs", x)

    def where(self, condition, when_true, when_false):
        b = self.b
        sizes = condition._sizes(*(v for v in (when_true, when_false) if isinstance(v, TorchArray)))
        result = b.tensor_type(sizes, "f32")

        def operand(value):
            return value.value if isinstance(value, TorchArray) else b.constant_float(float(value))

        name = {(True, True): "aten.where.self", (True, False): "aten.where.ScalarOther",
                (False, True): "aten.where.ScalarSelf", (False, False): "aten.where.Scalar"}[
            (isinstance(when_true, TorchArray), isinstance(when_false, TorchArray))]
        return TorchArray(b, b.op(name, result, condition.value, operand(when_true), operand(when_false)))

    def clip(self, x, low, high):
        b = self.b
        return TorchArray(b, b.op("aten.clamp", x.value.type, x.value, b.constant_float(low), b.constant_float(high)))


def cubic_kernel(xp, distance, a: float):
    """The cubic convolution kernel of coefficient `a` at `distance` (Resize's cubic mode), for any `xp`."""
    d = xp.abs(distance)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return xp.where(d <= 1, near, xp.where(d < 2, far, 0.0))


def merged_taps(taps, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Compile-time taps as [length, k] indices and weights, each input index once per row and
    no zero weights, padded (with a row's own index and weight 0) to the longest row."""
    indices = np.stack([index.astype(np.int64) for index, _ in taps], axis=1)
    weights = np.stack([np.ones(length) if weight is None else weight for _, weight in taps], axis=1)
    rows = []
    for row_indices, row_weights in zip(indices.tolist(), weights.tolist()):
        merged = {}
        for index, weight in zip(row_indices, row_weights):
            merged[index] = merged.get(index, 0.0) + weight
        rows.append([(index, weight) for index, weight in merged.items() if weight != 0.0] or [(row_indices[0], 0.0)])
    width = max((len(row) for row in rows), default=1)
    merged_indices = [[index for index, _ in row] + [row[0][0]] * (width - len(row)) for row in rows]
    merged_weights = [[weight for _, weight in row] + [0.0] * (width - len(row)) for row in rows]
    return (np.array(merged_indices, np.int64).reshape(length, width),
            np.array(merged_weights, np.float64).reshape(length, width))
