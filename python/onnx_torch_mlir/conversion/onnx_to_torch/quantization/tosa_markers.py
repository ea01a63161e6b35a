"""Quantization markers for TOSA: what a QuantizeLinear or DequantizeLinear is, carried to TOSA.

On TOSA, a QDQ graph's QuantizeLinear and DequantizeLinear are computed in float (exact_rounding.py;
arith.py), and the ops between them (Conv, Add, MaxPool, ...) run in float on the dequantized
values. TOSA's integer profile and the NPU compilers (Vela) want the other form: int8 tensors,
int32 accumulators and `tosa.rescale`. transforms/tosa/quantized_regions/ builds that form after
torch-mlir's lowering; to do so it must know which values are quantized and how. So, on TOSA, each
QuantizeLinear to int8 or uint8 and each DequantizeLinear of int8, uint8 or int32 with literal
parameters wraps its float computation in a marker:

    %y = func.call @onnx_torch_mlir.quantize_linear$<key>(%x, %computed) : (f32 x, si8) -> si8
    %y = func.call @onnx_torch_mlir.dequantize_linear$<key>(%q, %computed) : (si8 or si32, f32) -> f32

whose value is `%computed` (the form of the other targets), and whose private declaration holds the
scale, zero point and axis as JSON (and `"unsigned": true` for uint8, which TOSA holds as i8 bits) (`onnx_torch_mlir.quantization`: passes of the Torch pipeline
rebuild calls and drop their attributes, as for custom_ops_onnx.py's carriers). A call is legal in
torch-mlir's backend contract, so the marker passes the Torch pipeline; the TOSA route makes it a
`tosa.custom` before torch-mlir's lowering and resolves it after: the integer form where the whole
computation between a dequantization and a quantization has one, else `%computed`.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
from torch_mlir import ir
from torch_mlir.dialects import func

from ..builder import TorchBuilder
from ..node import OnnxNode

QUANTIZE = "quantize_linear"
DEQUANTIZE = "dequantize_linear"
PREFIX = "onnx_torch_mlir."
PARAMETERS = "onnx_torch_mlir.quantization"  # the declaration's JSON attribute


def marker_parameters(node: OnnxNode, scale_index: int, zero_point_index: int, rank: int) -> dict | None:
    """{"scale": [...], "zero_point": [...], "axis": axis or None} of literal float32 per-tensor or
    per-axis parameters, else None (run-time or blocked parameters keep the float form only)."""
    from .arith import constant

    if node.attr_int("block_size", 0) or node.input_info(scale_index).element != "f32":
        return None
    scale = constant(node, scale_index)
    if scale is None or scale.ndim > 1 or not np.all(np.isfinite(scale)) or not np.all(scale > 0):
        return None
    zero_point = np.zeros(scale.shape, np.int64)
    if node.has_input(zero_point_index):
        literal = constant(node, zero_point_index)
        if literal is None or literal.shape != scale.shape:
            return None
        zero_point = literal.astype(np.int64)
    axis = None
    if scale.ndim == 1 and scale.size > 1:
        axis = node.attr_int("axis", 1) % rank
    return {"scale": [float(value) for value in scale.reshape(-1)],
            "zero_point": [int(value) for value in zero_point.reshape(-1)], "axis": axis}


def marked(b: TorchBuilder, name: str, operands: list[ir.Value], result_type: ir.Type, parameters: dict) -> ir.Value:
    """The marker call `name` (QUANTIZE or DEQUANTIZE) of `operands` (the input, then the value it
    stands for), its declaration made on first use."""
    encoded = json.dumps(parameters, separators=(",", ":"))
    types = ([value.type for value in operands], [result_type])
    key = hashlib.sha1(f"{types} {encoded}".encode()).hexdigest()[:16]
    symbol = f"{PREFIX}{name}${key}"
    module = b.anchor
    while module.parent is not None:
        module = module.parent
    table = ir.SymbolTable(module)
    if symbol not in table:
        with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]), ir.Location.unknown(b.context):
            declaration = func.FuncOp(symbol, types, visibility="private")
            declaration.operation.attributes[PARAMETERS] = ir.StringAttr.get(encoded, b.context)
    with b.location, ir.InsertionPoint(b.anchor):
        return func.CallOp([result_type], ir.FlatSymbolRefAttr.get(symbol, b.context), operands).results[0]
