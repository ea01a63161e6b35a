"""Small constant shape arithmetic is folded for shape inference, so downstream values get a rank."""

import onnx
from onnx import TensorProto, helper

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.importer.constant_folding import fold_small_constants, has_unranked_values


def _model_with_shape_arithmetic() -> onnx.ModelProto:
    """Reshape x to Concat(Shape(x)[0:Mod(6, 4)], [-1]), as the TorchScript exporter writes it:
    data propagation does not evaluate Mod, so the slice length, and the reshape's rank, stay unknown."""
    constant = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, [1], [value])
    )
    nodes = [
        constant("six", 6),
        constant("four", 4),
        helper.make_node("Mod", ["six", "four"], ["two"], name="mod"),
        constant("zero", 0),
        helper.make_node("Shape", ["x"], ["x_shape"], name="shape_of_x"),
        helper.make_node("Slice", ["x_shape", "zero", "two"], ["leading"], name="leading_dims"),
        constant("minus_one", -1),
        helper.make_node("Concat", ["leading", "minus_one"], ["shape"], axis=0, name="concat"),
        helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 6, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_plain_inference_leaves_the_reshape_unranked():
    inferred = onnx.shape_inference.infer_shapes(_model_with_shape_arithmetic(), data_prop=True)
    assert has_unranked_values(inferred)


def test_folding_gives_the_reshape_a_rank():
    folded = fold_small_constants(onnx.shape_inference.infer_shapes(_model_with_shape_arithmetic(), data_prop=True))
    assert [node.op_type for node in folded.graph.node].count("Mod") == 0
    assert not has_unranked_values(onnx.shape_inference.infer_shapes(folded, data_prop=True))


def test_import_keeps_the_model_nodes_and_types_the_result():
    text = str(import_onnx(_model_with_shape_arithmetic(), form="torch-onnx"))
    assert 'torch.operator "onnx.Mod"' in text
    assert "-> !torch.vtensor<[?,6,2],f32>" in text or "-> !torch.vtensor<[?,6,?],f32>" in text
