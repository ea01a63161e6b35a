"""The fuzzer's mutations: small, seeded edits of an ONNX model a user's exporter or a broken
file could produce.

Each mutation takes the model (an `onnx.ModelProto`, already a private copy) and a
`random.Random`, edits the model in place and returns a one-line description, or returns
None when the model has nothing it can edit (the fuzzer then picks another). The two byte
mutations work on the serialized model and return `(bytes, description)`.
"""

from __future__ import annotations

import random

import onnx
import onnx.defs
from onnx import AttributeProto, TensorProto, helper

# Element types a declaration can be mutated to: every TensorProto type, UNDEFINED included.
ELEMENT_TYPES = sorted(value for value in TensorProto.DataType.values())
ODD_INTS = (0, 1, -1, 2, -2, 3, 7, 2**31 - 1, -(2**31), 2**40, -(2**62))
ODD_FLOATS = (0.0, -1.0, 1e-30, 1e30, float("inf"), float("-inf"), float("nan"), 0.5)
ODD_STRINGS = ("", "bogus", "NOTSET", "constant", "linear", "SAME_UPPER", "\u00e9\u00e8", "x" * 300)
ODD_DIMS = (0, 1, 2, 3, 17, 2**31, -1, -5)


def _nodes(model: onnx.ModelProto):
    return list(model.graph.node)


def _values(model: onnx.ModelProto):
    """Declared graph inputs, outputs and value_info entries that carry a tensor type."""
    graph = model.graph
    return [
        value
        for value in list(graph.input) + list(graph.output) + list(graph.value_info)
        if value.type.HasField("tensor_type")
    ]


def mutate_attribute_value(model, rng):
    candidates = [(node, attribute) for node in _nodes(model) for attribute in node.attribute]
    if not candidates:
        return None
    node, attribute = rng.choice(candidates)
    kind = attribute.type
    if kind == AttributeProto.INT:
        attribute.i = rng.choice(ODD_INTS)
        new = attribute.i
    elif kind == AttributeProto.FLOAT:
        attribute.f = rng.choice(ODD_FLOATS)
        new = attribute.f
    elif kind == AttributeProto.STRING:
        attribute.s = rng.choice(ODD_STRINGS).encode()
        new = attribute.s
    elif kind == AttributeProto.INTS:
        del attribute.ints[:]
        attribute.ints.extend(rng.choice(ODD_INTS) for _ in range(rng.choice((0, 1, 2, 3, 5, 9))))
        new = list(attribute.ints)
    elif kind == AttributeProto.FLOATS:
        del attribute.floats[:]
        attribute.floats.extend(rng.choice(ODD_FLOATS) for _ in range(rng.choice((0, 1, 2, 4))))
        new = list(attribute.floats)
    elif kind == AttributeProto.TENSOR:
        attribute.t.data_type = rng.choice(ELEMENT_TYPES)
        new = f"tensor of type {attribute.t.data_type}"
    else:
        # Graphs, strings lists, sparse tensors: change the declared kind instead.
        attribute.type = rng.choice((AttributeProto.INT, AttributeProto.FLOAT, AttributeProto.STRING))
        new = f"type {attribute.type}"
    return f"attribute {attribute.name} of {node.op_type} set to {new!r}"[:200]


def mutate_attribute_kind(model, rng):
    """An attribute with the right name and the wrong kind (an INT where FLOATS are expected)."""
    candidates = [(node, attribute) for node in _nodes(model) for attribute in node.attribute]
    if not candidates:
        return None
    node, attribute = rng.choice(candidates)
    name = attribute.name
    replacement = rng.choice(
        (
            helper.make_attribute(name, 3),
            helper.make_attribute(name, 0.5),
            helper.make_attribute(name, "text"),
            helper.make_attribute(name, [1, 2]),
            helper.make_attribute(name, [0.5]),
            helper.make_attribute(name, helper.make_tensor("t", TensorProto.FLOAT, [2], [1.0, 2.0])),
        )
    )
    attribute.CopyFrom(replacement)
    return f"attribute {name} of {node.op_type} replaced by kind {AttributeProto.AttributeType.Name(replacement.type)}"


def mutate_attribute_removal(model, rng):
    candidates = [(node, index) for node in _nodes(model) for index in range(len(node.attribute))]
    if not candidates:
        return None
    node, index = rng.choice(candidates)
    name = node.attribute[index].name
    del node.attribute[index]
    return f"attribute {name} of {node.op_type} removed"


def mutate_extra_attribute(model, rng):
    nodes = _nodes(model)
    if not nodes:
        return None
    node = rng.choice(nodes)
    node.attribute.append(helper.make_attribute(rng.choice(("bogus", "axis", "alpha", "mode")), rng.choice((1, 2.5, "x"))))
    return f"attribute {node.attribute[-1].name} added to {node.op_type}"


def mutate_element_type(model, rng):
    values = _values(model)
    if not values:
        return None
    value = rng.choice(values)
    new = rng.choice(ELEMENT_TYPES)
    value.type.tensor_type.elem_type = new
    return f"element type of {value.name} set to {TensorProto.DataType.Name(new)}"


