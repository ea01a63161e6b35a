"""Small ONNX models with dynamic dims for the StableHLO lit tests: `dynamic_models.py NAME OUT.onnx`."""

import sys

import onnx
from onnx import TensorProto, helper


def _model(name, nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def gather_columns():
    """Gather along dim 1 of a dynamic [b, s]."""
    return _model("gather_columns", [helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
                  [("x", TensorProto.FLOAT, ["b", "s"]), ("i", TensorProto.INT64, ["n"])],
                  [("y", TensorProto.FLOAT, ["b", "n"])])


def outer_product(length="s"):
    """MatMul of [1, 8, 1] by [1, 1, length]: a contracting dim of 1."""
    return _model("outer_product", [helper.make_node("MatMul", ["w", "x"], ["y"])],
                  [("w", TensorProto.FLOAT, [1, 8, 1]), ("x", TensorProto.FLOAT, [1, 1, length])],
                  [("y", TensorProto.FLOAT, [1, 8, length])])


def scatter_rows():
    """ScatterND of rows [k, 4] into a dynamic [n, 4]."""
    return _model("scatter_rows", [helper.make_node("ScatterND", ["x", "i", "u"], ["y"])],
                  [("x", TensorProto.FLOAT, ["n", 4]), ("i", TensorProto.INT64, ["k", 1]),
                   ("u", TensorProto.FLOAT, ["k", 4])], [("y", TensorProto.FLOAT, ["n", 4])])


def dim_as_tensor():
    """x [b, s] times its dim s, picked from its Shape with a Gather."""
    pick = helper.make_tensor("pick", TensorProto.INT64, [1], [1])
    return _model("dim_as_tensor", [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Constant", [], ["pick"], value=pick),
        helper.make_node("Gather", ["shape", "pick"], ["length"], axis=0),
        helper.make_node("Mul", ["x", "length"], ["y"]),
    ], [("x", TensorProto.INT64, ["b", "s"])], [("y", TensorProto.INT64, ["b", "s"])])


def where_on_a_dim():
    """x [b, s] reshaped to [Where(s == -1, 1, s), -1]: a size read back from a 0-d tensor, and a
    -1 in a target tensor."""
    def constant(name, value, dims):
        return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, dims, value))

    return _model("where_on_a_dim", [
        helper.make_node("Shape", ["x"], ["shape"]),
        constant("one", [1], []), constant("minus_one", [-1], []), constant("axes", [0], [1]),
        constant("rest", [-1], [1]),
        helper.make_node("Gather", ["shape", "one"], ["length"], axis=0),
        helper.make_node("Equal", ["length", "minus_one"], ["unknown"]),
        helper.make_node("Where", ["unknown", "one", "length"], ["kept"]),
        helper.make_node("Unsqueeze", ["kept", "axes"], ["kept1"]),
        helper.make_node("Concat", ["kept1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ], [("x", TensorProto.FLOAT, ["b", "s"])], [("y", TensorProto.FLOAT, ["s", "b"])])


def upsample_linear():
    """Resize (linear, half_pixel) of a dynamic [b, 2, h, w] by 2 in h and w."""
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 2, 2])
    return _model("upsample_linear", [
        helper.make_node("Constant", [], ["scales"], value=scales),
        helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear"),
    ], [("x", TensorProto.FLOAT, ["b", 2, "h", "w"])], [("y", TensorProto.FLOAT, ["b", 2, "H", "W"])], opset=13)


def slice_to_minus_one():
    """x[:, :-1] of a dynamic [2, h]."""
    def constant(name, value):
        return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, TensorProto.INT64, [1], [value]))

    return _model("slice_to_minus_one", [
        constant("zero", 0), constant("minus_one", -1), constant("axis", 1),
        helper.make_node("Slice", ["x", "zero", "minus_one", "axis"], ["y"]),
    ], [("x", TensorProto.FLOAT, [2, "h"])], [("y", TensorProto.FLOAT, [2, "h1"])])


MODELS = {
    "gather_columns": gather_columns,
    "outer_product": outer_product,
    "outer_product_static": lambda: outer_product(5),
    "scatter_rows": scatter_rows,
    "dim_as_tensor": dim_as_tensor,
    "where_on_a_dim": where_on_a_dim,
    "upsample_linear": upsample_linear,
    "slice_to_minus_one": slice_to_minus_one,
}

if __name__ == "__main__":
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
