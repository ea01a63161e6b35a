"""Folding small constant subexpressions, so that shape inference can type what they shape.

Exporters compute shapes with chains of small integer ops on constants (the
TorchScript exporter writes `Mod(2, 3)`, `Add`, `Reshape` of one-element tensors
to build Slice bounds). ONNX's data propagation does not evaluate every op, so
a Reshape downstream can stay without a rank. Evaluating each node whose inputs
are all small constants (ONNX's reference evaluator, one node at a time) and
re-running shape inference on the folded copy gives those values their types.

The fold is used for types only: the importer keeps the model's own nodes.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

# Only tensors this small are evaluated or kept: shape arithmetic, never weights.
MAX_ELEMENTS = 1024
_NONDETERMINISTIC = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"}
_SUBGRAPH_ATTRIBUTES = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)


def has_unranked_values(model: onnx.ModelProto) -> bool:
    """True when a node result has no type, or a tensor type without a rank, after inference."""
    typed = {value.name: value for value in list(model.graph.value_info) + list(model.graph.output)}
    for node in model.graph.node:
        for name in node.output:
            value = typed.get(name)
            if name and (value is None or (value.type.HasField("tensor_type") and not value.type.tensor_type.HasField("shape"))):
                return True
    return False


def fold_small_constants(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` where each node computing a small constant from small constants is a Constant."""
    known = _small_initializers(model.graph)
    nodes = []
    for node in model.graph.node:
        values = _evaluate(node, known, model.opset_import) if _foldable(node, known) else None
        if values is None:
            nodes.append(node)
            continue
        for name, value in values.items():
            known[name] = value
            nodes.append(helper.make_node("Constant", [], [name], name=node.name, value=numpy_helper.from_array(value, name)))
    folded = onnx.ModelProto()
    folded.CopyFrom(model)
    del folded.graph.node[:]
    folded.graph.node.extend(nodes)
    return folded


def _small_initializers(graph: onnx.GraphProto) -> dict:
    overridable = {value.name for value in graph.input}  # an initializer that is also an input may be fed
    return {
        tensor.name: numpy_helper.to_array(tensor)
        for tensor in graph.initializer
        if tensor.name not in overridable and int(np.prod(tensor.dims)) <= MAX_ELEMENTS and _has_payload(tensor)
    }


_PAYLOAD_FIELDS = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data")


def _has_payload(tensor: onnx.TensorProto) -> bool:
    """False for external data and for the importer's weightless skeleton copies."""
    if tensor.external_data or tensor.data_type == onnx.TensorProto.STRING:
        return False
    return int(np.prod(tensor.dims)) == 0 or any(len(getattr(tensor, field)) for field in _PAYLOAD_FIELDS)


def _foldable(node: onnx.NodeProto, known: dict) -> bool:
    return (
        node.domain in ("", "ai.onnx")
        and node.op_type not in _NONDETERMINISTIC
        and all(attribute.type not in _SUBGRAPH_ATTRIBUTES for attribute in node.attribute)
        and all(not name or name in known for name in node.input)
    )


def _evaluate(node: onnx.NodeProto, known: dict, opset_import) -> dict | None:
    """{output name: value} by ONNX's reference evaluator, or None if it fails or a value is large."""
    from onnx.reference import ReferenceEvaluator

    feeds = {name: known[name] for name in node.input if name}
    inputs = [
        helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape)
        for name, value in feeds.items()
    ]
    outputs = [name for name in node.output if name]
    graph = helper.make_graph([node], "fold", inputs, [helper.make_empty_tensor_value_info(name) for name in outputs])
    try:
        values = ReferenceEvaluator(helper.make_model(graph, opset_imports=opset_import)).run(None, feeds)
    except Exception:  # noqa: BLE001 - an op the evaluator cannot run simply stays an op
        return None
    values = [np.asarray(value) for value in values]
    if len(values) != len(outputs) or any(value.size > MAX_ELEMENTS or value.dtype == object for value in values):
        return None
    return dict(zip(outputs, values))
