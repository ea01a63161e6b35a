"""QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear (ONNX domain).

Versions (one pattern each reads every attribute with the default of the versions without it):
- 10: per-tensor; int8/uint8 (int32 input to DequantizeLinear).
- 13: `axis`: per-axis scales and zero points.
- 19: float8 types and `saturate` (QuantizeLinear); the scale may be float16/bfloat16, which is
  then the type of DequantizeLinear's output and of QuantizeLinear's division.
- 21: blocked quantization (`block_size`), int4/uint4/int16/uint16, QuantizeLinear's `output_dtype`.
- 23: `precision` (the type of QuantizeLinear's division), DequantizeLinear's `output_dtype`;
  float4e2m1. 24: float8e8m0 scales. 25: int2/uint2. 28: float6 types.

Forms: where the scale and zero point are literals of a per-tensor quantization, the ops use
torch-mlir's quantized tensor form when the target lowers it exactly (quantization_form in
docs/quantization.md): `aten.quantize_per_tensor` + `aten.int_repr` for QuantizeLinear (Linalg
and Torch output: TOSA's lowering multiplies by the reciprocal and clamps quint8 to the int8
range), `aten._make_per_tensor_quantized_tensor` + `aten.dequantize.self` for
DequantizeLinear (Linalg and Torch output for int8/uint8, TOSA for int8), so that torch-mlir's
`torch-fuse-quantized-ops` can turn DequantizeLinear -> MatMul/Conv into integer kernels.
Everything else is computed with float and integer tensor ops (arith.py says how, exactly).
"""

from __future__ import annotations

import numpy as np
import onnx
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from ..types import onnx_dtype_to_element
from .tosa_markers import DEQUANTIZE, QUANTIZE, marked, marker_parameters
from .arith import (
    constant, operand, divide_by_all_ones,
    FLOAT8_MAX, INTEGER_RANGES, QUANTIZED_ELEMENTS, divide, division_element, expand_parameter, literal_number,
    make_quantized, parameter_layout, WITHOUT_DTYPE_CODE, quantized_form_allowed, quotient_to_integer, refuse_types_without_torch_dtype, round_to_integer,
    to_float,
)

_TWO_BIT_OUTPUTS = {onnx.TensorProto.INT2: (-2, 1), onnx.TensorProto.UINT2: (0, 3)}


def _is_literal(node: OnnxNode, index: int) -> bool:
    """Whether operand `index` is a `torch.vtensor.literal` (whatever its element type)."""
    if not node.has_input(index):
        return False
    owner = node.op.operands[index].owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return getattr(owner, "name", "") == "torch.vtensor.literal"


def _count(info) -> int:
    return int(np.prod(info.sizes, dtype=np.int64))


def _parameters(node: OnnxNode, b: TorchBuilder, x_info, scale_index: int = 1, zero_point_index: int = 2):
    """(layout, scale, zero point or None), both shaped to broadcast against x."""
    axis, block_size = node.attr_int("axis", 1), node.attr_int("block_size", 0)
    scale_info = node.input_info(scale_index)
    layout, axis = parameter_layout(node, x_info, scale_info, axis, block_size, "scale")
    scale = expand_parameter(node, b, node.input(scale_index), x_info, layout, axis, block_size, "scale")
    zero_point = None
    if node.has_input(zero_point_index):
        zero_info = node.input_info(zero_point_index)
        static = zero_info.is_static and scale_info.is_static
        if static and zero_info.sizes != scale_info.sizes and max(_count(zero_info), _count(scale_info)) > 1:
            node.fail(f"the zero point's shape {list(zero_info.sizes)} differs from the scale's {list(scale_info.sizes)}")
        zero_point = node.input(zero_point_index)
        literal = constant(node, zero_point_index)
        if literal is not None and literal.dtype.kind in "iu":  # exact in float32, and no integer constant
            zero_point = b.literal(literal.astype(np.float32), "f32")
        zero_point = expand_parameter(node, b, zero_point, x_info, layout, axis, block_size, "zero point")
    return layout, scale, zero_point


def _marked_for_tosa(node: OnnxNode, b: TorchBuilder, name: str, x: ir.Value, y: ir.Value, x_info,
                     integer_element: str) -> ir.Value:
    """On TOSA, `y` (the op's float computation) inside a marker that says what it is (tosa_markers.py);
    elsewhere, or for parameters the integer form does not take, `y` itself. `integer_element`: the
    quantized side's element (uint8 is marked unsigned: TOSA holds it as i8 bits)."""
    if node.target != "tosa" or x_info.sizes is None:
        return y
    parameters = marker_parameters(node, 1, 2, len(x_info.sizes))
    if parameters is None or (name == QUANTIZE and parameters["axis"] is not None):
        return y
    if integer_element == "ui8":
        literal = constant(node, 0) if name == DEQUANTIZE else None
        if literal is None:
            parameters["unsigned"] = True
        else:  # as its int8 form q - 128: torch-mlir's TOSA lowering makes no uint8 constants
            x = b.literal((literal.astype(np.int16) - 128).astype(np.int8), "si8")
            parameters["zero_point"] = [zero_point - 128 for zero_point in parameters["zero_point"]]
    return marked(b, name, [x, y], b.type_like(y), parameters)


