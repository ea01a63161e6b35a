"""Result types inferred again for one node, from what the conversion knows about its inputs.

ONNX shape inference at import leaves some values without a rank or a size: an expanded
function body whose split lengths or shapes are computed (`Shape`, `Sub`, `Concat`) types
everything after them as unranked. By the time the conversion reaches such a node, its inputs
may be known better: an earlier node's conversion produced a static type (its result was then
cast to the declared one, and `OnnxNode` looks through that cast), and our folding made the
computed shape operands constants. Before converting a node with a result short of a rank,
or with an input known better than declared, ONNX's inference runs again on that node alone,
with those input types and constant operands; a result type it gives that refines the declared
one is what the pattern sees as the node's result type.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnx.shape_inference
from onnx import helper, numpy_helper
from torch_mlir import ir

from .functions import node_proto, onnx_type_proto, torch_result_type
from .node import OnnxNode, UnsupportedNode, onnx_schema
from .types import refines, tensor_info

MAX_CONSTANT_ELEMENTS = 1 << 12  # constant operands passed to the inference (shape-like ones)


def _worth_inferring(node: OnnxNode) -> bool:
    results = [tensor_info(node.op.results[i].type) for i in range(node.num_results)]
    if all(info is None or info.is_static for info in results) or node.op.regions:
        return False
    unranked = any(info is not None and info.sizes is None for info in results)
    return unranked or any(node.has_input(i) and node.input_is_tensor(i) and node.input_is_refined(i)
                           for i in range(node.num_inputs))


def _constant(node: OnnxNode, index: int) -> np.ndarray | None:
    value = node.constant_input(index)
    return value if value is not None and value.size <= MAX_CONSTANT_ELEMENTS else None


def _inferred_types(node: OnnxNode) -> list:
    schema = onnx_schema(node.op_type, node.opset, node.domain)
    if schema is None:
        return []
    proto = node_proto(node, schema)
    inputs, initializers = [], []
    for index, name in enumerate(proto.input):
        if not name:
            continue
        if not node.input_is_tensor(index):
            return []
        inputs.append(helper.make_value_info(name, onnx_type_proto(node.input_info(index), name)))
        constant = _constant(node, index)
        if constant is not None:
            initializers.append(numpy_helper.from_array(np.asarray(constant), name))
    outputs = [helper.make_value_info(name, onnx.TypeProto()) for name in proto.output if name]
    graph = helper.make_graph([proto], "node", inputs, outputs, initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(node.domain, node.opset)])
    model.ir_version = 10
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    by_name = {value.name: value.type for value in inferred.graph.output}
    return [by_name.get(name) if name else None for name in proto.output]


def refined_result_types(node: OnnxNode) -> dict[int, ir.Type]:
    """index -> a result type more precise than the declared one, for the results ONNX's inference
    on this node alone (with the inputs as the conversion knows them) types better."""
    if not _worth_inferring(node):
        return {}
    try:
        types = _inferred_types(node)
    except (UnsupportedNode, onnx.shape_inference.InferenceError, ValueError, TypeError):
        return {}  # an attribute we cannot restate, or an inference error: keep the declared types
    refined = {}
    for index, type_proto in enumerate(types):
        inferred = torch_result_type(type_proto, node.op.context) if type_proto is not None else None
        declared = tensor_info(node.op.results[index].type)
        if inferred is not None and tensor_info(inferred) != declared and refines(tensor_info(inferred), declared):
            refined[index] = inferred
    return refined
