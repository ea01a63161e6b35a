"""Tensor types and dtypes: builtin `tensor<...>` and `!torch.vtensor<...>`, ONNX and torch codes.

The Python bindings expose no accessors for torch types, so `TensorInfo`
reads a type's printed form once and caches it; everything else in the
conversion asks this module about shapes and element types.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

DYNAMIC = None  # a `?` dimension in TensorInfo.sizes

# torch ScalarType codes (c10/core/ScalarType.h), keyed by torch-mlir element type spelling.
TORCH_DTYPE_CODES = {
    "ui8": 0, "si8": 1, "si16": 2, "si32": 3, "si64": 4, "f16": 5, "f32": 6, "f64": 7,
    "complex<f16>": 8, "complex<f32>": 9, "complex<f64>": 10, "i1": 11, "!torch.qint8": 12,
    "!torch.quint8": 13, "!torch.qint32": 14, "bf16": 15, "f8E5M2": 23, "f8E4M3FN": 24,
    "f8E5M2FNUZ": 25, "f8E4M3FNUZ": 26, "ui16": 27, "ui32": 28, "ui64": 29,
}

# ONNX TensorProto.DataType codes -> torch-mlir element type spelling.
ONNX_TO_TORCH_ELEMENT = {
    1: "f32", 2: "ui8", 3: "si8", 4: "ui16", 5: "si16", 6: "si32", 7: "si64", 9: "i1",
    10: "f16", 11: "f64", 12: "ui32", 13: "ui64", 14: "complex<f32>", 15: "complex<f64>",
    16: "bf16", 17: "f8E4M3FN", 18: "f8E4M3FNUZ", 19: "f8E5M2", 20: "f8E5M2FNUZ",
}

FLOAT_ELEMENTS = {"f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ"}
SIGNED_INTEGER_ELEMENTS = {"si8", "si16", "si32", "si64"}
UNSIGNED_INTEGER_ELEMENTS = {"ui8", "ui16", "ui32", "ui64"}


@dataclass(frozen=True)
class TensorInfo:
    """Shape and element type of a tensor type. `sizes` is None when unranked; `?` is None."""

    sizes: tuple | None
    element: str  # torch-mlir spelling: f32, si64, i1, ...

    @property
    def rank(self) -> int | None:
        return None if self.sizes is None else len(self.sizes)

    @property
    def is_float(self) -> bool:
        return self.element in FLOAT_ELEMENTS

    @property
    def is_integer(self) -> bool:
        return self.element in SIGNED_INTEGER_ELEMENTS or self.element in UNSIGNED_INTEGER_ELEMENTS

    @property
    def is_bool(self) -> bool:
        return self.element == "i1"

    @property
    def is_static(self) -> bool:
        return self.sizes is not None and all(size is not None for size in self.sizes)

    def vtensor_spelling(self) -> str:
        if self.sizes is None:
            return f"!torch.vtensor<*,{self.element}>"
        dims = ",".join("?" if size is None else str(size) for size in self.sizes)
        return f"!torch.vtensor<[{dims}],{self.element}>"

    def with_sizes(self, sizes) -> "TensorInfo":
        return TensorInfo(None if sizes is None else tuple(sizes), self.element)

    def with_element(self, element: str) -> "TensorInfo":
        return TensorInfo(self.sizes, element)


_VTENSOR = re.compile(r"^!torch\.vtensor<(\*|\[([^\]]*)\]),(.+)>$")
_BUILTIN_RANKED = re.compile(r"^tensor<((?:[0-9?]+x)*)([^x].*)>$")
_BUILTIN_UNRANKED = re.compile(r"^tensor<\*x(.+)>$")


def builtin_element_to_torch(element: str) -> str:
    """Builtin element spelling -> torch-mlir's: signless integers become signed (not i1)."""
    match = re.fullmatch(r"i(\d+)", element)
    if match and element != "i1":
        return f"si{match.group(1)}"
    return element


@functools.lru_cache(maxsize=4096)
def _parse(spelling: str) -> TensorInfo | None:
    match = _VTENSOR.match(spelling)
    if match:
        element = match.group(3)
        if match.group(1) == "*":
            return TensorInfo(None, element)
        dims = match.group(2)
        sizes = tuple(None if d == "?" else int(d) for d in dims.split(",")) if dims else ()
        return TensorInfo(sizes, element)
    match = _BUILTIN_UNRANKED.match(spelling)
    if match:
        return TensorInfo(None, builtin_element_to_torch(match.group(1)))
    match = _BUILTIN_RANKED.match(spelling)
    if match:
        dims = [d for d in match.group(1).split("x") if d]
        element = match.group(2)
        if "," in element:  # an encoding: tensor<2xf32, #enc>
            element = element.split(",")[0].strip()
        sizes = tuple(None if d == "?" else int(d) for d in dims)
        return TensorInfo(sizes, builtin_element_to_torch(element))
    return None


def tensor_info(mlir_type: ir.Type) -> TensorInfo | None:
    """The TensorInfo of a `tensor<...>` or `!torch.vtensor<...>` type, else None."""
    return _parse(str(mlir_type))


def refines(precise: TensorInfo | None, declared: TensorInfo | None) -> bool:
    """Whether `precise` is `declared` with more shape known: the same element type, a rank where
    `declared` has none or the same rank, and every size `declared` knows equal."""
    if precise is None or declared is None or precise.element != declared.element or precise.sizes is None:
        return False
    if declared.sizes is None:
        return True
    return len(precise.sizes) == len(declared.sizes) and all(
        d is None or d == p for p, d in zip(precise.sizes, declared.sizes)
    )


