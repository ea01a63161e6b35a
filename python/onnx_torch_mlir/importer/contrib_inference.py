"""Typing the results of the operators ONNX's shape inference does not know (see contrib_types).

`type_contrib_results(model)` runs between ONNX inference rounds. It walks the
graph (and its subgraphs) in order. A node `contrib_types` knows gets the result
types its function computes from the node's input types. An ONNX node that reads
a value typed in this walk is typed right away by ONNX's inference of that one
node (`onnx.shape_inference.infer_node_outputs`): the fused transformer blocks
onnxruntime's optimizer writes alternate contrib and ONNX ops (Attention, MatMul,
SkipLayerNormalization, MatMul, FastGelu, ...), and without this every link of
that chain would cost a whole inference round. The next full round then
propagates data and types everything after. Types are only ever completed (an
element type or dims where none were known), never changed.
"""

from __future__ import annotations

from collections import ChainMap

import numpy as np
import onnx
from onnx import numpy_helper

from .contrib_types import TensorType, inference_for, result_types

# Constant inputs are read only when this small (scalars and shapes, not weights).
MAX_CONSTANT_ELEMENTS = 64
# What a malformed node makes an inference function or ONNX's node inference raise: its results stay untyped.
_INFERENCE_FAILURES = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError)


class _Walk:
    """What the walk of one model shares across its graphs."""

    def __init__(self, model: onnx.ModelProto):
        self.opsets = {opset.domain: opset.version for opset in model.opset_import}
        self.opset_imports = list(model.opset_import)
        self.ir_version = model.ir_version
        self.local_functions = {(function.domain, function.name) for function in model.functions}
        self.fresh = set()  # names typed in this walk


def type_contrib_results(model: onnx.ModelProto) -> bool:
    """Type the results of contrib ops (and the ONNX ops they feed) in `model`; True if a type was added."""
    return _type_graph(model.graph, ChainMap(), ChainMap(), _Walk(model))


