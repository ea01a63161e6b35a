"""Reading an ONNX model from a path, bytes or a ModelProto, with one-line errors.

`load_model` gives a complete ModelProto (external data loaded), for callers
that need one. `open_model` is what the importer uses: it memory-maps the
file and parses the protobuf without the large weights (see `wire.py`), so
the weights are never copied; external data stays in its files, mapped.
"""

from dataclasses import dataclass
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx.external_data_helper import _get_all_tensors

from ..errors import ModelLoadError
from .weights import WeightStore, map_file, refuse_lfs_pointer
from .wire import strip_initializer_payloads

# Initializer payloads up to this size stay in the protobuf: shape inference
# needs the small ones (shapes, axes) and copying them costs nothing.
INLINE_PAYLOAD_BYTES = 1024
# Files up to this size are parsed whole: a copy this small costs less than the scan.
SMALL_FILE_BYTES = 16 * 2**20


class NamedBytes(bytes):
    """A serialized model that says where it came from (`<stdin>`): the name in errors and locations."""

    def __new__(cls, data: bytes, name: str):
        made = super().__new__(cls, data)
        made.name = name
        return made


@dataclass
class OpenedModel:
    proto: onnx.ModelProto  # without the payloads `weights` holds
    weights: WeightStore
    name: str  # the file name, or "<bytes>" / "<model>", for locations and errors


def load_model(source) -> onnx.ModelProto:
    """`source`: a path (str or Path), the serialized bytes, or an onnx.ModelProto."""
    if isinstance(source, onnx.ModelProto):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        refuse_lfs_pointer(source, getattr(source, "name", "<bytes>"))
        return _parse(bytes(source), getattr(source, "name", "<bytes>"))
    path = _check_path(source)
    with open(path, "rb") as stream:
        refuse_lfs_pointer(stream.read(64), str(path))
    try:
        model = onnx.load(str(path), load_external_data=False)
    except DecodeError as error:
        raise ModelLoadError(f"{path}: not an ONNX model (protobuf parse failed: {error})") from None
    except Exception as error:
        raise ModelLoadError(f"{path}: cannot load ONNX model: {error}") from None
    if any(tensor.data_location == onnx.TensorProto.EXTERNAL for tensor in _get_all_tensors(model)):
        _load_external_data(model, path)
    return model


def _load_external_data(model: onnx.ModelProto, path: Path) -> None:
    """The external data into `model`, with the importer's errors (which initializer, which file)."""
    store = WeightStore(str(path), path.parent)
    for tensor in _get_all_tensors(model):
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            tensor.raw_data = bytes(store.raw_buffer(tensor))
            del tensor.external_data[:]
            tensor.data_location = onnx.TensorProto.DEFAULT


def open_model(source, base_dir=None) -> OpenedModel:
    """Open `source` for import without copying its weights.

    `base_dir` is where external data files live when `source` is bytes or a
    ModelProto (a path's own directory otherwise).
    """
    base = Path(base_dir) if base_dir is not None else None
    if isinstance(source, onnx.ModelProto):
        _check_graph(source, "<model>")
        return OpenedModel(source, WeightStore("<model>", base), "<model>")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _open_buffer(memoryview(source), getattr(source, "name", "<bytes>"), base)
    path = _check_path(source)
    return _open_buffer(map_file(path), str(path), base or path.parent)


def _open_buffer(buffer: memoryview, name: str, base_dir: Path | None) -> OpenedModel:
    refuse_lfs_pointer(buffer, name)
    if len(buffer) <= SMALL_FILE_BYTES:
        return OpenedModel(_parse(bytes(buffer), name), WeightStore(name, base_dir), name)
    stripped = strip_initializer_payloads(buffer, INLINE_PAYLOAD_BYTES, name)
    proto = _parse(stripped.serialized, name)
    return OpenedModel(proto, WeightStore(name, base_dir, buffer, stripped.payloads), name)


def _check_path(source) -> Path:
    path = Path(source)
    if not path.exists():
        raise ModelLoadError(f"{path}: no such file")
    if path.is_dir():
        raise ModelLoadError(f"{path}: is a directory, not an ONNX model")
    return path


def _parse(data: bytes, name: str) -> onnx.ModelProto:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError as error:
        raise ModelLoadError(f"{name}: not an ONNX model (truncated or corrupt protobuf: {error})") from None
    _check_graph(model, name)
    return model


def _check_graph(model: onnx.ModelProto, name: str) -> None:
    if not model.HasField("graph"):
        raise ModelLoadError(f"{name}: not an ONNX model (no graph)")
    bad = _first_bad_text(model.graph)
    if bad is not None:
        raise ModelLoadError(f"{name}: not an ONNX model ({bad} is not valid UTF-8; a corrupt file?)")


def _first_bad_text(graph: onnx.GraphProto) -> str | None:
    """Where a name of `graph` (or of a subgraph) is not valid UTF-8, else None.

    ONNX's strings are proto2 `string` fields, which protobuf does not validate: a corrupt
    byte gives Python a `bytes` object where a `str` is expected, and every later use fails.
    """
    if not isinstance(graph.name, str):
        return f"graph name {graph.name!r}"
    for value in list(graph.input) + list(graph.output) + list(graph.value_info) + list(graph.initializer):
        if not isinstance(value.name, str):
            return f"value name {value.name!r}"
        dims = value.type.tensor_type.shape.dim if isinstance(value, onnx.ValueInfoProto) else ()
        if any(not isinstance(dim.dim_param, str) for dim in dims):
            return f"a dim name of value {value.name!r}"
    for node in graph.node:
        for field in (node.name, node.op_type, node.domain, *node.input, *node.output):
            if not isinstance(field, str):
                return f"a name in node {node.name!r} ({node.op_type!r})"
        for attribute in node.attribute:
            if not isinstance(attribute.name, str) or not isinstance(attribute.ref_attr_name, str):
                return f"an attribute name of node {node.name!r}"
            for subgraph in ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs):
                bad = _first_bad_text(subgraph)
                if bad is not None:
                    return bad
    return None
