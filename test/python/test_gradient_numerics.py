"""Gradient (ai.onnx.preview.training) compiled with our importer and conversion to each backend,
run on the reference CPU runner, and compared with central finite differences of the same forward
graph run by ONNX's reference evaluator in float64 (dY/dX = sum over y's elements of their
derivative by X, ONNX's seed of ones), and for the conformance-sized cases with hand-computed
gradients.

Each case is a small forward graph, a Gradient node naming its y and xs, and seeded inputs.
Linalg compiles the model with a symbolic first dim where the case gives one; TOSA and StableHLO
compile it with every dim fixed. Tolerance: rtol 1e-3, atol 1e-3 (float32 gradients against
float64 differences with step 1e-4: the differences' own error is below 1e-6).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime

TRAINING = "ai.onnx.preview.training"
BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL, STEP = 1e-3, 1e-3, 1e-4


@dataclass
class Case:
    nodes: list  # the forward nodes
    inputs: dict  # name -> (float32 array, dims: ints and symbolic names)
    xs: list
    y: str
    zs: list = field(default_factory=list)
    initializers: dict = field(default_factory=dict)  # name -> float32 array (a weight, no graph input)
    expected: list | None = None  # hand-computed gradients, else finite differences

    def model(self, static: bool, element=TensorProto.FLOAT, with_gradient: bool = True) -> onnx.ModelProto:
        inputs = [helper.make_tensor_value_info(name, element, list(array.shape) if static else dims)
                  for name, (array, dims) in self.inputs.items()]
        numpy_type = np.float32 if element == TensorProto.FLOAT else np.float64
        initializers = [numpy_helper.from_array(array.astype(numpy_type), name) for name, array in self.initializers.items()]
        nodes = [self._retyped(node, numpy_type) for node in self.nodes]
        if with_gradient:
            grads = [f"d{self.y}_d{x}" for x in self.xs]
            attributes = {"xs": self.xs, "y": self.y, **({"zs": self.zs} if self.zs else {})}
            nodes.append(helper.make_node("Gradient", self.xs + self.zs, grads, domain=TRAINING, name="gradient",
                                          **attributes))
            outputs = [helper.make_tensor_value_info(name, element, None) for name in grads]
        else:
            outputs = [helper.make_tensor_value_info(self.y, element, None)]
        graph = helper.make_graph(nodes, "gradient", inputs, outputs, initializer=initializers)
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid(TRAINING, 1)]
        return onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=opsets, ir_version=8))

    @staticmethod
    def _retyped(node: onnx.NodeProto, numpy_type) -> onnx.NodeProto:
        """A float Constant node in the forward model's element type."""
        if node.op_type != "Constant":
            return node
        value = numpy_helper.to_array(node.attribute[0].t)
        if value.dtype.kind != "f":
            return node
        return helper.make_node("Constant", [], list(node.output), value=numpy_helper.from_array(value.astype(numpy_type)))

    def arrays(self) -> list:
        return [array for array, _ in self.inputs.values()]

    def reference(self) -> list:
        if self.expected is not None:
            return self.expected
        evaluator = ReferenceEvaluator(self.model(static=True, element=TensorProto.DOUBLE, with_gradient=False))
        feeds = {name: array.astype(np.float64) for name, (array, _) in self.inputs.items()}

        def total(values):
            return float(np.sum(evaluator.run(None, values)[0]))

        gradients = []
        for x in self.xs:
            gradient = np.zeros_like(feeds[x])
            for index in np.ndindex(feeds[x].shape):
                shifted = {name: value.copy() for name, value in feeds.items()}
                shifted[x][index] += STEP
                up = total(shifted)
                shifted[x][index] -= 2 * STEP
                gradient[index] = (up - total(shifted)) / (2 * STEP)
            gradients.append(gradient)
        return gradients


def _normal(seed: int, *shape, positive: bool = False) -> np.ndarray:
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return np.abs(values) + np.float32(0.5) if positive else values


def _node(op_type: str, inputs: list, output: str, **attributes) -> onnx.NodeProto:
    return helper.make_node(op_type, inputs, [output], name=f"{op_type.lower()}_{output}", **attributes)