def _type_graph(graph: onnx.GraphProto, outer_types: ChainMap, outer_constants: ChainMap, walk: _Walk) -> bool:
    declared = _declared_values(graph)
    types = outer_types.new_child({tensor.name: _initializer_type(tensor) for tensor in graph.initializer})
    types.update({name: value.type for name, value in declared.items()})
    constants = outer_constants.new_child(_small_constants(graph))
    changed = False
    for node in graph.node:
        for attribute in node.attribute:
            for subgraph in [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else attribute.graphs:
                changed |= _type_graph(subgraph, types, constants, walk)
        for name, type_proto in _node_result_types(node, types, constants, walk).items():
            if _record(graph, declared, name, type_proto):
                types[name] = declared[name].type
                walk.fresh.add(name)
                changed = True
    return changed


def _node_result_types(node: onnx.NodeProto, types, constants, walk: _Walk) -> dict:
    """name -> TypeProto for the results of `node` that can be typed now (possibly already typed)."""
    if (node.domain, node.op_type) in walk.local_functions:
        return {}
    function = inference_for(node, walk.opsets)
    if function is not None:
        return _contrib_result_types(node, function, types, constants)
    if any(name in walk.fresh for name in node.input):
        return _onnx_node_result_types(node, types, constants, walk)
    return {}


def _contrib_result_types(node: onnx.NodeProto, function, types, constants) -> dict:
    input_types = [_tensor_type(types.get(name)) if name else None for name in node.input]
    try:
        inferred = result_types(node, function, input_types, lambda name: _array(constants.get(name)))
    except _INFERENCE_FAILURES:
        return {}
    return {name: _type_proto(found) for name, found in zip(node.output, inferred) if name and found is not None}


def _onnx_node_result_types(node: onnx.NodeProto, types, constants, walk: _Walk) -> dict:
    """ONNX's inference of `node` alone, once all its inputs are typed."""
    if any(name and name not in types for name in node.input):
        return {}
    domain = "" if node.domain == "ai.onnx" else node.domain
    try:
        schema = onnx.defs.get_schema(node.op_type, walk.opsets.get(domain, walk.opsets.get("ai.onnx", 1)), domain)
    except onnx.defs.SchemaError:
        return {}
    has_subgraphs = any(attribute.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for attribute in node.attribute)
    # A subgraph may read any value of the enclosing scopes.
    input_types = dict(types) if has_subgraphs else {name: types[name] for name in node.input if name}
    input_data = {name: constants[name] for name in node.input if name in constants}
    try:
        return onnx.shape_inference.infer_node_outputs(
            schema, node, input_types, input_data, opset_imports=walk.opset_imports, ir_version=walk.ir_version
        )
    except (onnx.shape_inference.InferenceError, *_INFERENCE_FAILURES):
        return {}


# -- recording a type -------------------------------------------------------------------------
def _declared_values(graph: onnx.GraphProto) -> dict:
    """name -> the ValueInfoProto the importer reads for it: outputs over value_info over inputs."""
    declared = {}
    for collection in (graph.input, graph.value_info, graph.output):
        for value in collection:
            declared[value.name] = value
    return declared


def _record(graph: onnx.GraphProto, declared: dict, name: str, found: onnx.TypeProto) -> bool:
    """Complete the declared type of `name` with `found`; True if it changed."""
    if not found.HasField("tensor_type") or found.tensor_type.elem_type == onnx.TensorProto.UNDEFINED:
        return False
    value = declared.get(name)
    if value is None:
        value = declared[name] = graph.value_info.add(name=name)
    return _complete(value.type, found.tensor_type)


def _complete(existing: onnx.TypeProto, found: onnx.TypeProto.Tensor) -> bool:
    """Give `existing` the element type and dims of `found` it lacks; known parts are kept."""
    if existing.WhichOneof("value") not in (None, "tensor_type"):
        return False
    tensor = existing.tensor_type
    changed = False
    if tensor.elem_type == onnx.TensorProto.UNDEFINED:
        tensor.elem_type = found.elem_type
        changed = True
    if tensor.elem_type != found.elem_type or not found.HasField("shape"):
        return changed
    if not tensor.HasField("shape"):
        tensor.shape.CopyFrom(found.shape)
        return True
    if len(tensor.shape.dim) != len(found.shape.dim):
        return changed
    for dim, found_dim in zip(tensor.shape.dim, found.shape.dim):
        if not dim.HasField("dim_value") and not dim.dim_param and (found_dim.HasField("dim_value") or found_dim.dim_param):
            dim.CopyFrom(found_dim)
            changed = True
    return changed


# -- types and constants --------------------------------------------------------------------
def _tensor_type(type_proto: onnx.TypeProto | None) -> TensorType | None:
    if type_proto is None or type_proto.WhichOneof("value") != "tensor_type":
        return None
    tensor = type_proto.tensor_type
    if tensor.elem_type == onnx.TensorProto.UNDEFINED:
        return None
    if not tensor.HasField("shape"):
        return TensorType(tensor.elem_type, None)
    return TensorType(tensor.elem_type, tuple(_dim(dim) for dim in tensor.shape.dim))


def _dim(dim: onnx.TensorShapeProto.Dimension):
    if dim.HasField("dim_value") and dim.dim_value >= 0:
        return int(dim.dim_value)
    return dim.dim_param or None


def _type_proto(found: TensorType) -> onnx.TypeProto:
    proto = onnx.TypeProto()
    proto.tensor_type.elem_type = found.element_type
    if found.dims is not None:
        proto.tensor_type.shape.SetInParent()
        for size in found.dims:
            dim = proto.tensor_type.shape.dim.add()
            if isinstance(size, (int, np.integer)) and size >= 0:
                dim.dim_value = int(size)
            elif isinstance(size, str) and size:
                dim.dim_param = size
    return proto


def _initializer_type(tensor: onnx.TensorProto) -> onnx.TypeProto:
    return onnx.helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims))


def _small_constants(graph: onnx.GraphProto) -> dict:
    """name -> TensorProto of the graph's small initializers and Constant nodes' tensors."""
    constants = {tensor.name: tensor for tensor in graph.initializer if _is_small(tensor)}
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and node.output:
            for attribute in node.attribute:
                if attribute.name == "value" and attribute.type == onnx.AttributeProto.TENSOR and _is_small(attribute.t):
                    constants[node.output[0]] = attribute.t
    return constants


def _is_small(tensor: onnx.TensorProto) -> bool:
    external = tensor.data_location == onnx.TensorProto.EXTERNAL
    return not external and int(np.prod(list(tensor.dims), dtype=np.int64)) <= MAX_CONSTANT_ELEMENTS


def _array(tensor: onnx.TensorProto | None) -> np.ndarray | None:
    if tensor is None:
        return None
    try:
        return numpy_helper.to_array(tensor)
    except Exception:  # noqa: BLE001 - a malformed or payload-less tensor: not a usable constant
        return None
