"""Block-quantized weights of onnxruntime's LLM exports (domain `com.microsoft`, version 1):
MatMulNBits and GatherBlockQuantized, as onnxruntime's CPU kernels compute them (checked
against them numerically; docs/ContribOperators.md, core/graph/contrib_ops/contrib_defs.cc).

Both store `bits`-bit unsigned integers (2, 4 or 8) packed into uint8, low bits first, in
blocks of `block_size` values along the quantized axis, each block with its own scale and
zero point: value = (q - zero_point) * scale. The weights stay packed in the program and are
unpacked where they are used, in float arithmetic (exact below 2^24): byte b holds
q_i = floor(b / 2^(i * bits)) mod 2^bits. The bytes are read as floats with 256 added to
negative ones, so a backend that reads uint8 as int8 (TOSA) gives the same values.

- MatMulNBits: Y = A @ W^T (+ bias), W [N, K] dequantized from B [N, ceil(K / block_size),
  block_size * bits / 8], scales [N, k_blocks] (or flat), zero points packed uint8
  [N, ceil(k_blocks * bits / 8)] or unpacked like the scales, default 2^(bits - 1). Computed
  in A's float type whatever `accuracy_level` asks for (it sets the lowest accuracy onnxruntime
  may use: level 4 lets it quantize A to int8, which this conversion never does). Refused:
  g_idx (deprecated act-order groups), weight_prepacked, bits other than 2, 4, 8.
- GatherBlockQuantized: rows of uint8 `data` gathered along axis 0, then dequantized; data
  packed along its last dim (for bits < 8), quantized along the last dim (quantize_axis);
  zero points packed like data, default 2^(bits - 1). Negative indices count from the end,
  out-of-range ones give zeros (onnxruntime's kernel does both). Refused: int4/uint4 and FP8 data
  (no packed-byte form), gather_axis other than 0, quantize_axis other than the last dim.
"""

from __future__ import annotations

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

MICROSOFT = "com.microsoft"
SUPPORTED_BITS = (2, 4, 8)


def _dim(b: TorchBuilder, x: ir.Value, index: int):
    """Dim `index` of x: an int when static, else a `!torch.int`."""
    size = b.info(x).sizes[index]
    if size is not None:
        return size
    return b.op("aten.size.int", b.type("!torch.int"), x, b.constant_int(index))


def _slice_last(b: TorchBuilder, x: ir.Value, end: int) -> ir.Value:
    """x[..., :end] (static end)."""
    info = b.info(x)
    if info.sizes[-1] == end:
        return x
    return b.op(
        "aten.slice.Tensor", b.tensor_type([*info.sizes[:-1], end], info.element), x, b.constant_int(info.rank - 1),
        b.constant_int(0), b.constant_int(end), b.constant_int(1),
    )


def _unpacked(b: TorchBuilder, packed: ir.Value, bits: int, count: int, element: str) -> ir.Value:
    """The `bits`-bit values packed in the last dim of uint8 `packed`, as `element` floats:
    [..., bytes] -> [..., count] (the first `count` of bytes * 8 / bits)."""
    info = b.info(packed)
    as_float = b.to_dtype(packed, element)
    # (a rank-0 zero, not a Scalar: TOSA compares with a float Scalar in f64, which IREE refuses)
    zero = b.scalar_tensor_literal(0.0, element)
    negative = b.op("aten.lt.Tensor", b.tensor_type(info.sizes, "i1"), as_float, zero)
    wrapped = b.scalar_op("aten.add.Scalar", as_float, 256.0)
    as_float = b.op("aten.where.self", as_float.type, negative, wrapped, as_float)
    per_byte = 8 // bits
    if per_byte == 1:
        return _slice_last(b, as_float, count)
    levels = float(1 << bits)
    parts, remaining = [], as_float
    for _ in range(per_byte - 1):
        higher = b.unary("aten.floor", b.scalar_op("aten.div.Scalar", remaining, levels))
        parts.append(b.binary("aten.sub.Tensor", remaining, b.scalar_op("aten.mul.Scalar", higher, levels)))
        remaining = higher
    parts.append(remaining)
    stacked = b.op(
        "aten.stack", b.tensor_type([*info.sizes, per_byte], element), b.tensor_list(parts), b.constant_int(-1)
    )
    last = None if info.sizes[-1] is None else info.sizes[-1] * per_byte
    flat = b.op(
        "aten.flatten.using_ints", b.tensor_type([*info.sizes[:-1], last], element), stacked,
        b.constant_int(info.rank - 1), b.constant_int(info.rank),
    )
    return _slice_last(b, flat, count)


