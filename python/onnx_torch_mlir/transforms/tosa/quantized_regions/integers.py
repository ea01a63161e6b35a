"""What the walk knows of a value: its integer form, its shape, its constant values; and the builder.

`Integer` is a tensor as integers q with real value scale * (q - zero point), scale per element
where it varies (per-channel weights). Constants are read from `tosa.const` (or the tensor
`arith.constant`s TorchToTosa leaves), dense or an importer's resource.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

from ....importer.tensors import resource_bytes
from ...torch.rewriting import defining_op
from ..rescale import TosaBuilder

SAME_SCALE = 1e-6  # relative: float32 products of the same scales (onnxruntime's bias scale)


@dataclass(frozen=True)
class Integer:
    """A tensor as integers: real value = scale * (integers - zero_point). `scale` has the tensor's
    rank, with size 1 along the dims it does not vary on. A constant holds `array`, else `value`."""

    value: ir.Value | None
    array: np.ndarray | None
    scale: np.ndarray
    zero_point: int
    bits: int

    def real(self) -> np.ndarray:
        return self.scale * (self.array.astype(np.float64) - self.zero_point)

    def per_tensor_scale(self) -> float | None:
        """The one scale of a tensor quantized per tensor, else None."""
        scale = compressed(self.scale)
        return float(scale.reshape(-1)[0]) if scale.size == 1 else None


class IntegerBuilder(TosaBuilder):
    """TosaBuilder with int16 constants and zero points too (the int16 tables, rescales to int16)."""

    _NUMPY = {8: np.int8, 16: np.int16, 32: np.int32}

    def constant(self, array: np.ndarray, bits: int) -> ir.Value:
        array = np.asarray(array)
        tensor_type = ir.RankedTensorType.get(list(array.shape), self.integer(bits))
        values = np.ascontiguousarray(array.astype(self._NUMPY[bits]))
        attribute = ir.DenseElementsAttr.get(values, type=tensor_type)
        return self.create("tosa.const", tensor_type, [], {"values": attribute})


def shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def element(value: ir.Value) -> str:
    return str(ir.RankedTensorType(value.type).element_type)


def static(value_type: ir.Type) -> bool:
    return isinstance(value_type, ir.RankedTensorType) and value_type.has_static_shape


def compressed(scale: np.ndarray) -> np.ndarray:
    """`scale` with every dim it does not vary along reduced to size 1."""
    for axis in range(scale.ndim):
        if scale.shape[axis] > 1 and np.all(scale == np.take(scale, [0], axis=axis)):
            scale = np.take(scale, [0], axis=axis)
    return scale


def per_last_dim(scale: np.ndarray) -> np.ndarray | None:
    """The factors of a rescale: one, or one per element of the last dim; None if the scale varies
    along another dim."""
    scale = compressed(scale)
    if scale.size == 1:
        return scale.reshape(1)
    if all(size == 1 for size in scale.shape[:-1]):
        return scale.reshape(-1)
    return None


_NUMPY_ELEMENTS = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}


def constant(value: ir.Value, elements: tuple) -> np.ndarray | None:
    """The values of a `tosa.const` (or a tensor `arith.constant`, which TorchToTosa leaves) of one of
    `elements` (dense or an importer's resource), else None."""
    op = defining_op(value)
    value_element = element(value)
    if op is None or op.name not in ("tosa.const", "arith.constant") or value_element not in elements:
        return None
    value_shape = shape(value)
    attribute = op.attributes["values" if op.name == "tosa.const" else "value"]
    attribute = attribute.maybe_downcast() if hasattr(attribute, "maybe_downcast") else attribute
    if isinstance(attribute, ir.DenseElementsAttr):
        if attribute.is_splat:
            values = np.array(attribute.get_splat_value().value, dtype=_NUMPY_ELEMENTS[value_element])
            return np.broadcast_to(values, value_shape)
        try:
            return np.array(attribute).reshape(value_shape)
        except (TypeError, ValueError):
            return None
    data = resource_bytes(attribute)
    if data is None:
        return None
    return np.frombuffer(data, dtype=_NUMPY_ELEMENTS[value_element]).reshape(value_shape)


def shape_constant(value: ir.Value) -> list[int] | None:
    """The values of a `tosa.const_shape`, else None."""
    op = defining_op(value)
    if op is None or op.name != "tosa.const_shape":
        return None
    return [int(v) for v in np.array(ir.DenseElementsAttr(op.attributes["values"]))]


def float_constant(value: ir.Value) -> np.ndarray | None:
    values = constant(value, ("f32", "f16"))
    return None if values is None else values.astype(np.float64)


def integer_constant(value: ir.Value) -> np.ndarray | None:
    values = constant(value, ("i8", "i32"))
    return None if values is None else values.astype(np.int64)


def quantized(real: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """ONNX's QuantizeLinear to int8 of `real`: float32 division, rounded half to even."""
    with np.errstate(over="ignore", invalid="ignore"):
        quotient = np.asarray(real, np.float32) / np.float32(scale)
    quotient = np.nan_to_num(quotient.astype(np.float64), nan=0.0, posinf=1e9, neginf=-1e9)
    return np.clip(np.round(quotient) + zero_point, -128, 127).astype(np.int64)
