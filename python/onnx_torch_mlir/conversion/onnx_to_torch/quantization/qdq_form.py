"""onnxruntime's QOperator ops in their QDQ form on TOSA, so that they become integer TOSA.

A QOperator model (onnxruntime's `quantize_static` with QuantFormat.QOperator) computes with fused
quantized ops: QLinearConv, QLinearMatMul, and com.microsoft's QLinearAdd, QLinearMul, QLinearSigmoid,
QLinearLeakyRelu, QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat and QGemm. Their
own conversions are exact (integer.py, microsoft.py), but on TOSA they requantize in float, which
the integer profile and Vela refuse. transforms/tosa/quantized_regions/ already turns the QDQ
form of the same computation (DequantizeLinear, the float op, QuantizeLinear, each Q/DQ a marker)
into int8 tensors, int32 accumulators and `tosa.rescale`. So on TOSA, where every scale and zero
point is a literal and the activations' are per tensor, each such op is written as that QDQ form
(in ONNX ops, converted by their own patterns, `registry.converted_as`):

    QLinearConv(x, xs, xz, w, ws, wz, ys, yz, B)
      = QuantizeLinear(Conv(DQ(x, xs, xz), DQ(w, ws, wz, axis 0), DQ(B, xs * ws, axis 0)), ys, yz)

and the others alike (a QGemm's int32 C has the scale alpha * a_scale * b_scale). A QGemm without
y_scale (a float output) keeps its own form, an int8 product: no QuantizeLinear would end its
region. Where the integer walk then fails, the markers' float computation stands: the product of
the dequantized values in float32 and one QuantizeLinear, within one step of the exact form
(float32 sums of the products instead of int32 ones).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..node import OnnxNode, UnsupportedNode
from ..registry import converted_as
from .arith import constant

_OPSET = {"": 21}
_BYTES = ("si8", "ui8")
_NUMPY = {"si8": np.int8, "ui8": np.uint8}


class _Expansion:
    """The ONNX nodes of one expansion, with literal parameters as Constant nodes."""

    def __init__(self, node: OnnxNode):
        self.node = node
        self.nodes: list[onnx.NodeProto] = []

    def literal(self, array: np.ndarray) -> str:
        name = f"literal{len(self.nodes)}"
        self.nodes.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array)))
        return name

    def parameter(self, index: int) -> str:
        """The literal input `index` as a Constant: a scalar where it has one element."""
        array = constant(self.node, index)
        return self.literal(array.reshape(()) if array.size == 1 else array.reshape(-1))

    def zero_point(self, index: int, element: str) -> str:
        if self.node.has_input(index):
            return self.parameter(index)
        return self.literal(np.zeros((), _NUMPY[element]))

    def add(self, op_type: str, inputs: list[str], output: str | None = None, **attributes) -> str:
        output = output or f"value{len(self.nodes)}"
        self.nodes.append(helper.make_node(op_type, inputs, [output], **attributes))
        return output

    def dequantized(self, index: int, scale: int, zero: int, axis: int | None = None) -> str:
        """DequantizeLinear of input `index`, per `axis` where its scale has more than one element."""
        element = self.node.input_info(index).element
        inputs = [f"in{index}", self.parameter(scale), self.zero_point(zero, element)]
        per_axis = constant(self.node, scale).size > 1
        return self.add("DequantizeLinear", inputs, **({"axis": axis} if per_axis else {}))

    def bias(self, index: int, scales: tuple[int, int], axis: int, factor: float = 1.0) -> str:
        """DequantizeLinear of the int32 bias `index` in the product's scale (float32, per channel)."""
        first, second = (constant(self.node, i).astype(np.float32).reshape(-1) for i in scales)
        scale = np.float32(factor) * first * second
        inputs = [f"in{index}", self.literal(scale.reshape(()) if scale.size == 1 else scale)]
        return self.add("DequantizeLinear", inputs, **({"axis": axis} if scale.size > 1 else {}))

    def quantized(self, value: str, scale: int, zero: int) -> None:
        element = self.node.result_info().element
        self.add("QuantizeLinear", [value, self.parameter(scale), self.zero_point(zero, element)], "out0")


def _attributes(node: OnnxNode, ints=(), int_lists=(), strings=(), floats=()) -> dict:
    """The node's attributes of these names that it has, for an ONNX node of the same meaning."""
    found = {}
    for names, read in ((ints, node.attr_int), (int_lists, node.attr_ints), (strings, node.attr_string),
                        (floats, node.attr_float)):
        for name in names:
            if node.has_attr(name):
                found[name] = read(name)
    return found


def _conv(e: _Expansion) -> None:
    attributes = _attributes(e.node, ("group",), ("dilations", "kernel_shape", "pads", "strides"), ("auto_pad",))
    inputs = [e.dequantized(0, 1, 2), e.dequantized(3, 4, 5, axis=0)]
    if e.node.has_input(8):
        inputs.append(e.bias(8, (1, 4), axis=0))
    e.quantized(e.add("Conv", inputs, **attributes), 6, 7)


