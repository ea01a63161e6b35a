"""A Squeeze without axes over dims known only at run time gets the rank the rest of its graph
can take.

Without axes, Squeeze removes every dim of size 1, so over a `?` dim its result's rank is decided
at run time, which torch cannot carry; ONNX's inference leaves such a result untyped. TorchScript
traces write it for `x.squeeze()`: speechmos' PLCMOS squeezes its `[batch_size, 1]` score with the
batch traced at 1, and declares the graph's output `[]`. Only one of the two readings, "every `?`
dim is 1" or "no `?` dim is 1", may then agree with what the graph declares downstream.

So each such Squeeze of the main graph whose result has no rank yet is given, in turn, the type
of each reading, the whole inference runs on the copy and ONNX's strict inference checks every
node and declaration. When exactly one reading passes, the result keeps its type in the model;
the conversion reads which dims it squeezes from it, and checks at run time that each squeezed
`?` dim is 1 where the backend can (`conversion/onnx_to_torch/reshaping.py`). When both pass or
neither does, the result stays untyped and the conversion fails naming the node; `--dim` or
`--input-shape` fix the sizes and decide it. (Mixed readings, some `?` dims squeezed and others
kept, are not tried.)
"""

from __future__ import annotations

from collections.abc import Callable

import onnx


def choose_squeeze_ranks(model: onnx.ModelProto, well_typed: Callable[[onnx.ModelProto], bool]) -> bool:
    """Type each undecided main-graph Squeeze without axes by the one reading under which
    `well_typed(candidate)` holds; True if any was typed."""
    graph = model.graph
    chosen = False
    for index, node in enumerate(graph.node):
        if not _squeezes_every_unit_dim(node):
            continue
        entries = _typed_values(graph)
        if _rank(entries.get(node.output[0])) is not None:
            continue
        readings = _readings(entries.get(node.input[0]))
        if readings is None:
            continue
        passing = [reading for reading in readings if well_typed(_with_result_type(model, index, reading))]
        if len(passing) == 1:
            _set_result_type(graph, node, passing[0])
            chosen = True
    return chosen


def _squeezes_every_unit_dim(node: onnx.NodeProto) -> bool:
    if node.op_type != "Squeeze" or node.domain not in ("", "ai.onnx") or not node.input or not node.output:
        return False
    has_axes = any(attribute.name == "axes" for attribute in node.attribute) or (len(node.input) > 1 and node.input[1])
    return not has_axes


def _typed_values(graph: onnx.GraphProto) -> dict:
    return {value.name: value for value in list(graph.input) + list(graph.value_info) + list(graph.output)}


def _rank(value):
    if value is None or value.type.WhichOneof("value") != "tensor_type" or not value.type.tensor_type.HasField("shape"):
        return None
    return len(value.type.tensor_type.shape.dim)


def _readings(source) -> list[onnx.TypeProto] | None:
    """[type when no `?` dim is 1, type when every `?` dim is 1], or None when the input's rank is
    unknown or every dim is known."""
    if _rank(source) is None:
        return None
    tensor = source.type.tensor_type
    dims = [dim for dim in tensor.shape.dim if not (dim.HasField("dim_value") and dim.dim_value == 1)]
    if all(dim.HasField("dim_value") for dim in dims):
        return None
    every_one = [dim for dim in dims if dim.HasField("dim_value")]
    return [_tensor_type(tensor.elem_type, dims), _tensor_type(tensor.elem_type, every_one)]


def _tensor_type(element: int, dims) -> onnx.TypeProto:
    type_proto = onnx.TypeProto()
    type_proto.tensor_type.elem_type = element
    type_proto.tensor_type.shape.SetInParent()
    for dim in dims:
        type_proto.tensor_type.shape.dim.add().CopyFrom(dim)
    return type_proto


def _with_result_type(model: onnx.ModelProto, index: int, type_proto: onnx.TypeProto) -> onnx.ModelProto:
    candidate = onnx.ModelProto()
    candidate.CopyFrom(model)
    _set_result_type(candidate.graph, candidate.graph.node[index], type_proto)
    return candidate


def _set_result_type(graph: onnx.GraphProto, node: onnx.NodeProto, type_proto: onnx.TypeProto) -> None:
    entries = _typed_values(graph)
    name = node.output[0]
    if name not in entries:
        entries[name] = graph.value_info.add(name=name)
    entries[name].type.CopyFrom(type_proto)