def mutate_shape(model, rng):
    values = _values(model)
    if not values:
        return None
    value = rng.choice(values)
    tensor = value.type.tensor_type
    choice = rng.randrange(6)
    if choice == 0 or not tensor.HasField("shape"):
        if rng.random() < 0.5:
            tensor.ClearField("shape")
            return f"shape of {value.name} removed (unknown rank)"
        tensor.shape.dim.add().dim_value = rng.choice(ODD_DIMS[:5])
        return f"shape of {value.name}: a dim added"
    dims = tensor.shape.dim
    if choice == 1 and len(dims):
        del dims[rng.randrange(len(dims))]
        return f"shape of {value.name}: a dim dropped (rank {len(dims)})"
    if choice == 2:
        dims.insert(rng.randrange(len(dims) + 1), onnx.TensorShapeProto.Dimension(dim_value=rng.choice((1, 2, 5))))
        return f"shape of {value.name}: a dim inserted (rank {len(dims)})"
    if choice == 3 and len(dims):
        dims[rng.randrange(len(dims))].dim_param = rng.choice(("N", "batch", ""))
        return f"shape of {value.name}: a dim made symbolic"
    if len(dims):
        position = rng.randrange(len(dims))
        dims[position].dim_value = rng.choice(ODD_DIMS)
        return f"shape of {value.name}: dim {position} set to {dims[position].dim_value}"
    tensor.shape.dim.add().dim_value = rng.choice(ODD_DIMS)
    return f"shape of {value.name}: rank 0 made rank 1"


def mutate_dropped_input(model, rng):
    candidates = [node for node in _nodes(model) if node.input]
    if not candidates:
        return None
    node = rng.choice(candidates)
    position = rng.randrange(len(node.input))
    if rng.random() < 0.5:
        node.input[position] = ""
        return f"input {position} of {node.op_type} made empty"
    del node.input[position]
    return f"input {position} of {node.op_type} dropped"


def mutate_extra_input(model, rng):
    nodes = _nodes(model)
    if not nodes:
        return None
    node = rng.choice(nodes)
    names = [value.name for value in model.graph.input] + [init.name for init in model.graph.initializer]
    name = rng.choice(names + ["no_such_value"]) if names else "no_such_value"
    node.input.append(name)
    return f"extra input {name!r} appended to {node.op_type}"


def mutate_output(model, rng):
    """A node output renamed, dropped, or a graph output naming nothing."""
    nodes = [node for node in _nodes(model) if node.output]
    if not nodes:
        return None
    node = rng.choice(nodes)
    if rng.random() < 0.5:
        node.output.append(f"extra_{len(node.output)}")
        return f"extra output appended to {node.op_type}"
    node.output[0] = "renamed_output"
    return f"output 0 of {node.op_type} renamed"


def mutate_opset(model, rng):
    imports = [opset for opset in model.opset_import if opset.domain in ("", "ai.onnx")]
    if not imports:
        return None
    opset = imports[0]
    opset.version = rng.choice((1, 3, 6, 7, 9, 11, 13, 17, onnx.defs.onnx_opset_version(), 99))
    return f"default opset set to {opset.version}"


def _schema_names():
    return sorted({schema.name for schema in onnx.defs.get_all_schemas() if schema.domain == ""})


_OP_TYPES = None


def mutate_op_type(model, rng):
    global _OP_TYPES
    nodes = _nodes(model)
    if not nodes:
        return None
    if _OP_TYPES is None:
        _OP_TYPES = _schema_names()
    node = rng.choice(nodes)
    old = node.op_type
    node.op_type = rng.choice(_OP_TYPES + ["NoSuchOp"])
    return f"op type {old} changed to {node.op_type}"


def mutate_initializer(model, rng):
    initializers = list(model.graph.initializer)
    if not initializers:
        return None
    tensor = rng.choice(initializers)
    if rng.random() < 0.5 and len(tensor.dims):
        tensor.dims[rng.randrange(len(tensor.dims))] += rng.choice((1, -1, 5))
        return f"initializer {tensor.name}: a dim changed, data left as is"
    tensor.data_type = rng.choice(ELEMENT_TYPES)
    return f"initializer {tensor.name}: data type set to {tensor.data_type}"


def truncate_bytes(data: bytes, rng):
    cut = rng.randrange(len(data)) if data else 0
    return data[:cut], f"truncated to {cut} of {len(data)} bytes"


def flip_bits(data: bytes, rng):
    if not data:
        return data, "empty"
    mutable = bytearray(data)
    flips = rng.choice((1, 1, 2, 4, 8))
    for _ in range(flips):
        position = rng.randrange(len(mutable))
        mutable[position] ^= 1 << rng.randrange(8)
    return bytes(mutable), f"{flips} bit(s) flipped"


MODEL_MUTATIONS = {
    "attribute-value": mutate_attribute_value,
    "attribute-kind": mutate_attribute_kind,
    "attribute-removal": mutate_attribute_removal,
    "attribute-extra": mutate_extra_attribute,
    "element-type": mutate_element_type,
    "shape": mutate_shape,
    "input-dropped": mutate_dropped_input,
    "input-extra": mutate_extra_input,
    "output": mutate_output,
    "opset": mutate_opset,
    "op-type": mutate_op_type,
    "initializer": mutate_initializer,
}
BYTE_MUTATIONS = {"truncated": truncate_bytes, "bit-flip": flip_bits}
MUTATIONS = tuple(MODEL_MUTATIONS) + tuple(BYTE_MUTATIONS)


def mutate(model_bytes: bytes, rng: random.Random) -> tuple[bytes, str, str]:
    """(mutated bytes, mutation kind, description): a mutation the model admits, chosen by `rng`."""
    for _ in range(20):
        kind = rng.choice(MUTATIONS)
        if kind in BYTE_MUTATIONS:
            data, description = BYTE_MUTATIONS[kind](model_bytes, rng)
            return data, kind, description
        model = onnx.load_from_string(model_bytes)
        description = MODEL_MUTATIONS[kind](model, rng)
        if description is not None:
            return model.SerializeToString(), kind, description
    data, description = flip_bits(model_bytes, rng)
    return data, "bit-flip", description
