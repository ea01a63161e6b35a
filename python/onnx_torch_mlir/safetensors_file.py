"""Named arrays in a safetensors file, written and read without copying the data.

The format (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length, a JSON
header mapping each name to `{"dtype", "shape", "data_offsets": [begin, end]}` (offsets into the
data that follows the header) plus an optional `"__metadata__"` of strings, then the data, with no
holes. It is what weight-loading tools read (the `safetensors` package, IREE's `--parameters`,
PyTorch and JAX through it), and it can be memory-mapped: reading a file maps it, and each array is
a view of the mapping.

The writer streams each array's bytes to the file (an array over a memory-mapped model is read
page by page, never held twice). It pads the header with spaces so the data starts on a 64-byte
boundary, and writes the arrays widest element first, so every array starts at a multiple of its
element size and reads back as an aligned view.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping

import ml_dtypes
import numpy as np

from .errors import WeightsFileError

# safetensors dtype name <-> numpy dtype (the types both have).
_DTYPES = {
    "F64": np.dtype(np.float64), "F32": np.dtype(np.float32), "F16": np.dtype(np.float16),
    "BF16": np.dtype(ml_dtypes.bfloat16), "F8_E4M3": np.dtype(ml_dtypes.float8_e4m3fn),
    "F8_E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "I64": np.dtype(np.int64), "I32": np.dtype(np.int32), "I16": np.dtype(np.int16), "I8": np.dtype(np.int8),
    "U64": np.dtype(np.uint64), "U32": np.dtype(np.uint32), "U16": np.dtype(np.uint16), "U8": np.dtype(np.uint8),
    "BOOL": np.dtype(np.bool_),
}
_NAMES = {dtype: name for name, dtype in _DTYPES.items()}
_DATA_ALIGNMENT = 64
_METADATA = "__metadata__"


def dtype_name(dtype: np.dtype) -> str | None:
    """The safetensors name of `dtype` ("F32", ...), or None when the format has none for it."""
    return _NAMES.get(np.dtype(dtype))


def write_safetensors(path, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, str] | None = None) -> None:
    """Write `arrays` (name -> C-contiguous array) to `path`, with `metadata` (strings) in the header.

    The file appears whole or not at all (written beside it, then renamed)."""
    path = os.fspath(path)
    order = sorted(arrays, key=lambda name: -np.dtype(arrays[name].dtype).itemsize)  # stable: ties keep their order
    header: dict = {_METADATA: dict(metadata)} if metadata else {}
    offset = 0
    for name in order:
        array = arrays[name]
        kind = dtype_name(array.dtype)
        if kind is None:
            raise WeightsFileError(f"{path}: weight '{name}' has dtype {array.dtype}, which safetensors cannot hold")
        if not array.flags.c_contiguous:
            raise WeightsFileError(f"{path}: weight '{name}' is not a contiguous array")
        header[name] = {"dtype": kind, "shape": list(array.shape), "data_offsets": [offset, offset + array.nbytes]}
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % _DATA_ALIGNMENT)
    partial = f"{path}.partial"
    try:
        with open(partial, "wb") as stream:
            stream.write(struct.pack("<Q", len(text)))
            stream.write(text)
            for name in order:
                if arrays[name].nbytes:
                    stream.write(memoryview(np.ascontiguousarray(arrays[name]).reshape(-1).view(np.uint8)))
        os.replace(partial, path)
    except OSError as error:
        if os.path.exists(partial):
            os.unlink(partial)
        raise WeightsFileError(f"cannot write the weights file {path}: {error.strerror or error}") from None


def read_safetensors(path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The arrays of the safetensors file `path` (read-only views of a memory mapping, in the file's
    order) and its metadata."""
    path = os.fspath(path)
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as stream:
            prefix = stream.read(8)
            if len(prefix) < 8:
                raise WeightsFileError(f"{path}: not a safetensors file (shorter than its header length)")
            (length,) = struct.unpack("<Q", prefix)
            if 8 + length > size:
                raise WeightsFileError(f"{path}: not a safetensors file (header of {length} bytes in a {size}-byte file)")
            header = json.loads(stream.read(length))
    except OSError as error:
        raise WeightsFileError(f"cannot read the weights file {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise WeightsFileError(f"{path}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise WeightsFileError(f"{path}: not a safetensors file (its header is not a JSON object)")
    metadata = header.pop(_METADATA, None) or {}
    start = 8 + length
    mapping = np.memmap(path, dtype=np.uint8, mode="r") if size > start else np.zeros(0, np.uint8)
    arrays = {}
    for name, entry in sorted(header.items(), key=lambda item: _entry_offsets(path, *item)[0]):
        begin, end = _entry_offsets(path, name, entry)
        dtype = _DTYPES.get(entry.get("dtype"))
        if dtype is None:
            raise WeightsFileError(f"{path}: weight '{name}' has dtype {entry.get('dtype')}, which this reader does not take")
        shape = tuple(entry.get("shape", ()))
        count = int(np.prod(shape, dtype=np.int64))
        if end - begin != count * dtype.itemsize or start + end > size:
            raise WeightsFileError(f"{path}: weight '{name}' has {end - begin} bytes for shape {list(shape)} of {entry['dtype']}")
        data = mapping[start + begin : start + end]
        if (start + begin) % dtype.itemsize:  # another writer's unaligned array: copied into place
            data = data.copy()
        arrays[name] = data.view(dtype).reshape(shape)
    return arrays, {str(key): str(value) for key, value in metadata.items()}


def _entry_offsets(path: str, name: str, entry) -> tuple[int, int]:
    offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(value, int) for value in offsets)
            and 0 <= offsets[0] <= offsets[1]):
        raise WeightsFileError(f"{path}: weight '{name}' has no valid data_offsets")
    return offsets[0], offsets[1]