@converts("QuantizeLinear", since=10)
def quantize_linear(node: OnnxNode, b: TorchBuilder):
    """y = saturate(round(x / y_scale) + y_zero_point); float8: y = convert(x / y_scale),
    clamped to the type's finite range when `saturate` (the zero point does not apply)."""
    refuse_types_without_torch_dtype(node)
    x, x_info = node.input(0), node.input_info(0)
    element = node.result_info().element
    bounds = _TWO_BIT_OUTPUTS.get(node.attr_int("output_dtype", 0))
    precision = node.attr_int("precision", 0)
    precision = onnx_dtype_to_element(precision) if precision else None
    if element not in INTEGER_RANGES and element not in FLOAT8_MAX:
        node.fail(f"quantizing to {element} is not supported")
    folded = _quantized_scalar_literal(node, b, x_info, element, bounds, precision)
    if folded is not None:
        return folded
    scale_element = node.input_info(1).element
    divide_in = division_element(x_info.element, scale_element, precision)
    scale_value, zero_value = literal_number(node, 1), literal_number(node, 2)
    if (element in QUANTIZED_ELEMENTS and element != "si32" and bounds is None and divide_in == "f32"
            and x_info.element == "f32" and scale_element == "f32" and scale_value is not None
            and (zero_value is not None or not node.has_input(2))
            and node.target in (None, "linalg-on-tensors")
            and parameter_layout(node, x_info, node.input_info(1), node.attr_int("axis", 1),
                                 node.attr_int("block_size", 0), "scale")[0] == "tensor"):
        quantized_type = b.tensor_type(x_info.sizes, QUANTIZED_ELEMENTS[element])
        quantized = b.op(
            "aten.quantize_per_tensor", quantized_type, x, b.constant_float(scale_value),
            b.constant_int(zero_value or 0), b.dtype(QUANTIZED_ELEMENTS[element]),
        )
        return b.cast_to(b.op("aten.int_repr", b.tensor_type(x_info.sizes, element), quantized), node.result_type())
    if node.target == "tosa" and element in WITHOUT_DTYPE_CODE and element.startswith("ui") and _is_literal(node, 2):
        node.fail(f"a {element} result with a literal zero point is not supported on TOSA: torch-mlir's TOSA "
                  f"lowering makes no {element} constants")
    _, scale, zero_point = _parameters(node, b, x_info)
    if element not in FLOAT8_MAX:
        y = quotient_to_integer(node, b, x, scale, zero_point, element, divide_in, bounds)
        if element in ("si8", "ui8") and x_info.element == "f32" and divide_in == "f32" and bounds is None:
            y = _marked_for_tosa(node, b, QUANTIZE, x, y, x_info, element)
        return b.cast_to(y, node.result_type())
    quotient = divide(node, b, x, scale, divide_in)
    if node.attr_int("saturate", 1):
        # maximum/minimum with the limit first: torch-mlir's Linalg clamp turns NaN into the lower
        # bound, and its maximum(a, b) is `a > b ? a : b`, which keeps NaN only as b.
        limit, quotient_element = FLOAT8_MAX[element], b.info(quotient).element
        quotient = b.binary("aten.maximum", b.scalar_tensor_literal(-limit, quotient_element), quotient)
        quotient = b.binary("aten.minimum", b.scalar_tensor_literal(limit, quotient_element), quotient)
    return b.cast_to(b.to_dtype(quotient, element), node.result_type())


_LITERAL_INTEGERS = {"si8": np.int8, "ui8": np.uint8, "si16": np.int16, "si32": np.int32}


def _quantized_scalar_literal(node: OnnxNode, b: TorchBuilder, x_info, element: str, bounds, precision) -> ir.Value | None:
    """A one-element float32 literal with literal float32 parameters, quantized here (the first half
    of a quantized constant: onnxruntime's quantizer quantizes a Constant node's value at run time),
    so that its DequantizeLinear folds too (`_dequantized_scalar_literal`)."""
    x, scale = constant(node, 0), constant(node, 1)
    zero_point = constant(node, 2) if node.has_input(2) else np.zeros(1, np.int64)
    if (x is None or scale is None or zero_point is None or x.size != 1 or scale.size != 1 or zero_point.size != 1
            or element not in _LITERAL_INTEGERS or bounds is not None or precision is not None
            or x.dtype != np.float32 or scale.dtype != np.float32 or node.attr_int("block_size", 0)):
        return None
    low, high = INTEGER_RANGES[element]
    quotient = np.float32(x.reshape(-1)[0]) / np.float32(scale.reshape(-1)[0])
    value = np.clip(np.round(np.float64(quotient)) + int(zero_point.reshape(-1)[0]), low, high)
    literal = b.literal(np.array(value).astype(_LITERAL_INTEGERS[element]).reshape(x.shape), element)
    return b.cast_to(literal, node.result_type())