def _constant(name: str, value: np.ndarray) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(value))


def _add_and_mul():
    """The conformance case's graph on a broadcast b: d = (a + b) * a; a is used twice."""
    a, b = _normal(1, 2, 3), _normal(2, 3)
    return Case([_node("Add", ["a", "b"], "c"), _node("Mul", ["c", "a"], "d")],
                {"a": (a, ["N", 3]), "b": (b, [3])}, ["a", "b"], "d",
                expected=[2 * a + b, np.sum(a, axis=0)])


def _sub_div_neg():
    a, b = _normal(3, 2, 3), _normal(4, 2, 1, positive=True)
    return Case([_node("Sub", ["a", "b"], "s"), _node("Div", ["s", "b"], "q"), _node("Neg", ["q"], "y")],
                {"a": (a, ["N", 3]), "b": (b, ["N", 1])}, ["a", "b"], "y")


def _matmul_relu_reduce_sum():
    """2-D MatMul, Relu, ReduceSum over axis 1 (axes from a Constant node) without keepdims."""
    return Case([_node("MatMul", ["x", "w"], "h"), _node("Relu", ["h"], "r"),
                 _constant("axes", np.array([1], np.int64)),
                 _node("ReduceSum", ["r", "axes"], "y", keepdims=0)],
                {"x": (_normal(5, 3, 4), ["N", 4]), "w": (_normal(6, 4, 5), [4, 5])}, ["x", "w"], "y")


def _batched_matmul_sigmoid_tanh():
    """A batched MatMul whose 2-D right operand broadcasts over the batch, then Sigmoid and Tanh."""
    return Case([_node("MatMul", ["a", "b"], "m"), _node("Sigmoid", ["m"], "s"), _node("Tanh", ["s"], "y")],
                {"a": (_normal(7, 2, 3, 4), ["N", 3, 4]), "b": (_normal(8, 4, 2), [4, 2])}, ["a", "b"], "y")


def _exp_log_sqrt_pow():
    """y = Pow(Sqrt(Exp(x)), 3) + Log(x) * w, the exponent an initializer."""
    return Case([_node("Exp", ["x"], "e"), _node("Sqrt", ["e"], "r"), _node("Pow", ["r", "three"], "p"),
                 _node("Log", ["x"], "l"), _node("Mul", ["l", "w"], "lw"), _node("Add", ["p", "lw"], "y")],
                {"x": (_normal(9, 2, 3, positive=True), ["N", 3]), "w": (_normal(10, 2, 3), ["N", 3])},
                ["x", "w"], "y", initializers={"three": np.array(3.0, np.float32)})


def _transpose_reshape_identity():
    return Case([_node("Transpose", ["x"], "t", perm=[2, 0, 1]), _constant("shape", np.array([4, 6], np.int64)),
                 _node("Reshape", ["t", "shape"], "r"), _node("Identity", ["r"], "i"),
                 _node("MatMul", ["i", "w"], "y")],
                {"x": (_normal(11, 2, 3, 4), [2, 3, 4]), "w": (_normal(12, 6, 2), [6, 2])}, ["x", "w"], "y")


def _dynamic_batches():
    """A batched MatMul whose two operands have the same dynamic batch (Linalg)."""
    return Case([_node("MatMul", ["a", "b"], "y")],
                {"a": (_normal(18, 2, 3, 4), ["N", 3, 4]), "b": (_normal(19, 2, 4, 2), ["N", 4, 2])}, ["a", "b"], "y")


def _vectors_and_shared_values():
    """MatMuls with a 1-D right and a 1-D left operand; x, v and h each feed two nodes.

    h = x @ v, r = u @ x, y = sigmoid(h) + tanh(h) + sum(r * v) (keepdims, broadcast)."""
    return Case([_node("MatMul", ["x", "v"], "h"), _node("MatMul", ["u", "x"], "r"),
                 _node("Sigmoid", ["h"], "s"), _node("Tanh", ["h"], "t"), _node("Add", ["s", "t"], "st"),
                 _node("Mul", ["r", "v"], "rv"), _constant("axes", np.array([0], np.int64)),
                 _node("ReduceSum", ["rv", "axes"], "total", keepdims=1), _node("Add", ["st", "total"], "y")],
                {"x": (_normal(20, 3, 4), ["N", 4]), "v": (_normal(21, 4), [4]), "u": (_normal(22, 3), ["N"])},
                ["x", "v", "u"], "y")


