"""ZipMap graph outputs compiled as the dense probabilities they zip.

skl2onnx's default classifier export ends with ai.onnx.ml `ZipMap`: a sequence of maps from class
label to probability, one map per row, which torch cannot carry. A ZipMap whose output is a graph
output and is read by no node is compiled as its input instead, the dense float `[N, C]` tensor
whose column j is the probability of `classlabels_int64s[j]` (or `classlabels_strings[j]`): the
importer warns once per such output and records the label order on the module
(`LABELS_ATTRIBUTE`: a dictionary from output name to the list of labels). `verify` and the
zoo's harness turn onnxruntime's list of dicts into that array by the same order
(`dense_probabilities`), so that the two compare. A ZipMap read by another node stays refused
(`ml_types.map_problem`).
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
from onnx import AttributeProto, helper
from torch_mlir import ir

from ..errors import OnnxTorchMlirWarning

ML_DOMAIN = "ai.onnx.ml"
LABELS_ATTRIBUTE = "onnx_torch_mlir.zipmap_labels"


def output_labels(model: onnx.ModelProto) -> dict[str, list]:
    """Output name -> class labels of each ZipMap the compiler takes: one giving a graph output that
    no node reads."""
    graph = model.graph
    outputs = {value.name for value in graph.output}
    read = _names_read(graph)
    labels = {}
    for node in graph.node:
        if node.op_type == "ZipMap" and node.domain == ML_DOMAIN and len(node.output) == 1:
            name = node.output[0]
            if name in outputs and name not in read:
                labels[name] = _labels(node)
    return labels


def zipmap_outputs_as_tensors(model: onnx.ModelProto, model_name: str) -> tuple[onnx.ModelProto, dict[str, list]]:
    """`model` with each ZipMap of `output_labels` an Identity of its dense input, and the labels."""
    labels = output_labels(model)
    if not labels:
        return model, labels
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(model)
    graph = rewritten.graph
    for index, node in enumerate(graph.node):
        if node.op_type == "ZipMap" and node.domain == ML_DOMAIN and node.output[0] in labels:
            graph.node[index].CopyFrom(helper.make_node("Identity", list(node.input), list(node.output), name=node.name))
    for value in graph.output:
        if value.name in labels:
            value.type.CopyFrom(helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, None))
            count = len(labels[value.name])
            warnings.warn(OnnxTorchMlirWarning(
                f"{model_name}: ZipMap output '{value.name}' is compiled as its dense [N, {count}] probabilities, "
                f"columns in the order of the class labels {_shown(labels[value.name])} (module attribute "
                f"{LABELS_ATTRIBUTE})"), stacklevel=3)
    return rewritten, labels


def record_labels(module: ir.Module, labels: dict[str, list]) -> None:
    """The label order of each ZipMap output, as the module attribute `LABELS_ATTRIBUTE`."""
    if not labels:
        return
    entries = {}
    for name, values in labels.items():
        if values and isinstance(values[0], str):
            entries[name] = ir.ArrayAttr.get([ir.StringAttr.get(value) for value in values])
        else:
            i64 = ir.IntegerType.get_signless(64)
            entries[name] = ir.ArrayAttr.get([ir.IntegerAttr.get(i64, int(value)) for value in values])
    module.operation.attributes[LABELS_ATTRIBUTE] = ir.DictAttr.get(entries)


def dense_probabilities(value, labels: list) -> np.ndarray:
    """onnxruntime's ZipMap result (a list of dicts from label to probability) as the float32
    [N, C] array the compiled model returns, column j for `labels[j]`."""
    rows = list(value)
    return np.array([[row[label] for label in labels] for row in rows], dtype=np.float32).reshape(len(rows), len(labels))


def dense_outputs(model: onnx.ModelProto, names: list[str], values: list) -> list:
    """`values` (onnxruntime's outputs named `names`) with each ZipMap output made dense."""
    labels = output_labels(model)
    return [dense_probabilities(value, labels[name]) if name in labels else value for name, value in zip(names, values)]


def _labels(node: onnx.NodeProto) -> list:
    for attribute in node.attribute:
        if attribute.name == "classlabels_int64s":
            return [int(value) for value in attribute.ints]
        if attribute.name == "classlabels_strings":
            return [value.decode() for value in attribute.strings]
    return []


def _shown(labels: list) -> str:
    return str(labels) if len(labels) <= 8 else f"[{', '.join(map(repr, labels[:8]))}, ...] ({len(labels)} labels)"


def _names_read(graph: onnx.GraphProto) -> set[str]:
    """Every name a node of `graph` or of its subgraphs reads."""
    read = set()
    for node in graph.node:
        read.update(node.input)
        for attribute in node.attribute:
            bodies = [attribute.g] if attribute.type == AttributeProto.GRAPH else list(attribute.graphs)
            for body in bodies:
                read |= _names_read(body)
    return read
