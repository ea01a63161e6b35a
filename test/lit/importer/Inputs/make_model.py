"""Writes the small ONNX model a lit test imports: `make_model.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor_info(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def model(nodes, inputs, outputs, initializers=(), opset=17, domains=(), value_info=()):
    graph = helper.make_graph(nodes, "test_graph", inputs, outputs, list(initializers), value_info=list(value_info))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(domain, 1) for domain in domains]
    return helper.make_model(graph, opset_imports=opsets, producer_name="lit", producer_version="0.1")


def attributes():
    """Every attribute kind on one node of a custom domain (types come from the declared output)."""
    node = helper.make_node("AllKinds", ["x"], ["y"], domain="test.domain", name="all_kinds")
    node.attribute.extend(
        [
            helper.make_attribute("f", 0.5),
            helper.make_attribute("i", -3),
            helper.make_attribute("s", "text"),
            helper.make_attribute("t", helper.make_tensor("t", TensorProto.INT32, [2], [4, 5])),
            helper.make_attribute("floats", [1.5, 2.5]),
            helper.make_attribute("ints", [1, 2, 3]),
            helper.make_attribute("strings", ["a", "b"]),
            helper.make_attribute("tensors", [helper.make_tensor("u", TensorProto.FLOAT, [1], [7.0])]),
            helper.make_attribute("tp", helper.make_tensor_type_proto(TensorProto.FLOAT16, [2, None])),
        ]
    )
    cast = helper.make_node("Cast", ["x"], ["c"], to=TensorProto.FLOAT16, name="cast")
    return model([node, cast], [tensor_info("x", TensorProto.FLOAT, [2])],
                 [tensor_info("y", TensorProto.FLOAT, [2]), tensor_info("c", TensorProto.FLOAT16, [2])],
                 domains=["test.domain"])


def constants():
    """Initializers (raw, typed, one element), Constant, ConstantOfShape (constant and dynamic shape)."""
    initializers = [
        numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "raw_weights"),
        helper.make_tensor("typed_ints", TensorProto.INT64, [3], [10, 20, 30]),
        numpy_helper.from_array(np.array([2.0], dtype=np.float32), "one"),
        numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.INT64, [2], [1, -1]), name="konst"),
        helper.make_node("ConstantOfShape", ["shape"], ["filled"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.25]), name="fill"),
        helper.make_node("ConstantOfShape", ["dynamic_shape"], ["dynamic"], name="fill_dynamic"),
        helper.make_node("Mul", ["raw_weights", "one"], ["scaled"], name="scale"),
        helper.make_node("Add", ["scaled", "filled"], ["sum"], name="sum"),
        helper.make_node("Reshape", ["sum", "k"], ["flat"], name="reshape"),
        helper.make_node("Gather", ["flat", "typed_ints"], ["picked"], name="pick"),
    ]
    return model(nodes, [tensor_info("dynamic_shape", TensorProto.INT64, [3])],
                 [tensor_info("picked", TensorProto.FLOAT, None), tensor_info("dynamic", TensorProto.FLOAT, None)], initializers)


def optional_inputs():
    nodes = [helper.make_node("Clip", ["x", "", "hi"], ["y"], name="clip")]
    return model(nodes, [tensor_info("x", TensorProto.FLOAT, ["batch", 4]), tensor_info("hi", TensorProto.FLOAT, [])],
                 [tensor_info("y", TensorProto.FLOAT, None)])


def subgraphs():
    """If with two branches reading an outer value, and a Loop with a carried value."""
    branch = lambda op, name: helper.make_graph(  # noqa: E731
        [helper.make_node(op, ["x"], [f"{name}_out"], name=f"{name}_node")], name, [], [tensor_info(f"{name}_out", TensorProto.FLOAT, [2])]
    )
    if_node = helper.make_node("If", ["cond"], ["chosen"], then_branch=branch("Relu", "then"), else_branch=branch("Neg", "else"), name="choose")
    body = helper.make_graph(
        [helper.make_node("Add", ["carried", "chosen"], ["carried_out"], name="accumulate"),
         helper.make_node("Identity", ["keep_going"], ["keep_going_out"], name="continue")],
        "body",
        [tensor_info("iteration", TensorProto.INT64, []), tensor_info("keep_going", TensorProto.BOOL, []), tensor_info("carried", TensorProto.FLOAT, [2])],
        [tensor_info("keep_going_out", TensorProto.BOOL, []), tensor_info("carried_out", TensorProto.FLOAT, [2])],
    )
    loop = helper.make_node("Loop", ["trips", "", "x"], ["total"], body=body, name="repeat")
    return model([if_node, loop],
                 [tensor_info("cond", TensorProto.BOOL, []), tensor_info("x", TensorProto.FLOAT, [2]), tensor_info("trips", TensorProto.INT64, [])],
                 [tensor_info("chosen", TensorProto.FLOAT, [2]), tensor_info("total", TensorProto.FLOAT, [2])])


def domains():
    nodes = [
        helper.make_node("FusedGelu", ["x"], ["g"], domain="com.microsoft", name="gelu"),
        helper.make_node("Relu", ["g"], ["y"], name="relu"),
    ]
    return model(nodes, [tensor_info("x", TensorProto.FLOAT, [3])], [tensor_info("y", TensorProto.FLOAT, [3])],
                 domains=["com.microsoft"], value_info=[tensor_info("g", TensorProto.FLOAT, [3])])


def element_types():
    """Graph inputs of every element type torch-mlir's importer maps and those it rejects."""
    codes = ["FLOAT", "DOUBLE", "FLOAT16", "BFLOAT16", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64",
             "BOOL", "COMPLEX64", "FLOAT8E4M3FN", "FLOAT8E5M2", "FLOAT8E4M3FNUZ", "FLOAT8E5M2FNUZ", "FLOAT8E8M0",
             "INT4", "UINT4", "FLOAT4E2M1", "INT2", "UINT2"]
    inputs = [tensor_info(code.lower(), getattr(TensorProto, code), ["n", 2]) for code in codes]
    nodes = [helper.make_node("Identity", [value.name], [f"{value.name}_out"]) for value in inputs]
    outputs = [tensor_info(f"{value.name}_out", value.type.tensor_type.elem_type, ["n", 2]) for value in inputs]
    return model(nodes, inputs, outputs, opset=25)


