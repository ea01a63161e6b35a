"""Writes a small model in a form other people's tools write: `wild_forms.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def minus_one_dims():
    """paddle2onnx's `dim_value: -1` for dynamic dims, in an input, a value_info and the output."""
    scale = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32).reshape(1, 3, 1, 1), "scale")
    nodes = [helper.make_node("Mul", ["x", "scale"], ["scaled"]), helper.make_node("Relu", ["scaled"], ["y"])]
    graph = helper.make_graph(
        nodes, "paddle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, -1, -1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3, -1, -1])], [scale],
        value_info=[helper.make_tensor_value_info("scaled", TensorProto.FLOAT, [-1, 3, -1, -1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def contradicted_output():
    """`if x.dim() == 2: x = x.unsqueeze(-1)`, then `x * x` declared [1, seqlen] (an old torch export):
    the If is decided by x's rank, so the graph computes rank 3."""
    constant = lambda name, values: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64), name))
    then_branch = helper.make_graph([helper.make_node("Unsqueeze", ["x", "minus_one"], ["unsqueezed"])], "then", [],
                                    [helper.make_tensor_value_info("unsqueezed", TensorProto.FLOAT, None)])
    else_branch = helper.make_graph([helper.make_node("Identity", ["x"], ["same"])], "else", [],
                                    [helper.make_tensor_value_info("same", TensorProto.FLOAT, None)])
    nodes = [
        constant("minus_one", [-1]), constant("two", 2),
        helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Size", ["shape"], ["rank"]),
        helper.make_node("Equal", ["rank", "two"], ["is_matrix"]),
        helper.make_node("If", ["is_matrix"], ["v"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Mul", ["v", "v"], ["y"], name="square"),
    ]
    graph = helper.make_graph(nodes, "old_export", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "seqlen"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "seqlen"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def branch_sizes():
    """`relu(x[:, :2] if flag else x[:, :3])` with the If's result declared [2, 2], the size of the
    branch the exporter's example took."""
    ints = lambda name, values: numpy_helper.from_array(np.array(values, np.int64), name)  # noqa: E731
    then_branch = helper.make_graph([helper.make_node("Slice", ["x", "zero", "two", "one"], ["narrow"])], "then", [],
                                    [helper.make_tensor_value_info("narrow", TensorProto.FLOAT, None)])
    else_branch = helper.make_graph([helper.make_node("Slice", ["x", "zero", "three", "one"], ["wide"])], "else", [],
                                    [helper.make_tensor_value_info("wide", TensorProto.FLOAT, None)])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["z"], then_branch=then_branch, else_branch=else_branch, name="pick"),
         helper.make_node("Relu", ["z"], ["y"], name="relu")],
        "branch_sizes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]), helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [ints("zero", [0]), ints("one", [1]), ints("two", [2]), ints("three", [3])],
        value_info=[helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


MODELS = {f.__name__: f for f in (minus_one_dims, contradicted_output, branch_sizes)}

if __name__ == "__main__":
    name, output = sys.argv[1], sys.argv[2]
    onnx.save(MODELS[name](), output)