def _bits(node: OnnxNode) -> int:
    bits = node.attr_int("bits", 4)
    if bits not in SUPPORTED_BITS:
        node.fail(f"bits {bits} is not supported (2, 4 or 8)")
    return bits


def _check_uint8(node: OnnxNode, index: int, what: str) -> None:
    element = node.input_info(index).element
    if element not in ("ui8", "si8"):  # si8: the ONNX dialect's signless i8 read as signed
        node.fail(f"{what} of element type {element} is not supported: packed uint8 only")


# -- MatMulNBits ---------------------------------------------------------------------------------


def _zero_points(node: OnnxNode, b: TorchBuilder, n: int, blocks: int, bits: int, element: str) -> ir.Value:
    """[N, k_blocks] zero points as `element`: given packed or unpacked, else 2^(bits - 1)."""
    zero_points = node.optional_input(3)
    if zero_points is None:
        return b.scalar_tensor_literal(float(1 << (bits - 1)), element)
    info = node.input_info(3)
    if info.is_float:
        return b.to_dtype(b.reshape(zero_points, [n, blocks]), element)
    _check_uint8(node, 3, "zero_points")
    packed_width = -(-blocks * bits // 8)
    return _unpacked(b, b.reshape(zero_points, [n, packed_width]), bits, blocks, element)


@converts("MatMulNBits", since=1, domain=MICROSOFT)
def matmul_n_bits(node: OnnxNode, b: TorchBuilder):
    """Y = A @ dequantize(B)^T + bias, A [..., K], Y [..., N] (see the module docstring)."""
    if node.has_input(4):
        node.fail("input 4 (g_idx, deprecated act-order group indices) is not supported")
    if node.attr_int("weight_prepacked", 0):
        node.fail(f"attribute 'weight_prepacked' = {node.attr_int('weight_prepacked')} (an execution provider's "
                  "prepacked layout) is not supported")
    bits = _bits(node)
    k, n, block = node.attr_int("K", 0), node.attr_int("N", 0), node.attr_int("block_size", 0)
    if k <= 0 or n <= 0:
        node.fail("attributes 'K' and 'N' must be positive")
    if block < 16 or block & (block - 1):
        node.fail(f"block_size {block} must be a power of 2, at least 16")
    _check_uint8(node, 1, "B")
    a = node.input(0)
    element = node.input_info(0).element
    if not node.input_info(0).is_float:
        node.fail(f"A of element type {element} is not supported: a float type only")
    blocks = -(-k // block)
    blob = block * bits // 8
    packed = b.reshape(node.input(1), [n, blocks, blob])
    values = _unpacked(b, packed, bits, block, element)  # [N, k_blocks, block_size]
    scales = b.unsqueeze(b.to_dtype(b.reshape(node.input(2), [n, blocks]), element), 2)
    zero_points = _zero_points(node, b, n, blocks, bits, element)
    if b.info(zero_points).rank:
        zero_points = b.unsqueeze(zero_points, 2)
    weight = b.binary("aten.mul.Tensor", b.binary("aten.sub.Tensor", values, zero_points), scales)
    weight = _slice_last(b, b.reshape(weight, [n, blocks * block]), k)  # [N, K]
    transposed = b.op(
        "aten.transpose.int", b.tensor_type([k, n], element), weight, b.constant_int(0), b.constant_int(1)
    )
    sizes = node.input_sizes(0)
    if sizes[-1] is not None and sizes[-1] != k:
        node.fail(f"A's last dim {sizes[-1]} is not K = {k}")
    product = b.op("aten.matmul", b.tensor_type([*sizes[:-1], n], element), a, transposed)
    bias = node.optional_input(5)
    if bias is not None:
        product = b.binary("aten.add.Tensor", product, bias, product.type)
    return b.cast_to(product, node.result_type())


# -- GatherBlockQuantized -----------------------------------------------------------------------


@converts("GatherBlockQuantized", since=1, domain=MICROSOFT)
def gather_block_quantized(node: OnnxNode, b: TorchBuilder):
    """output[i..., j...] = dequantize(data)[indices[i...], j...] (see the module docstring)."""
    element = node.input_info(0).element
    if element not in ("ui8", "si8"):
        node.fail(f"data of element type {element} is not supported: packed uint8 only (int4/uint4 and FP8 "
                  "data have no packed-byte form here)")
    bits = _bits(node)
    data = node.input(0)
    data_sizes = node.input_sizes(0)
    rank = len(data_sizes)
    gather_axis, quantize_axis = node.attr_int("gather_axis", 0), node.attr_int("quantize_axis", 1)
    if gather_axis % rank:
        node.fail(f"gather_axis {gather_axis} is not supported: uint8 data is gathered along axis 0")
    if rank < 2 or quantize_axis % rank != rank - 1:
        node.fail(f"quantize_axis {quantize_axis} is not supported: the last dim of data (rank {rank}) only")
    block = node.attr_int("block_size", 128)
    if block < 16 or block & (block - 1):
        node.fail(f"block_size {block} must be a power of 2, at least 16")
    width = None if data_sizes[-1] is None else data_sizes[-1] * 8 // bits
    scale_sizes = node.input_sizes(2)
    if width is None or None in data_sizes[1:] or len(scale_sizes) != rank:
        node.fail("data needs static dims after the first, and scales the rank of data")
    blocks = -(-width // block)
    result = node.result_info()
    float_element = result.element

    indices = b.to_dtype(node.input(1), "si64")
    rows = _dim(b, data, 0)
    rows_value = rows if isinstance(rows, ir.Value) else b.constant_int(rows)
    index_sizes = b.info(indices).sizes
    negative = b.op("aten.lt.Scalar", b.tensor_type(index_sizes, "i1"), indices, b.constant_int(0))
    wrapped = b.op("aten.add.Scalar", indices.type, indices, rows_value, b.constant_int(1))
    indices = b.op("aten.where.self", indices.type, negative, wrapped, indices)
    in_range = b.op(
        "aten.logical_and", b.tensor_type(index_sizes, "i1"),
        b.op("aten.ge.Scalar", b.tensor_type(index_sizes, "i1"), indices, b.constant_int(0)),
        b.op("aten.lt.Scalar", b.tensor_type(index_sizes, "i1"), indices, rows_value),
    )
    last = b.op("aten.sub.int", b.type("!torch.int"), rows_value, b.constant_int(1))
    clamped = b.flatten(b.op("aten.clamp", indices.type, indices, b.constant_int(0), last))
    count = b.info(clamped).sizes[0]

    def gathered(x):  # x[clamped] along axis 0
        info = b.info(x)
        return b.op("aten.index_select", b.tensor_type([count, *info.sizes[1:]], info.element), x,
                    b.constant_int(0), clamped)

    values = _unpacked(b, gathered(data), bits, width, float_element)  # [count, ..., width]
    scales = b.to_dtype(gathered(node.input(2)), float_element)
    zero_points = node.optional_input(3)
    if zero_points is None:
        zero = b.scalar_tensor_literal(float(1 << (bits - 1)), float_element)
    else:
        _check_uint8(node, 3, "zero_points")
        zero = _unpacked(b, gathered(zero_points), bits, blocks, float_element)

    def per_value(x):  # [count, ..., blocks] -> [count, ..., width]: each block's value repeated
        info = b.info(x)
        expanded = b.op(
            "aten.broadcast_to", b.tensor_type([*info.sizes, block], info.element), b.unsqueeze(x, -1),
            b.list([b.constant_int(-1)] * info.rank + [b.constant_int(block)], "!torch.int"),
        )
        flat = b.op(
            "aten.flatten.using_ints", b.tensor_type([*info.sizes[:-1], blocks * block], info.element), expanded,
            b.constant_int(info.rank - 1), b.constant_int(info.rank),
        )
        return _slice_last(b, flat, width)

    centered = b.binary("aten.sub.Tensor", values, zero if zero_points is None else per_value(zero))
    dequantized = b.binary("aten.mul.Tensor", centered, per_value(scales))
    keep = b.to_dtype(b.flatten(in_range), float_element)
    for _ in range(rank - 1):
        keep = b.unsqueeze(keep, -1)
    dequantized = b.binary("aten.mul.Tensor", dequantized, keep, dequantized.type)
    index_dims = [_dim(b, node.input(1), i) for i in range(len(index_sizes))]
    shaped = b.reshape(dequantized, index_dims + list(data_sizes[1:-1]) + [width], list(result.sizes))
    return b.cast_to(shaped, node.result_type())

