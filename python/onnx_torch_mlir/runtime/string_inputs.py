"""Numpy strings as the byte tensors a compiled program takes for an ONNX string input.

The compiler holds each string as its UTF-8 bytes, zero-padded to the width W it was compiled with
(importer/string_bytes.py): a string input of shape S is an argument of shape S + [W], uint8. A
string of more than W bytes cannot be held and is refused here, naming the width to compile with.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..errors import RunnerError


def is_string_array(array) -> bool:
    return isinstance(array, np.ndarray) and array.dtype.kind in "OUS"


def encode_strings(array: np.ndarray, width: int, name: str = "input") -> np.ndarray:
    """`array` (str, bytes or objects holding them) as uint8 `[*array.shape, width]`."""
    flat = array.reshape(-1)
    encoded = np.zeros((flat.size, width), np.uint8)
    for index, item in enumerate(flat.tolist()):
        data = item if isinstance(item, bytes) else str(item).encode("utf-8")
        if len(data) > width:
            raise RunnerError(f"{name}: a string of {len(data)} bytes is longer than the {width} bytes the program "
                              f"holds per string; compile with --string-bytes {_round_up(len(data))} or more")
        if b"\0" in data:
            raise RunnerError(f"{name}: a string holds the byte 0, which pads strings held as bytes")
        encoded[index, :len(data)] = np.frombuffer(data, np.uint8)
    return encoded.reshape(*array.shape, width)


def _round_up(size: int) -> int:
    return 1 << (size - 1).bit_length()


def entry_argument_shapes(module: ir.Module) -> list[list[int]]:
    """The argument shapes of `module`'s entry function (the runners' find_entry)."""
    from .calling_convention import find_entry

    function = find_entry(module, None)
    shapes = []
    for argument in function.type.inputs:
        shapes.append(list(argument.shape) if isinstance(argument, ir.RankedTensorType) else [])
    return shapes


def strings_as_bytes(inputs: list, shapes: list[list[int]]) -> list:
    """`inputs`, with each string array encoded at its argument's width (its last dim)."""
    encoded = []
    for index, (array, shape) in enumerate(zip(inputs, shapes)):
        if is_string_array(array):
            if len(shape) != array.ndim + 1 or shape[-1] < 0:
                raise RunnerError(f"input {index}: strings for an argument of shape {shape}, which does not hold "
                                  "strings as bytes")
            array = encode_strings(array, shape[-1], f"input {index}")
        encoded.append(array)
    return encoded + list(inputs[len(shapes):])