def _dequantized_scalar_literal(node: OnnxNode, b: TorchBuilder, x_info, output: str) -> ir.Value | None:
    """A one-element integer literal with literal float32 parameters, dequantized here: a float32
    literal. Such a value is a parameter (onnxruntime's quantizer quantizes a Pad's value, a
    LayerNorm's epsilon), which readers like Pad need as a number; torch-mlir's TOSA lowering
    folds no arithmetic on literals before it needs that number (`aten.item` was refused)."""
    x, scale = constant(node, 0), constant(node, 1)
    zero_point = constant(node, 2) if node.has_input(2) else np.zeros(1, np.int64)
    if (x is None or scale is None or zero_point is None or x.size != 1 or scale.size != 1
            or zero_point.size != 1 or not x_info.is_integer or output != "f32" or scale.dtype != np.float32):
        return None
    difference = np.float32(x.reshape(-1)[0]) - np.float32(zero_point.reshape(-1)[0])
    value = np.array(difference * scale.reshape(-1)[0], np.float32).reshape(x.shape)
    return b.cast_to(b.literal(value, "f32"), node.result_type())


@converts("DequantizeLinear", since=10)
def dequantize_linear(node: OnnxNode, b: TorchBuilder):
    """y = (x - x_zero_point) * x_scale, computed in float32 (ONNX's reference) and converted to
    the output type (the scale's, or `output_dtype`). Float8 inputs have no zero point."""
    refuse_types_without_torch_dtype(node)
    x, x_info = node.input(0), node.input_info(0)
    output = node.result_info().element
    if not (x_info.is_integer or x_info.element in FLOAT8_MAX or x_info.element in ("si4", "ui4")):
        node.fail(f"dequantizing {x_info.element} is not supported")
    folded = _dequantized_scalar_literal(node, b, x_info, output)
    if folded is not None:
        return folded
    scale_value, zero_value = literal_number(node, 1), literal_number(node, 2)
    if (x_info.element in ("si8", "ui8") and output == "f32" and node.input_info(1).element == "f32"
            and scale_value is not None and (zero_value is not None or not node.has_input(2))
            and quantized_form_allowed(node, x_info.element) and node.target != "tosa"
            and parameter_layout(node, x_info, node.input_info(1), node.attr_int("axis", 1),
                                 node.attr_int("block_size", 0), "scale")[0] == "tensor"):
        quantized = make_quantized(b, x, scale_value, zero_value or 0)
        return b.cast_to(b.op("aten.dequantize.self", b.tensor_type(x_info.sizes, "f32"), quantized), node.result_type())
    _, scale, zero_point = _parameters(node, b, x_info)
    difference = to_float(node, b, operand(node, b, 0), "f32")
    if zero_point is not None and x_info.element not in FLOAT8_MAX:
        difference = b.binary("aten.sub.Tensor", difference, to_float(node, b, zero_point, "f32"))
    y = b.binary("aten.mul.Tensor", difference, to_float(node, b, scale, "f32"))
    y = b.to_dtype(y, output)
    if x_info.element in ("si8", "ui8", "si32") and output == "f32":
        y = _marked_for_tosa(node, b, DEQUANTIZE, x, y, x_info, x_info.element)
    return b.cast_to(y, node.result_type())


@converts("DynamicQuantizeLinear", since=11)
def dynamic_quantize_linear(node: OnnxNode, b: TorchBuilder):
    """uint8 quantization of x with a scale and zero point from x's range (extended to 0):
    scale = (max - min) / 255 (1 / 255 when both are 0), zero_point = round(clamp(-min / scale, 0, 255)),
    y = clamp(round(x / scale) + zero_point, 0, 255)."""
    x, x_info = node.input(0), node.input_info(0)
    if x_info.element != "f32":
        node.fail(f"the input is {x_info.element}; DynamicQuantizeLinear takes float32")
    y, scale, zero_point = dynamic_quantize(node, b, x)
    return [b.cast_to(y, node.result_type(0)), b.cast_to(scale, node.result_type(1)),
            b.cast_to(zero_point, node.result_type(2))]


def dynamic_quantize(node: OnnxNode, b: TorchBuilder, x: ir.Value):
    """(y, scale, zero point) of DynamicQuantizeLinear's uint8 quantization of a float32 x."""
    scalar = b.tensor_type([], "f32")
    largest = b.op("aten.clamp_min", scalar, b.op("aten.max", scalar, x), b.constant_float(0.0))
    smallest = b.op("aten.clamp_max", scalar, b.op("aten.min", scalar, x), b.constant_float(0.0))
    spread = b.binary("aten.sub.Tensor", largest, smallest)
    # (with a tensor zero: TOSA compares with a float Scalar in float64, which IREE refuses)
    empty = b.op("aten.eq.Tensor", b.tensor_type([], "i1"), spread, b.literal(np.float32(0.0), "f32"))
    spread = b.op("aten.where.self", scalar, empty, b.literal(np.float32(1.0), "f32"), spread)
    scale = divide_by_all_ones(node, b, spread, 255)
    zero_point = quotient_to_integer(node, b, b.op("aten.neg", scalar, smallest), scale, None, "ui8", "f32")
    y = quotient_to_integer(node, b, x, scale, zero_point, "ui8", "f32")
    return y, scale, zero_point