def _matmul(e: _Expansion) -> None:
    other = e.dequantized(3, 4, 5, axis=e.node.rank(3) - 1)
    e.quantized(e.add("MatMul", [e.dequantized(0, 1, 2), other]), 6, 7)


def _gemm(e: _Expansion) -> None:
    attributes = _attributes(e.node, ("transA", "transB"), floats=("alpha",))
    columns = 0 if attributes.get("transB", 0) else 1
    inputs = [e.dequantized(0, 1, 2), e.dequantized(3, 4, 5, axis=columns)]
    if e.node.has_input(6):
        inputs.append(e.bias(6, (1, 4), axis=0, factor=attributes.get("alpha", 1.0)))
    e.quantized(e.add("Gemm", inputs, **attributes), 7, 8)


def _binary(op_type: str):
    def expand(e: _Expansion) -> None:
        e.quantized(e.add(op_type, [e.dequantized(0, 1, 2), e.dequantized(3, 4, 5)]), 6, 7)
    return expand


def _unary(op_type: str, **attributes):
    def expand(e: _Expansion) -> None:
        found = _attributes(e.node, **attributes)
        e.quantized(e.add(op_type, [e.dequantized(0, 1, 2)], **found), 3, 4)
    return expand


def _concat(e: _Expansion) -> None:
    pieces = [e.dequantized(first, first + 1, first + 2) for first in range(2, e.node.num_inputs, 3)]
    e.quantized(e.add("Concat", pieces, axis=e.node.attr_int("axis")), 0, 1)


# op type -> (expansion, its parameter inputs, the per-tensor (activation) scales among them, its int32 bias or None)
_FORMS = {
    "QLinearConv": (_conv, (1, 2, 4, 5, 6, 7), (1, 6), 8),
    "QLinearMatMul": (_matmul, (1, 2, 4, 5, 6, 7), (1, 6), None),
    "QGemm": (_gemm, (1, 2, 4, 5, 7, 8), (1, 7), 6),
    "QLinearAdd": (_binary("Add"), (1, 2, 4, 5, 6, 7), (1, 4, 6), None),
    "QLinearMul": (_binary("Mul"), (1, 2, 4, 5, 6, 7), (1, 4, 6), None),
    "QLinearSigmoid": (_unary("Sigmoid"), (1, 2, 3, 4), (1, 3), None),
    "QLinearLeakyRelu": (_unary("LeakyRelu", floats=("alpha",)), (1, 2, 3, 4), (1, 3), None),
    "QLinearGlobalAveragePool": (_unary("GlobalAveragePool"), (1, 2, 3, 4), (1, 3), None),
    "QLinearAveragePool": (_unary("AveragePool", ints=("ceil_mode", "count_include_pad"),
                                  int_lists=("kernel_shape", "pads", "strides"), strings=("auto_pad",)),
                           (1, 2, 3, 4), (1, 3), None),
}


def _form(node: OnnxNode):
    """(expansion, parameter inputs, per-tensor scales, bias input or None) of the node;
    QLinearConcat's depend on its input count (Y_scale, Y_zero_point, then triples)."""
    if node.op_type == "QLinearConcat":
        triples = range(2, node.num_inputs, 3)
        return _concat, [0, 1] + [i + k for i in triples for k in (1, 2)], [0] + [i + 1 for i in triples], None
    return _FORMS[node.op_type]


def _applies(node: OnnxNode) -> bool:
    """TOSA; static int8/uint8 tensors; literal float32 scales (one element for activations), literal
    zero points."""
    if node.target != "tosa" or node.attr_int("channels_last", 0):
        return False
    if node.op_type == "QLinearConcat" and (node.num_inputs < 5 or (node.num_inputs - 2) % 3):
        return False
    _, parameters, per_tensor, bias = _form(node)
    tensors = [i for i in range(node.num_inputs) if node.has_input(i) and i not in parameters and i != bias]
    if any(node.input_info(i).element not in _BYTES or not node.input_info(i).is_static for i in tensors):
        return False  # static too: a marker's declared types are fixed, and the walk reads static tensors only
    if not node.result_info().is_static:
        return False
    if node.result_info().element not in _BYTES:
        return False  # a QGemm with a float output: no QuantizeLinear would start the walk, so its own int8 product stays
    for index in parameters:
        if not node.has_input(index):
            continue
        literal = constant(node, index)
        if literal is None or literal.ndim > 1:
            return False
        if index in per_tensor and (literal.size != 1 or literal.dtype != np.float32 or not literal.item() > 0):
            return False
    return True


def as_qdq_on_tosa(node: OnnxNode):
    """The node's replacement values by its QDQ form (module docstring), or None where that form does
    not apply (then the op's own conversion runs)."""
    if not _applies(node):
        return None
    expansion = _Expansion(node)
    _form(node)[0](expansion)
    try:
        return converted_as(node, expansion.nodes, _OPSET)
    except UnsupportedNode:
        return None  # the expansion's ops are erased: the op's own conversion runs
