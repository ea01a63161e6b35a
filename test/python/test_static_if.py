"""An If whose condition the shape values decide is replaced at import by the branch that runs.

The model is DeBERTa-v2's `if query_layer.size(-2) != key_layer.size(-2)` in its smallest form:
two Reshapes of inputs that share the symbolic dim `s`, an If on `Not(Equal(...))` of their
dims -2 (both `s`: statically False), whose then branch (rank 3, never runs) and else branch
(rank 4) differ in rank, which torch cannot carry through an If. Compiled to each backend (TOSA
with the dims fixed), run on the reference runner and on IREE, compared with onnxruntime. An If
whose condition is a run-time value stays an If.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.importer.shape_value_elements import BINARY
from onnx_torch_mlir.importer.shape_inference import infer_types
from onnx_torch_mlir.runtime.iree import compile_with_iree

BACKENDS = ("linalg-on-tensors", "stablehlo", "tosa")
FIXED_DIMS = {"b": 2, "s": 3}


def _ints(name: str, values) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64), name))


def _model() -> onnx.ModelProto:
    then_branch = helper.make_graph(  # runs only when the sizes differ: never
        [helper.make_node("Reshape", ["q", "split_shape"], ["then_out"])],
        "then", [], [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["q"], ["else_out"])],
        "else", [], [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, None)],
    )
    nodes = [
        _ints("q_shape", [-1, 0, 4]), _ints("k_shape", [-1, 0, 2]), _ints("split_shape", [0, 0, 2, 2]),
        _ints("start", [-2]), _ints("end", [-1]),
        helper.make_node("Reshape", ["x", "q_shape"], ["q"]),  # [b*2, s, 4]
        helper.make_node("Reshape", ["y", "k_shape"], ["k"]),  # [b*4, s, 2]
        helper.make_node("Shape", ["q"], ["q_dims"]),
        helper.make_node("Shape", ["k"], ["k_dims"]),
        helper.make_node("Slice", ["q_dims", "start", "end"], ["q_seq1"]),  # [s]
        helper.make_node("Slice", ["k_dims", "start", "end"], ["k_seq1"]),  # [s]
        helper.make_node("Squeeze", ["q_seq1"], ["q_seq"]),
        helper.make_node("Squeeze", ["k_seq1"], ["k_seq"]),
        helper.make_node("Equal", ["q_seq", "k_seq"], ["same"]),
        helper.make_node("Not", ["same"], ["differ"]),
        helper.make_node("Cast", ["differ"], ["cond"], to=TensorProto.BOOL),
        helper.make_node("If", ["cond"], ["chosen"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Mul", ["chosen", "chosen"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "static_if",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 8]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "s", 8])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _inputs():
    rng = np.random.default_rng(0)
    b, s = FIXED_DIMS["b"], FIXED_DIMS["s"]
    return [rng.standard_normal((b, s, 8)).astype(np.float32) for _ in range(2)]


def _expected(model: onnx.ModelProto, arrays) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": arrays[0], "y": arrays[1]})


def _compile(backend: str):
    return onnx_torch_mlir.compile(_model(), backend, dims=FIXED_DIMS if backend == "tosa" else None)


def test_the_condition_resolves_and_the_else_branch_replaces_the_if():
    typed = infer_types(_model(), "static_if")
    ops = [node.op_type for node in typed.graph.node]
    assert "If" not in ops
    producer = next(node for node in typed.graph.node if "chosen" in node.output)
    assert producer.op_type == "Identity" and list(producer.input) == ["q"]
    declared = {value.name: value.type.tensor_type.shape for value in typed.graph.value_info}
    chosen = [dim.dim_value or dim.dim_param for dim in declared["chosen"].dim]
    assert len(chosen) == 3 and chosen[1:] == ["s", 4]  # the else branch's rank


def test_equal_of_named_dims_and_ints():
    equal = BINARY["Equal"]
    assert equal("s", "s") is True
    assert equal(3, 4) is False
    assert equal(3, 3) is True
    assert equal("s", 3) is None  # a named dim may be 3
    assert equal("s", "t") is None  # two names may be the same size
    assert equal("s", -1) is False  # a dim is never negative


@pytest.mark.parametrize("backend", BACKENDS)
def test_reference_runner_matches_onnxruntime(backend):
    arrays = _inputs()
    outputs = runtime.run(_compile(backend), arrays, input_dialect=backend)
    expected = _expected(_model(), arrays)
    assert len(outputs) == 1
    np.testing.assert_allclose(np.asarray(outputs[0]), expected[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_iree_matches_onnxruntime(backend):
    arrays = _inputs()
    outputs = compile_with_iree(_compile(backend), backend)(*arrays)
    expected = _expected(_model(), arrays)
    np.testing.assert_allclose(np.asarray(outputs[0]), expected[0], rtol=1e-6, atol=1e-6)


def _runtime_if_model() -> onnx.ModelProto:
    """An If on an input: its condition is known only at run time."""
    then_branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["then_out"])], "then", [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["else_out"])], "else", [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, None)],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["z"], then_branch=then_branch, else_branch=else_branch)],
        "runtime_if",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_an_if_on_a_run_time_condition_stays_an_if():
    model = _runtime_if_model()
    assert [node.op_type for node in infer_types(model, "runtime_if").graph.node] == ["If"]
    module = onnx_torch_mlir.compile(model, "torch")
    assert "torch.prim.If" in str(module)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    for cond in (True, False):
        outputs = runtime.run(onnx_torch_mlir.compile(model, "linalg-on-tensors"), [np.array(cond), x])
        np.testing.assert_array_equal(np.asarray(outputs[0]), -x if cond else x)


def _constant_condition_model() -> onnx.ModelProto:
    """An If on a Constant: the then branch has an initializer, yields a value its own nodes also
    use, and yields an enclosing value as it is."""
    offset = numpy_helper.from_array(np.full((4,), 0.5, np.float32), "offset")
    then_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "offset"], ["shifted"]),
         helper.make_node("Mul", ["shifted", "shifted"], ["squared"])],
        "then", [],
        [helper.make_tensor_value_info("shifted", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("squared", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        initializer=[offset],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["negated"])], "else", [],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("negated",) * 3],
    )
    nodes = [
        helper.make_node("Constant", [], ["cond"], value=numpy_helper.from_array(np.array(True), "cond")),
        helper.make_node("If", ["cond"], ["a", "b", "c"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Sum", ["a", "b", "c"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "constant_if", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_a_constant_condition_inlines_initializers_inner_uses_and_enclosing_values():
    model = _constant_condition_model()
    typed = infer_types(model, "constant_if")
    assert "If" not in [node.op_type for node in typed.graph.node]
    x = np.arange(8, dtype=np.float32).reshape(2, 4) - 3
    outputs = runtime.run(onnx_torch_mlir.compile(model, "linalg-on-tensors"), [x])
    shifted = x + np.float32(0.5)  # numpy: onnxruntime refuses a branch yielding an enclosing value
    np.testing.assert_allclose(np.asarray(outputs[0]), shifted + shifted * shifted + x, rtol=1e-6)


def _nested_model() -> onnx.ModelProto:
    """`_model` with the size check and its If inside the then branch of an If on an input."""
    model = _model()
    nodes = list(model.graph.node)
    first = next(i for i, node in enumerate(nodes) if node.op_type == "Shape")
    then_branch = helper.make_graph(
        nodes[first:], "checked", [], [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)]
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["q"], ["plain"])], "plain", [],
        [helper.make_tensor_value_info("plain", TensorProto.FLOAT, None)],
    )
    del model.graph.node[:]
    model.graph.node.extend(nodes[:first])
    model.graph.node.append(helper.make_node("If", ["c"], ["out"], then_branch=then_branch, else_branch=else_branch))
    model.graph.input.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
    model.graph.output[0].name = "out"
    return model


def test_a_condition_computed_inside_a_branch_resolves_there():
    model = _nested_model()
    outer = next(node for node in infer_types(model, "nested").graph.node if node.op_type == "If")
    then_branch = next(attribute.g for attribute in outer.attribute if attribute.name == "then_branch")
    assert "If" not in [node.op_type for node in then_branch.node]
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    x, y = _inputs()
    for condition in (True, False):
        outputs = runtime.run(module, [x, y, np.array(condition)])
        q = x.reshape(-1, FIXED_DIMS["s"], 4)
        np.testing.assert_allclose(np.asarray(outputs[0]), q * q if condition else q, rtol=1e-6)
