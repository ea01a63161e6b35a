"""Protobuf wire-format surgery: take the large initializer payloads out of a serialized model.

Parsing a serialized ModelProto copies every weight into the protobuf
message. Instead, the importer scans the bytes (usually a memory-mapped file),
re-serializes the model without the `raw_data` of large main-graph
initializers, and records where each payload sits in the original buffer.
The weights then reach MLIR as slices of the mapping: they are never copied.
"""

from dataclasses import dataclass

from ..errors import ModelLoadError

# Field numbers from onnx.proto.
MODEL_GRAPH = 7
GRAPH_INITIALIZER = 5
TENSOR_NAME = 8
TENSOR_RAW_DATA = 9

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


@dataclass
class StrippedModel:
    serialized: bytes
    payloads: dict  # initializer name -> (offset, length) in the original buffer


def strip_initializer_payloads(buffer: memoryview, threshold: int, name: str) -> StrippedModel:
    """`buffer` minus the main-graph initializer `raw_data` fields longer than `threshold` bytes."""
    payloads = {}
    output = bytearray()
    for field, wire_type, start, value_start, end in _fields(buffer, 0, len(buffer), name):
        if field == MODEL_GRAPH and wire_type == LENGTH_DELIMITED:
            graph = _strip_graph(buffer, value_start, end, threshold, payloads, name)
            output += _varint((field << 3) | wire_type) + _varint(len(graph)) + graph
        else:
            output += buffer[start:end]
    return StrippedModel(bytes(output), payloads)


def _strip_graph(buffer, begin, end, threshold, payloads, name) -> bytearray:
    output = bytearray()
    for field, wire_type, start, value_start, field_end in _fields(buffer, begin, end, name):
        if field == GRAPH_INITIALIZER and wire_type == LENGTH_DELIMITED:
            tensor = _strip_tensor(buffer, value_start, field_end, threshold, payloads, name)
            output += _varint((field << 3) | wire_type) + _varint(len(tensor)) + tensor
        else:
            output += buffer[start:field_end]
    return output


def _strip_tensor(buffer, begin, end, threshold, payloads, name) -> bytearray:
    output = bytearray()
    tensor_name, payload = None, None
    for field, wire_type, start, value_start, field_end in _fields(buffer, begin, end, name):
        if field == TENSOR_RAW_DATA and wire_type == LENGTH_DELIMITED and field_end - value_start > threshold:
            payload = (value_start, field_end - value_start)
            continue
        if field == TENSOR_NAME and wire_type == LENGTH_DELIMITED:
            tensor_name = bytes(buffer[value_start:field_end]).decode("utf-8", "replace")
        output += buffer[start:field_end]
    if payload is not None:
        payloads[tensor_name or ""] = payload
    return output


def _fields(buffer, position, end, name):
    """Yield (field, wire_type, start, value_start, end) for each field in buffer[position:end]."""
    while position < end:
        start = position
        key, position = _read_varint(buffer, position, end, name)
        field, wire_type = key >> 3, key & 7
        if wire_type == VARINT:
            _, position = _read_varint(buffer, position, end, name)
            value_start = start
        elif wire_type == LENGTH_DELIMITED:
            length, value_start = _read_varint(buffer, position, end, name)
            position = value_start + length
        elif wire_type in (FIXED64, FIXED32):
            value_start = position
            position += 8 if wire_type == FIXED64 else 4
        else:
            raise ModelLoadError(f"{name}: not an ONNX model (protobuf wire type {wire_type} at byte {start})")
        if field == 0 or position > end:
            raise ModelLoadError(f"{name}: not an ONNX model (truncated or corrupt protobuf at byte {start})")
        yield field, wire_type, start, value_start, position


def _read_varint(buffer, position, end, name):
    result = shift = 0
    while True:
        if position >= end or shift > 63:
            raise ModelLoadError(f"{name}: not an ONNX model (truncated or corrupt protobuf at byte {position})")
        byte = buffer[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