def locations():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="named_relu"), helper.make_node("Neg", ["r"], ["y"])]
    return model(nodes, [tensor_info("x", TensorProto.FLOAT, [2])], [tensor_info("y", TensorProto.FLOAT, [2])])


def functions():
    """A model-local function called with two attribute values, and an ONNX function op (MVN)."""
    body = [
        helper.make_node("Relu", ["a"], ["t"]),
        helper.make_node("Constant", [], ["s"], value_float=0.0),
        helper.make_node("Mul", ["t", "s"], ["b"]),
    ]
    body[1].attribute[0].ref_attr_name = "scale"
    local = helper.make_function("local", "ScaledRelu", ["a"], ["b"], body, [helper.make_opsetid("", 18)], attributes=["scale"])
    nodes = [
        helper.make_node("ScaledRelu", ["x"], ["m"], domain="local", scale=2.0, name="twice"),
        helper.make_node("ScaledRelu", ["m"], ["n"], domain="local", scale=3.0, name="thrice"),
        helper.make_node("MeanVarianceNormalization", ["n"], ["y"], name="mvn"),
    ]
    graph = helper.make_graph(nodes, "test_graph", [tensor_info("x", TensorProto.FLOAT, [1, 2, 3, 4])], [tensor_info("y", TensorProto.FLOAT, [1, 2, 3, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)], functions=[local])


def contrib_ops():
    """A BERT layer as onnxruntime's optimizer fuses it: only the graph input and output are typed."""
    hidden, rng = 8, np.random.default_rng(0)

    def weights(name, *dims):
        return numpy_helper.from_array(rng.standard_normal(dims).astype(np.float32), name)

    initializers = [weights("words", 10, hidden), weights("positions", 16, hidden), weights("gamma", hidden),
                    weights("beta", hidden), weights("qkv_weights", hidden, 3 * hidden), weights("qkv_bias", 3 * hidden),
                    weights("out_weights", hidden, hidden), weights("ffn_weights", hidden, 4 * hidden), weights("ffn_bias", 4 * hidden)]
    nodes = [
        helper.make_node("EmbedLayerNormalization", ["ids", "", "words", "positions", "", "gamma", "beta", "mask"],
                         ["embedded", "mask_index"], domain="com.microsoft", name="embed"),
        helper.make_node("Attention", ["embedded", "qkv_weights", "qkv_bias", "mask_index"], ["attended"],
                         domain="com.microsoft", name="attention", num_heads=2),
        helper.make_node("MatMul", ["attended", "out_weights"], ["projected"], name="projection"),
        helper.make_node("SkipLayerNormalization", ["projected", "embedded", "gamma", "beta"], ["normalized", "", "", "residual"],
                         domain="com.microsoft", name="skip_norm"),
        helper.make_node("MatMul", ["normalized", "ffn_weights"], ["expanded"], name="ffn"),
        helper.make_node("FastGelu", ["expanded", "ffn_bias"], ["y"], domain="com.microsoft", name="gelu"),
    ]
    inputs = [tensor_info("ids", TensorProto.INT32, ["batch", "sequence"]), tensor_info("mask", TensorProto.INT32, ["batch", "sequence"])]
    return model(nodes, inputs, [tensor_info("y", TensorProto.FLOAT, None), tensor_info("residual", TensorProto.FLOAT, None)],
                 initializers, domains=["com.microsoft"])


def unknown_domain_op():
    """An op of a domain nobody has types for, whose result is used."""
    nodes = [
        helper.make_node("Mystery", ["x"], ["m"], domain="example.org", name="mystery"),
        helper.make_node("Relu", ["m"], ["y"], name="relu"),
    ]
    return model(nodes, [tensor_info("x", TensorProto.FLOAT, [3])], [tensor_info("y", TensorProto.FLOAT, None)], domains=["example.org"])


MODELS = {
    f.__name__: f
    for f in (attributes, constants, optional_inputs, subgraphs, domains, element_types, locations, functions, contrib_ops,
              unknown_domain_op)
}

if __name__ == "__main__":
    name, output = sys.argv[1], sys.argv[2]
    onnx.save(MODELS[name](), output)
