"""BitCast (opset 26): the same bits read as another element type of the same width.

Between integer types (and bool as an 8-bit integer) the bits survive a value conversion
that wraps modulo 2^width, so `aten.to.dtype` is the bit cast on every backend (uint8 to
bool is `!= 0`: a bool byte other than 0 or 1 has no meaning). Where a float type is
involved the op is `aten.view.dtype`, which torch-mlir lowers to StableHLO
(`stablehlo.bitcast_convert`) only: for Linalg and TOSA the node fails with that reason.
"""

from __future__ import annotations

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import FLOAT_ELEMENTS

_WIDTHS = {
    "i1": 8, "si8": 8, "ui8": 8, "si16": 16, "ui16": 16, "si32": 32, "ui32": 32, "si64": 64, "ui64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "f8E4M3FN": 8, "f8E4M3FNUZ": 8, "f8E5M2": 8, "f8E5M2FNUZ": 8,
}


@converts("BitCast", since=26)
def bit_cast(node: OnnxNode, b: TorchBuilder):
    """Y has X's bits as element type `to` (same width, same shape)."""
    x = node.input(0)
    source = node.input_info(0).element
    target = node.attr_element_type("to")
    widths = _WIDTHS.get(source), _WIDTHS.get(target)
    if None in widths:
        node.fail(f"BitCast from {source} to {target} is not supported")
    if widths[0] != widths[1]:
        node.fail(f"'to' ({target}, {widths[1]} bits) must have the width of the input ({source}, {widths[0]} bits)")
    if source == target:
        return x
    if source not in FLOAT_ELEMENTS and target not in FLOAT_ELEMENTS:
        if target == "i1":
            return b.op("aten.ne.Scalar", node.result_type(), x, b.constant_int(0))
        return b.to_dtype(x, target)
    if node.target in ("linalg-on-tensors", "tosa"):
        node.fail(f"BitCast from {source} to {target} reinterprets float bits: torch-mlir lowers aten.view.dtype "
                  f"to StableHLO only, not to {node.target}")
    return b.op("aten.view.dtype", node.result_type(), x, b.dtype(target))
