"""Where tensor bytes come from, without copying them.

A `WeightStore` hands out a buffer for each tensor's payload:
- a slice of the memory-mapped model file, for the large initializers the
  loader took out of the protobuf (see `wire.py`);
- a slice of a memory-mapped external data file, for `data_location: EXTERNAL`;
- the protobuf's own `raw_data` otherwise.
External data locations are resolved inside the model's directory only:
one that escapes it (`../x`, an absolute path, a symlink out) is refused.
"""

import mmap
import os
from pathlib import Path

import onnx

from ..errors import ModelLoadError


def map_file(path: Path) -> memoryview:
    """A read-only memory mapping of `path` (empty files give an empty view)."""
    with open(path, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if size == 0:
            return memoryview(b"")
        return memoryview(mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ))


# What a file Git LFS did not download holds instead of the content: a short text "pointer".
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"


def refuse_lfs_pointer(data, what: str) -> None:
    """Name a Git LFS pointer file for what it is, rather than call it a corrupt protobuf."""
    if bytes(data[: len(LFS_POINTER_PREFIX)]) == LFS_POINTER_PREFIX:
        raise ModelLoadError(
            f"{what} is a Git LFS pointer, not the file itself (run `git lfs pull` in its repository to fetch it)"
        )


class WeightStore:
    """Payload buffers for the tensors of one model.

    `model_name` names the model in errors; `base_dir` is where external data
    lives (None when the model came from bytes or a proto with no known home);
    `mapped`/`payloads`: the mapped model file and the (offset, length) of the
    main-graph initializer payloads taken out of the protobuf.
    """

    def __init__(self, model_name: str, base_dir: Path | None, mapped=None, payloads=None):
        self.model_name = model_name
        self.base_dir = base_dir.resolve() if base_dir is not None else None
        self.mapped = mapped
        self.payloads = payloads or {}
        self.originals: dict[str, onnx.TensorProto] = {}  # initializers left out of the typed skeleton
        self._external_files: dict[Path, memoryview] = {}

    def raw_buffer(self, tensor: onnx.TensorProto, main_graph_initializer: bool = False):
        """The raw little-endian bytes of `tensor`, or None if it stores typed fields."""
        if main_graph_initializer and tensor.name in self.payloads:
            offset, length = self.payloads[tensor.name]
            return self.mapped[offset : offset + length]
        if main_graph_initializer and tensor.name in self.originals:
            tensor = self.originals[tensor.name]
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            return self._external(tensor)
        if tensor.HasField("raw_data"):
            return memoryview(tensor.raw_data)
        return None

    def _external(self, tensor: onnx.TensorProto) -> memoryview:
        entries = {entry.key: entry.value for entry in tensor.external_data}
        location = entries.get("location", "")
        what = f"{self.model_name}: initializer '{tensor.name}'"
        if not location:
            raise ModelLoadError(f"{what}: external data without a location")
        path = self.resolve_location(location, what)
        view = self._external_files.get(path)
        if view is None:
            if not path.is_file():
                raise ModelLoadError(f"{what}: external data file '{location}' not found in {self.base_dir}")
            view = self._external_files[path] = map_file(path)
            refuse_lfs_pointer(view, f"{what}: external data file '{location}'")
        offset = int(entries.get("offset", 0) or 0)
        length = int(entries["length"]) if entries.get("length") else len(view) - offset
        if offset < 0 or length < 0 or offset + length > len(view):
            raise ModelLoadError(
                f"{what}: external data file '{location}' is too short "
                f"({len(view)} bytes, need {offset + length})"
            )
        return view[offset : offset + length]

    def resolve_location(self, location: str, what: str) -> Path:
        """`location` inside the model directory; path traversal is refused."""
        if self.base_dir is None:
            raise ModelLoadError(f"{what}: external data '{location}' but the model has no directory (pass base_dir)")
        candidate = Path(location)
        if candidate.is_absolute() or ".." in candidate.parts:
            raise ModelLoadError(f"{what}: external data location '{location}' escapes the model directory (refused)")
        path = (self.base_dir / candidate).resolve()
        if not path.is_relative_to(self.base_dir):
            raise ModelLoadError(f"{what}: external data location '{location}' escapes the model directory (refused)")
        return path