def is_builtin_tensor(mlir_type: ir.Type) -> bool:
    return str(mlir_type).startswith("tensor<")


def is_vtensor(mlir_type: ir.Type) -> bool:
    return str(mlir_type).startswith("!torch.vtensor<")


def is_none_type(mlir_type: ir.Type) -> bool:
    return str(mlir_type) in ("none", "!torch.none")


def vtensor_type(info: TensorInfo, context: ir.Context | None = None) -> ir.Type:
    return ir.Type.parse(info.vtensor_spelling(), context)


def to_vtensor_type(mlir_type: ir.Type) -> ir.Type | None:
    """The `!torch.vtensor` type a builtin tensor type converts to (itself if already one)."""
    if is_vtensor(mlir_type):
        return mlir_type
    info = tensor_info(mlir_type)
    return None if info is None else vtensor_type(info, mlir_type.context)


def torch_dtype_code(element: str) -> int:
    """torch's ScalarType integer for a torch-mlir element type spelling."""
    return TORCH_DTYPE_CODES[element]


def onnx_dtype_to_element(onnx_code: int) -> str | None:
    return ONNX_TO_TORCH_ELEMENT.get(onnx_code)


def lowest_value(element: str) -> float | int:
    """The smallest value of an element type: -inf for floats, 0 (false) for i1, else the integer minimum."""
    if element in FLOAT_ELEMENTS:
        return -math.inf
    if element == "i1":
        return 0
    return int(np.iinfo(_numpy_integer(element)).min)


def highest_value(element: str) -> float | int:
    """The largest value of an element type: inf for floats, 1 (true) for i1, else the integer maximum."""
    if element in FLOAT_ELEMENTS:
        return math.inf
    if element == "i1":
        return 1
    return int(np.iinfo(_numpy_integer(element)).max)


def _numpy_integer(element: str) -> str:
    """si8 -> int8, ui16 -> uint16."""
    if element not in SIGNED_INTEGER_ELEMENTS and element not in UNSIGNED_INTEGER_ELEMENTS:
        raise ValueError(f"{element} is not an integer element type")
    return ("u" if element.startswith("u") else "") + "int" + element[2:]


def static_product(sizes) -> int | None:
    """The product of static sizes, None if any is dynamic (or the sizes are unknown)."""
    if sizes is None or any(size is None for size in sizes):
        return None
    product = 1
    for size in sizes:
        product *= size
    return product


# -- sequences and optionals: `!torch.list<...>` / `!torch.optional<...>` (the ONNX dialect spells
# them `!onnx.Seq<...>` / `!onnx.Opt<...>`) ------------------------------------------------------
_TORCH_CONTAINERS = ("!torch.list<", "!torch.optional<")
_ONNX_CONTAINERS = {"!onnx.Seq<": "!torch.list<", "!onnx.Opt<": "!torch.optional<"}


def is_torch_container(mlir_type: ir.Type) -> bool:
    """A `!torch.list<...>` or `!torch.optional<...>` type (an ONNX sequence or optional)."""
    return str(mlir_type).startswith(_TORCH_CONTAINERS)


def is_onnx_container(mlir_type: ir.Type) -> bool:
    """An ONNX dialect `!onnx.Seq<...>` or `!onnx.Opt<...>` type."""
    return str(mlir_type).startswith(tuple(_ONNX_CONTAINERS))


def _torch_spelling(spelling: str) -> str | None:
    """The torch spelling of a tensor, sequence or optional type spelling (`!torch.` prefix kept)."""
    for onnx_prefix, torch_prefix in _ONNX_CONTAINERS.items():
        if spelling.startswith(onnx_prefix) and spelling.endswith(">"):
            inner = _torch_spelling(spelling[len(onnx_prefix) : -1])
            return None if inner is None else f"{torch_prefix}{inner.removeprefix('!torch.')}>"
    if spelling.startswith(_TORCH_CONTAINERS):
        return spelling
    info = _parse(spelling)
    return None if info is None else info.vtensor_spelling()


def to_torch_type(mlir_type: ir.Type) -> ir.Type | None:
    """The torch type of a tensor, sequence or optional type in either spelling (None if it has none)."""
    spelling = _torch_spelling(str(mlir_type))
    return None if spelling is None else ir.Type.parse(spelling, mlir_type.context)


def container_element_type(mlir_type: ir.Type) -> ir.Type:
    """The element type of a `!torch.list<T>` or `!torch.optional<T>`: T (`!torch.vtensor<...>`, ...)."""
    spelling = str(mlir_type)
    inner = spelling[spelling.index("<") + 1 : -1]
    return ir.Type.parse(f"!torch.{inner}", mlir_type.context)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The operation that produces `value`, or None for a block argument."""
    owner = value.owner if isinstance(value, ir.Value) else None
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) else None


def shape_known_source(value: ir.Value) -> ir.Value:
    """`value`, or what it casts when it is a `tensor_static_info_cast` that only forgets shape
    knowledge: the producer's pattern knew a shape the node's declared type (ONNX shape
    inference) did not, and the nodes after it see that shape (an expanded function body whose
    values ONNX left without a rank)."""
    owner = defining_op(value)
    if owner is not None and owner.name == "torch.tensor_static_info_cast":
        source = owner.operands[0]
        if refines(tensor_info(source.type), tensor_info(value.type)):
            return source
    return value
