"""Types for every value: ONNX shape inference, with data propagation, on a weightless copy.

ONNX's `infer_shapes` serializes the whole model and parses it back (four
copies of every weight, and a hard 2 GB limit). We run it on a skeleton: the
model without the payloads of its large initializers (only their names,
element types and dims, which is all shape inference reads from them). The
skeleton is small whatever the size of the weights, so models over 2 GB need
no path-based detour.
"""

import onnx

from ..errors import ImportError_
from .constant_folding import type_through_folding
from .contrib_inference import type_contrib_results
from .if_ranks import choose_if_ranks, strictly_typed
from .squeeze_ranks import choose_squeeze_ranks
from .if_types import relax_if_outputs
from .shape_values import refine_types
from .static_if import resolve_static_ifs
from .subgraph_inference import infer_subgraph_types

# Initializers whose serialized size is at most this stay whole in the skeleton:
# data propagation reads small constants (shapes, axes, pads).
KEEP_INITIALIZER_BYTES = 1024


def skeleton(model: onnx.ModelProto) -> tuple[onnx.ModelProto, dict]:
    """`model` without large initializer payloads, and name -> original initializer for those."""
    if not any(_is_large(tensor) for tensor in model.graph.initializer):
        return model, {}
    result = onnx.ModelProto()
    originals = {}
    for descriptor, value in model.ListFields():
        if descriptor.name != "graph":
            copy_field(result, descriptor, value)
    for descriptor, value in model.graph.ListFields():
        if descriptor.name == "initializer":
            result.graph.initializer.extend(_without_payload(tensor, originals) for tensor in value)
        else:
            copy_field(result.graph, descriptor, value)
    return result, originals


def copy_field(target, descriptor, value) -> None:
    if descriptor.is_repeated:
        getattr(target, descriptor.name).extend(value)
    elif descriptor.message_type is not None:
        getattr(target, descriptor.name).CopyFrom(value)
    else:
        setattr(target, descriptor.name, value)


def _is_large(tensor: onnx.TensorProto) -> bool:
    return tensor.HasField("raw_data") and tensor.ByteSize() > KEEP_INITIALIZER_BYTES


def _without_payload(tensor: onnx.TensorProto, originals: dict) -> onnx.TensorProto:
    if not _is_large(tensor):
        return tensor
    originals[tensor.name] = tensor
    stripped = onnx.TensorProto(name=tensor.name, data_type=tensor.data_type, dims=tensor.dims)
    return stripped


def infer_types(model: onnx.ModelProto, model_name: str, choose_if_ranks_: bool = True) -> onnx.ModelProto:
    """`model` with value_info for every value shape inference can type.

    When some value is left without a rank or with a dim inference could not
    determine, small constant subexpressions are folded in a copy and inference
    runs again there; the types it finds are given to `model` (whose nodes stay
    as they are). Then, in rounds until nothing changes, the results of
    operators ONNX has no schema for (`com.microsoft`) are typed
    (`contrib_inference`), an If whose condition the shape values decide is
    replaced by its branch (`static_if`), and the dims that shape tensors
    determine but ONNX's data propagation leaves unknown are filled in
    (`shape_values`), and inference runs again for the ops downstream. Subgraphs are
    typed last (`subgraph_inference`), and an If's outputs then get the common type of
    what its branches yield (`if_types`). An If whose run-time condition picks between ranks gets
    the one rank the rest of the graph can take, where only one can (`if_ranks`), and so does a
    Squeeze without axes over `?` dims (`squeeze_ranks`); not while such a choice is being tried,
    `choose_if_ranks_` False.
    """
    inferred = _infer(model, model_name)
    _release_unproven_static_dims(inferred, model_name)
    type_through_folding(inferred, lambda folded: _infer(folded, model_name))
    refined = _refined(inferred, model_name)
    while choose_if_ranks_ and _choose_run_time_ranks(refined, model_name):
        refined = _refined(_infer(refined, model_name), model_name)
    if _has_subgraphs(refined.graph):
        infer_subgraph_types(refined, lambda lifted: infer_types(lifted, model_name, choose_if_ranks_))
        refined = _infer(refined, model_name)  # the results of If/Loop/Scan from their typed subgraphs
        if relax_if_outputs(refined, _declared_types(model.graph), model_name):
            refined = _infer(refined, model_name)
    return refined


def _choose_run_time_ranks(model: onnx.ModelProto, model_name: str) -> bool:
    """Type the Ifs and axis-less Squeezes whose rank is decided at run time by the one choice the
    rest of the graph takes (`if_ranks`, `squeeze_ranks`); True if any was typed."""
    def well_typed(candidate: onnx.ModelProto) -> bool:
        return _well_typed(candidate, model_name)

    return choose_if_ranks(model, well_typed) or choose_squeeze_ranks(model, well_typed)


def _refined(typed: onnx.ModelProto, model_name: str) -> onnx.ModelProto:
    return refine_types(
        typed, lambda again: _infer(again, model_name), add_types=(type_contrib_results, resolve_static_ifs)
    )


def _well_typed(candidate: onnx.ModelProto, model_name: str) -> bool:
    """Whether `candidate`, typed by the whole inference, passes ONNX's strict inference."""
    try:
        return strictly_typed(infer_types(candidate, model_name, choose_if_ranks_=False))
    except ImportError_:
        return False


def _declared_types(graph: onnx.GraphProto) -> dict:
    return {value.name: value.type for value in list(graph.value_info) + list(graph.output)}


def _release_unproven_static_dims(inferred: onnx.ModelProto, model_name: str) -> None:
    """Give back to a graph input's symbolic dim each declared static dim that follows from it.

    Exporters sometimes write the example's size into value_info where the value's dim is the
    input's symbolic one (torch's dynamo exporter types an nn.GRU's output [batch, 12, 32] for a
    dynamic sequence exported at 12); the program then runs with 12 at every length: wrong numbers.
    Inference from the graph inputs alone (no value_info) proves which dims are an input's symbolic
    dim; where the declaration says a number there, the symbolic dim is kept instead.
    """
    graph = inferred.graph
    symbols = {dim.dim_param for value in graph.input for dim in value.type.tensor_type.shape.dim if dim.dim_param}
    if not symbols:
        return
    base, _ = skeleton(inferred)
    plain = onnx.ModelProto()
    plain.CopyFrom(base)
    del plain.graph.value_info[:]
    proven = {value.name: value.type for value in _infer(plain, model_name).graph.value_info}
    for value in graph.value_info:
        found = proven.get(value.name)
        if found is None or not value.type.HasField("tensor_type") or not found.HasField("tensor_type"):
            continue
        declared, derived = value.type.tensor_type.shape.dim, found.tensor_type.shape.dim
        if len(declared) != len(derived):
            continue
        for dim, proof in zip(declared, derived):
            if dim.HasField("dim_value") and proof.dim_param in symbols:
                dim.dim_param = proof.dim_param  # clears dim_value (a oneof)


def _has_subgraphs(graph: onnx.GraphProto) -> bool:
    return any(attribute.type == onnx.AttributeProto.GRAPH for node in graph.node for attribute in node.attribute)


def _infer(model: onnx.ModelProto, model_name: str) -> onnx.ModelProto:
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
    except Exception as error:  # onnx raises several unrelated types here
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ImportError_(f"{model_name}: shape inference failed: {message}") from None