def _intermediate_x_and_zs():
    """xs names an intermediate tensor (h) and a weight initializer (w); zs names a fixed input z;
    u does not reach y, so its gradient is zeros."""
    return Case([_node("Relu", ["x"], "h"), _node("Mul", ["h", "w"], "hw"), _node("Mul", ["hw", "z"], "y"),
                 _node("Exp", ["u"], "unused")],
                {"x": (_normal(13, 2, 3), [2, 3]), "z": (_normal(14, 2, 3), [2, 3]), "u": (_normal(15, 3), [3])},
                ["h", "w", "u"], "y", zs=["z"], initializers={"w": _normal(16, 3)})


CASES = {
    "add_and_mul-broadcast-used_twice": _add_and_mul,
    "sub_div_neg-broadcast": _sub_div_neg,
    "matmul_relu_reduce_sum": _matmul_relu_reduce_sum,
    "batched_matmul_sigmoid_tanh": _batched_matmul_sigmoid_tanh,
    "exp_log_sqrt_pow": _exp_log_sqrt_pow,
    "transpose_reshape_identity": _transpose_reshape_identity,
    "matmul-dynamic_batches": _dynamic_batches,
    "matmul-vectors-shared_values": _vectors_and_shared_values,
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    outputs = runtime.run(module, case.arrays(), input_dialect=backend)
    for output, expected in zip(outputs, case.reference(), strict=True):
        np.testing.assert_allclose(output, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_by_intermediate_tensor_and_weight_with_zs(backend):
    """dY/dh, dY/dw, dY/du for y = relu(x) * w * z: z * w, sum over rows of h * z, and zeros."""
    case = _intermediate_x_and_zs()
    module = onnx_torch_mlir.compile(case.model(static=True), backend)
    dh, dw, du = runtime.run(module, case.arrays(), input_dialect=backend)
    x, z = case.inputs["x"][0], case.inputs["z"][0]
    w = case.initializers["w"]
    np.testing.assert_allclose(dh, np.broadcast_to(w * z, (2, 3)), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(dw, np.sum(np.maximum(x, 0) * z, axis=0), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(du, np.zeros(3, np.float32))


def test_a_node_without_a_rule_fails_naming_it():
    case = Case([_node("Softmax", ["x"], "y")], {"x": (_normal(17, 2, 3), [2, 3])}, ["x"], "y")
    with pytest.raises(Exception, match=r"node 'softmax_y' \(Softmax.*is on the path from xs to y, and Softmax has "
                                        r"no gradient rule"):
        onnx_torch_mlir.compile(case.model(static=True), "linalg-on-tensors")


def test_the_gradient_at_other_values_than_the_named_tensors_fails():
    """The spec lets a Gradient's input be another value than the tensor it names (the gradient at
    H_1): that needs the graph evaluated again, which is refused, never answered wrongly."""
    case = _add_and_mul()
    model = case.model(static=True)
    model.graph.input.append(helper.make_tensor_value_info("a1", TensorProto.FLOAT, [2, 3]))
    model.graph.node[-1].input[0] = "a1"
    with pytest.raises(Exception, match=r"input 0 is not the tensor 'a' it stands for"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


@pytest.mark.parametrize("form", ["torch-onnx", "onnx"])
def test_the_importer_names_tensors_only_in_a_graph_holding_a_gradient(form):
    """Both spellings name the function's inputs (`onnx.name`) and each node's results
    (`onnx_output_names`) when the graph holds a Gradient; any other graph imports as before."""
    case = _add_and_mul()
    named = str(onnx_torch_mlir.import_onnx(case.model(static=True), form))
    assert '{onnx.name = "a"}' in named and 'onnx_output_names = ["c"]' in named and 'onnx_output_names = ["d"]' in named
    plain = str(onnx_torch_mlir.import_onnx(case.model(static=True, with_gradient=False), form))
    assert "onnx_output_names" not in plain
    assert ("onnx.name" in plain) == (form == "onnx")
