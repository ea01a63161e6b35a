"""Folding small constant subexpressions, so that shape inference can type what they shape.

Exporters compute shapes with chains of small integer ops on constants (the
TorchScript exporter writes `Mod(2, 3)`, `Add`, `Reshape` of one-element tensors
to build Slice bounds). ONNX's data propagation does not evaluate every op, so
a Reshape downstream can stay without a rank. Evaluating each node whose inputs
are all small constants (ONNX's reference evaluator, one node at a time) and
re-running shape inference on the folded copy gives those values their types.

The same holds for dims: a chain inference does not evaluate leaves a Reshape
ranked but with unknown sizes (Dinov2's position grid is
`Reshape(pos, [1, Cast(Pow(16.0, 0.5)), ..., 32])`: data propagation evaluates no
Pow and no float Cast), and in a static model that `?` reaches the conversion,
which then picks a pattern's dynamic form (a Resize of it became an
interpolation StableHLO cannot lower). So the fold also runs when a result has
a dim that is neither a size nor a graph input's named dim.

The fold is used for types only: the importer keeps the model's own nodes.
"""

import warnings

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


def has_undetermined_dims(model: onnx.ModelProto) -> bool:
    """True when a node result has a dim inference could not determine: neither a size nor
    a named dim of a graph input (inference names the dims it cannot determine `unk__N`)."""
    named = _input_dim_names(model.graph)
    produced = {name for node in model.graph.node for name in node.output if name}
    return any(
        not dim.HasField("dim_value") and dim.dim_param not in named
        for value in list(model.graph.value_info) + list(model.graph.output)
        if value.name in produced and value.type.HasField("tensor_type")
        for dim in value.type.tensor_type.shape.dim
    )


def type_through_folding(inferred: onnx.ModelProto, infer) -> None:
    """Give `inferred` (in place) the types `infer` finds on a copy with small constant
    subexpressions folded, where they know more: when a result is left without a type, a
    rank or a determined dim, and some node folds."""
    if not (has_unranked_values(inferred) or has_undetermined_dims(inferred)):
        return
    folded = fold_small_constants(inferred)
    if _computations(folded) == _computations(inferred):
        return  # nothing folded: inference would find what it found
    refined = infer(folded)
    named = _input_dim_names(inferred.graph)
    found = {value.name: value for value in list(refined.graph.value_info) + list(refined.graph.output)}
    typed = set()
    for value in list(inferred.graph.value_info) + list(inferred.graph.output):
        typed.add(value.name)
        better = found.get(value.name)
        if better is not None and _knows_at_least(better.type, value.type, named):
            value.type.CopyFrom(better.type)
    inferred.graph.value_info.extend(value for value in refined.graph.value_info if value.name not in typed)


def _input_dim_names(graph: onnx.GraphProto) -> set:
    return {dim.dim_param for value in graph.input if value.type.HasField("tensor_type")
            for dim in value.type.tensor_type.shape.dim if dim.dim_param}


def _computations(model: onnx.ModelProto) -> int:
    """The number of nodes that are not Constants (a folded node becomes one)."""
    return sum(node.op_type != "Constant" for node in model.graph.node)


def _knows_at_least(candidate: onnx.TypeProto, current: onnx.TypeProto, named: set) -> bool:
    """`candidate` keeps all `current` knows of a tensor type: element type, rank, sizes and
    graph inputs' named dims."""
    if not current.HasField("tensor_type"):
        return not current.HasField("sequence_type") and not current.HasField("optional_type")
    if not candidate.HasField("tensor_type"):
        return False
    now, then = current.tensor_type, candidate.tensor_type
    if now.elem_type and then.elem_type != now.elem_type:
        return False
    if not now.HasField("shape"):
        return True
    if not then.HasField("shape") or len(then.shape.dim) != len(now.shape.dim):
        return False
    for old, new in zip(now.shape.dim, then.shape.dim):
        if old.HasField("dim_value") and not (new.HasField("dim_value") and new.dim_value == old.dim_value):
            return False
        if old.dim_param in named and not (new.HasField("dim_value") or new.dim_param == old.dim_param):
            return False
    return True


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
        # A log(0) or a cast of inf in the model's own value arithmetic is the model's business:
        # the values only type the graph here, so numpy's warnings about them are not the user's.
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = ReferenceEvaluator(helper.make_model(graph, opset_imports=opset_import)).run(None, feeds)
    except Exception:  # noqa: BLE001 - an op the evaluator cannot run simply stays an op
        return None
    values = [np.asarray(value) for value in values]
    if len(values) != len(outputs) or any(value.size > MAX_ELEMENTS or value.dtype == object for value in values):
        return None
    return dict(zip(outputs, values))
