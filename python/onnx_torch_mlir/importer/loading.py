"""Reading an ONNX model from a path, bytes or a ModelProto, with one-line errors."""

from pathlib import Path

import onnx
from google.protobuf.message import DecodeError

from ..errors import ModelLoadError


def load_model(source) -> onnx.ModelProto:
    """`source`: a path (str or Path), the serialized bytes, or an onnx.ModelProto."""
    if isinstance(source, onnx.ModelProto):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _parse(bytes(source), "<bytes>")
    path = Path(source)
    if not path.exists():
        raise ModelLoadError(f"{path}: no such file")
    if path.is_dir():
        raise ModelLoadError(f"{path}: is a directory, not an ONNX model")
    try:
        return onnx.load(str(path))
    except DecodeError as error:
        raise ModelLoadError(f"{path}: not an ONNX model (protobuf parse failed: {error})") from None
    except Exception as error:
        raise ModelLoadError(f"{path}: cannot load ONNX model: {error}") from None


def _parse(data: bytes, name: str) -> onnx.ModelProto:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError as error:
        raise ModelLoadError(f"{name}: not an ONNX model (protobuf parse failed: {error})") from None
    if not model.HasField("graph"):
        raise ModelLoadError(f"{name}: not an ONNX model (no graph)")
    return model
