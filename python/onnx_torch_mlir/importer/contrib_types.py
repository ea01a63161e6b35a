"""Result types of onnxruntime's contrib operators, which ONNX's shape inference does not know.

ONNX has no schemas for the `com.microsoft` domain, nor for two operators that
onnxruntime's optimizer writes in the default domain: `SimplifiedLayerNormalization`
and, before opset 17, `LayerNormalization`. Without types for their results,
every value after them stays untyped. `MICROSOFT_RESULT_TYPES` and
`DEFAULT_DOMAIN_RESULT_TYPES` map each such operator to a small function that computes its result types from the node's input types
(element type and dims), its attributes and, where a dim depends on one, a small
constant input. `contrib_inference` writes them into the model.

The semantics are those of onnxruntime's operator schemas
(docs/ContribOperators.md and core/graph/contrib_ops/*_defs.cc); where a schema's
own inference and the CPU kernel disagree, the function follows the kernel and
says so. A dim is an int, a string (a named dim: the same name is the same size)
or None (unknown). A function returns one entry per output index: a
`TensorType`, or None where it cannot tell (an absent output needs none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto

from .symbolic_dims import add, broadcast, concatenated_dims, divide, is_int, matmul_dims, multiply, window_output_size

MICROSOFT_DOMAIN = "com.microsoft"
DEFAULT_DOMAINS = ("", "ai.onnx")
ML_DOMAIN = "ai.onnx.ml"


@dataclass(frozen=True)
class TensorType:
    element_type: int
    dims: tuple | None  # None: the rank is unknown

    def with_dims(self, dims) -> TensorType:
        return TensorType(self.element_type, None if dims is None else tuple(dims))

    def with_element_type(self, element_type: int) -> TensorType:
        return TensorType(element_type, self.dims)


class ContribNode:
    """What an inference function may read of a node: input types, attributes, constant inputs."""

    def __init__(self, node: onnx.NodeProto, input_types: list, constant: Callable[[str], np.ndarray | None]):
        self.node = node
        self._input_types = input_types  # TensorType or None, one per node input
        self._constant = constant

    def has_input(self, index: int) -> bool:
        return index < len(self.node.input) and bool(self.node.input[index])

    def input(self, index: int) -> TensorType | None:
        return self._input_types[index] if self.has_input(index) else None

    def dims(self, index: int) -> list | None:
        found = self.input(index)
        return None if found is None or found.dims is None else list(found.dims)

    def element_type(self, index: int) -> int | None:
        found = self.input(index)
        return None if found is None else found.element_type

    def attribute(self, name: str, default=None):
        for attribute in self.node.attribute:
            if attribute.name == name:
                value = onnx.helper.get_attribute_value(attribute)
                return value.decode() if isinstance(value, bytes) else value
        return default

    def constant(self, index: int) -> np.ndarray | None:
        return self._constant(self.node.input[index]) if self.has_input(index) else None



def _last_dim_replaced(dims: list | None, last) -> list | None:
    return None if not dims else dims[:-1] + [last]


def _normalized_axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


# -- elementwise and normalization ops ---------------------------------------------------
def _same_as_first_input(node: ContribNode) -> list:
    return [node.input(0)]


def _broadcast_of(first: int, second: int):
    """An elementwise op of inputs `first` and `second`, typed like `first`."""

    def infer(node: ContribNode) -> list:
        if node.input(first) is None:
            return []
        return [node.input(first).with_dims(broadcast(node.dims(first), node.dims(second)))]

    return infer


def _statistics_dims(dims: list | None, axis: int) -> list | None:
    """Mean and inverse standard deviation of a normalization: the normalized dims become 1."""
    if dims is None:
        return None
    axis = _normalized_axis(axis, len(dims))
    return dims[:axis] + [1] * (len(dims) - axis)


def skip_layer_normalization(node: ContribNode) -> list:
    """(Skip)(Simplified)LayerNormalization: output, mean, inv_std_var, input_skip_bias_sum.

    Output and sum are typed like `input`; mean and inv_std_var are float with the
    last dim 1 (the schema leaves their shape open; the CPU kernel gives [..., 1]).
    """
    data = node.input(0)
    if data is None:
        return []
    statistics = TensorType(TensorProto.FLOAT, None).with_dims(_statistics_dims(node.dims(0), -1))
    return [data, statistics, statistics, data]


def layer_normalization(node: ContribNode) -> list:
    """onnxruntime's LayerNormalization (default domain, version 1): Y, Mean, InvStdDev.

    Y has the input's dims and the scale's element type (the kernels allow a
    float16 scale on a float input); Mean and InvStdDev keep the dims before
    `axis` and are 1 from it on, of the `stash_type` element type (float).
    """
    data = node.input(0)
    if data is None:
        return []
    result = data.with_element_type(node.element_type(1) or data.element_type)
    statistics = TensorType(node.attribute("stash_type", TensorProto.FLOAT), None)
    statistics = statistics.with_dims(_statistics_dims(node.dims(0), node.attribute("axis", -1)))
    return [result, statistics, statistics]


def simplified_layer_normalization(node: ContribNode) -> list:
    """SimplifiedLayerNormalization (RMS norm, default domain): Y and inv_std_var, as LayerNormalization."""
    result, _, statistics = layer_normalization(node) or [None, None, None]
    return [result, statistics]


def embed_layer_normalization(node: ContribNode) -> list:
    """output [batch, sequence, hidden], mask_index [batch] int32, embedding_sum like output.

    `hidden` is the word embedding's second dim; the float type is the word embedding's.
    """
    ids, embedding = node.dims(0), node.dims(2)
    element_type = node.element_type(2)
    if element_type is None:
        return []
    dims = None if ids is None or len(ids) != 2 or embedding is None else ids + [embedding[-1]]
    output = TensorType(element_type, None).with_dims(dims)
    mask_index = TensorType(TensorProto.INT32, None).with_dims(None if ids is None else ids[:1])
    return [output, mask_index, output]


# -- matrix products ------------------------------------------------------------------------
def _transposed_for_fused_matmul(dims: list | None, transpose: int, transpose_batch: int) -> list | None:
    """FusedMatMul's operand after its transposes.

    transBatch moves the first dim behind the batch dims ([b0, b1.., m, k] ->
    [b1.., b0, m, k]), transpose then swaps the last two.
    """
    if dims is None or len(dims) < 2:
        return dims
    if transpose_batch and len(dims) > 2:
        dims = dims[1:-1] + [dims[0], dims[-1]]
    if transpose:
        dims = dims[:-2] + [dims[-1], dims[-2]]
    return dims


def fused_matmul(node: ContribNode) -> list:
    """alpha * op(A) @ op(B), typed like A."""
    if node.input(0) is None:
        return []
    left = _transposed_for_fused_matmul(node.dims(0), node.attribute("transA", 0), node.attribute("transBatchA", 0))
    right = _transposed_for_fused_matmul(node.dims(1), node.attribute("transB", 0), node.attribute("transBatchB", 0))
    return [node.input(0).with_dims(matmul_dims(left, right))]


def _matmul_typed_like(index: int):
    """A @ B (inputs 0 and 1) typed like input `index` (the float input or scale)."""

    def infer(node: ContribNode) -> list:
        if node.input(index) is None:
            return []
        return [node.input(index).with_dims(matmul_dims(node.dims(0), node.dims(1)))]

    return infer


def matmul_n_bits(node: ContribNode) -> list:
    """A [..., K] @ the dequantized [K, N] weight: [..., N] (N is an attribute), typed like A."""
    if node.input(0) is None:
        return []
    return [node.input(0).with_dims(_last_dim_replaced(node.dims(0), node.attribute("N")))]


def _gemm_dims(left: list | None, right: list | None, transpose_left: int, transpose_right: int) -> list | None:
    if left is None or right is None or len(left) != 2 or len(right) != 2:
        return None
    return [left[1] if transpose_left else left[0], right[0] if transpose_right else right[1]]


def qgemm(node: ContribNode) -> list:
    """Quantized Gemm: [M, N]; quantized like y_zero_point when it is given, else float."""
    if node.input(0) is None:
        return []
    element_type = node.element_type(8) if node.has_input(8) else TensorProto.FLOAT
    if element_type is None:
        return []
    dims = _gemm_dims(node.dims(0), node.dims(3), node.attribute("transA", 0), node.attribute("transB", 0))
    return [TensorType(element_type, None).with_dims(dims)]


# -- quantization -----------------------------------------------------------------------------
def quantize_linear(node: ContribNode) -> list:
    """x's dims, of y_zero_point's element type (uint8 when there is none)."""
    if node.input(0) is None:
        return []
    element_type = node.element_type(2) if node.has_input(2) else TensorProto.UINT8
    return [None] if element_type is None else [node.input(0).with_element_type(element_type)]


def dequantize_linear(node: ContribNode) -> list:
    """x's dims, of x_scale's element type."""
    if node.input(0) is None or node.input(1) is None:
        return []
    return [node.input(0).with_element_type(node.element_type(1))]


def qlinear_concat(node: ContribNode) -> list:
    """Inputs Y_scale, Y_zero_point, then (tensor, scale, zero point) triples; typed like Y_zero_point.

    (onnxruntime's schema inference types the result like Y_scale, a float; the
    kernel produces the zero point's 8-bit type.)
    """
    element_type = node.element_type(1)
    if element_type is None:
        return []
    tensors = [node.dims(index) for index in range(2, len(node.node.input), 3)]
    return [TensorType(element_type, None).with_dims(concatenated_dims(tensors, node.attribute("axis", 0)))]


def qlinear_global_average_pool(node: ContribNode) -> list:
    """The spatial dims become 1: [N, C, 1, ..] or, with channels_last, [N, 1, .., C]."""
    data, dims = node.input(0), node.dims(0)
    if data is None:
        return []
    if dims is None or len(dims) < 2:
        return [data.with_dims(None)]
    spatial = [1] * (len(dims) - 2)
    if node.attribute("channels_last", 0):
        return [data.with_dims([dims[0], *spatial, dims[-1]])]
    return [data.with_dims([dims[0], dims[1], *spatial])]


def gather_block_quantized(node: ContribNode) -> list:
    """Gather of block-quantized data, dequantized to the scales' element type.

    Output dims: data[:axis] + indices + data[axis+1:]; uint8 data with bits < 8
    holds 8/bits values per byte along its last dim, which the output unpacks.
    """
    data, indices = node.dims(0), node.dims(1)
    element_type = node.element_type(2)
    if element_type is None:
        return []
    if data is None or indices is None:
        return [TensorType(element_type, None)]
    bits = node.attribute("bits", 4)
    if node.element_type(0) == TensorProto.UINT8 and bits < 8:
        data = data[:-1] + [multiply(data[-1], 8 // bits)]
    axis = _normalized_axis(node.attribute("gather_axis", 0), len(data))
    return [TensorType(element_type, None).with_dims(data[:axis] + indices + data[axis + 1 :])]


# -- convolution and pooling -----------------------------------------------------------------
def _ints_attribute(node: ContribNode, name: str, count: int, default: int) -> list:
    values = node.attribute(name)
    return list(values) if values else [default] * count


def _windowed_dims(node: ContribNode, dims: list | None, kernel: list | None, channels, channels_last: bool):
    """The result dims of a convolution or pooling over `dims` ([N, C, ..] or [N, .., C])."""
    if dims is None or len(dims) < 3 or kernel is None:
        return None
    spatial = dims[1:-1] if channels_last else dims[2:]
    count = len(spatial)
    strides = _ints_attribute(node, "strides", count, 1)
    dilations = _ints_attribute(node, "dilations", count, 1)
    pads = _ints_attribute(node, "pads", 2 * count, 0)
    auto_pad, ceil_mode = node.attribute("auto_pad", "NOTSET"), node.attribute("ceil_mode", 0)
    sizes = [
        window_output_size(size, kernel[i], strides[i], dilations[i], pads[i], pads[i + count], auto_pad, ceil_mode)
        for i, size in enumerate(spatial)
    ]
    return [dims[0], *sizes, channels] if channels_last else [dims[0], channels, *sizes]


def _convolution(data_index: int, weight_index: int, element_type_index: int | None, channels_last: bool | None):
    """A convolution whose weight is [M, C/group, k..]; `channels_last` None: read the attribute."""

    def infer(node: ContribNode) -> list:
        source = node.input(data_index if element_type_index is None else element_type_index)
        if source is None or node.input(data_index) is None:
            return []
        weight = node.dims(weight_index)
        kernel = node.attribute("kernel_shape") or (weight[2:] if weight else None)
        last = node.attribute("channels_last", 0) if channels_last is None else channels_last
        channels = weight[0] if weight else None
        dims = _windowed_dims(node, node.dims(data_index), list(kernel) if kernel else None, channels, bool(last))
        return [TensorType(source.element_type, None).with_dims(dims)]

    return infer


def qlinear_average_pool(node: ContribNode) -> list:
    """AveragePool's dims (kernel_shape, strides, pads, ceil_mode; channels_last), typed like X."""
    dims = node.dims(0)
    if node.input(0) is None:
        return []
    last = bool(node.attribute("channels_last", 0))
    channels = None if dims is None else (dims[-1] if last else dims[1])
    kernel = node.attribute("kernel_shape")
    return [node.input(0).with_dims(_windowed_dims(node, dims, list(kernel) if kernel else None, channels, last))]


# -- attention -----------------------------------------------------------------------------------
def _attention_value_width(node: ContribNode):
    """v_hidden_size: qkv_hidden_sizes[2], else a third of the bias width (or of the weights' second dim)."""
    sizes = node.attribute("qkv_hidden_sizes")
    if sizes:
        return sizes[2]
    bias, weights = node.dims(2), node.dims(1)
    width = bias[0] if bias else (weights[1] if weights and len(weights) == 2 else None)
    return divide(width, 3)


def _attention(past_index: int):
    """Attention (past at input 4) and QAttention (past at 8), typed like the bias (else the input).

    output is [batch, sequence, v_hidden_size], present [2, batch, heads, total,
    head_size] with total = past + sequence; with `past_present_share_buffer` the
    present is the past buffer itself.
    """

    def infer(node: ContribNode) -> list:
        element_type = node.element_type(2) if node.has_input(2) else node.element_type(0)
        if element_type is None:
            return []
        result, data = TensorType(element_type, None), node.dims(0)
        if data is None or len(data) != 3:
            return [result, result]
        heads, value_width = node.attribute("num_heads"), _attention_value_width(node)
        past = node.dims(past_index)
        past = past if past is not None and len(past) == 5 else None
        if past is not None and node.attribute("past_present_share_buffer", 0):
            present = past
        else:
            total = add(past[3], data[1]) if past is not None else (None if node.has_input(past_index) else data[1])
            present = [2, data[0], heads, total, divide(value_width, heads)]
        return [result.with_dims([data[0], data[1], value_width]), result.with_dims(present)]

    return infer


def _multi_head_output_width(query: list, key: list | None, value: list | None):
    """MultiHeadAttention's v_hidden_size from its packed or separate Q, K, V shapes."""
    if len(query) == 5:  # packed QKV [batch, sequence, heads, 3, head_size]
        return multiply(query[2], query[4])
    if value is not None:
        return value[2] if len(value) == 3 else multiply(value[1], value[3])
    if key is not None and len(key) == 5:  # packed KV: value as wide as the query
        return query[2]
    return None


def _multi_head_kv_length(query: list, key: list | None):
    if len(query) == 5 or key is None:
        return query[1]
    return key[2] if len(key) == 4 else key[1]


def multi_head_attention(node: ContribNode) -> list:
    """MultiHeadAttention: output [batch, sequence, v_hidden], present_key/value, qk.

    present is [batch, heads, total, head_size] with total = past + kv_sequence;
    with past_sequence_length given (buffer sharing) present is the past buffer.
    qk is [batch, heads, sequence, total].
    """
    query, key, value = node.dims(0), node.dims(1), node.dims(2)
    if node.input(0) is None:
        return []
    result = node.input(0).with_dims(None)
    if query is None or len(query) not in (3, 5):
        return [result] * 4
    heads = node.attribute("num_heads")
    value_width = _multi_head_output_width(query, key, value)
    output = result.with_dims([query[0], query[1], value_width])
    past_key, past_value = node.dims(6), node.dims(7)
    if past_key is not None and node.has_input(8):
        return [output, result.with_dims(past_key), result.with_dims(past_value), None]
    kv_length = _multi_head_kv_length(query, key)
    total = kv_length if not node.has_input(6) else (None if past_key is None else add(past_key[2], kv_length))
    key_head = query[4] if len(query) == 5 else divide(query[2], heads)
    value_head = query[4] if len(query) == 5 else divide(value_width, heads)
    return [
        output,
        result.with_dims([query[0], heads, total, key_head]),
        result.with_dims([query[0], heads, total, value_head]),
        result.with_dims([query[0], heads, query[1], total]),
    ]


def _scalar_constant(node: ContribNode, index: int) -> int | None:
    value = node.constant(index)
    return int(value.reshape(-1)[0]) if value is not None and value.size == 1 else None


def _group_query_head_size(node: ContribNode, query: list):
    heads, kv_heads = node.attribute("num_heads", 0), node.attribute("kv_num_heads", 0)
    if node.has_input(2):
        return divide(query[2], heads)
    return divide(query[2], heads + 2 * kv_heads)


def _group_query_present_length(node: ContribNode, query: list, past: list | None):
    """The present cache length: max(past length, total_sequence_length).

    total_sequence_length (input 6) is read when it is a constant; without a past
    it is the new keys' length. A past of unknown length gives an unknown present
    length (it is the past buffer only when the buffers are shared).
    """
    total = _scalar_constant(node, 6)
    if past is None:
        return total if total is not None else (node.dims(1) or query)[1]
    if is_int(past[2]) and total is not None:
        return max(past[2], total)
    if node.attribute("sliding_window_cache", 0):
        return past[2]
    return None


def group_query_attention(node: ContribNode) -> list:
    """GroupQueryAttention: output [batch, sequence, heads * head_size], present_key/value, output_qk.

    present is [batch, kv_heads, length, head_size] of past_key's element type
    (the query's without a past); output_qk is [batch, heads, sequence, total].
    """
    query = node.dims(0)
    if node.input(0) is None:
        return []
    result = node.input(0).with_dims(None)
    cache = node.input(3).with_dims(None) if node.input(3) else result
    if query is None or len(query) != 3:
        return [result, cache, cache, result]
    heads, kv_heads = node.attribute("num_heads"), node.attribute("kv_num_heads")
    head_size = _group_query_head_size(node, query)
    past = node.dims(3)
    past = past if past is not None and len(past) == 4 else None
    length = _group_query_present_length(node, query, past)
    present_dims = [query[0], kv_heads, length, past[3] if past else head_size]
    width = query[2] if node.has_input(2) else multiply(heads, head_size)  # packed QKV holds K and V too
    return [
        result.with_dims([query[0], query[1], width]),
        cache.with_dims(present_dims),
        cache.with_dims(present_dims),
        result.with_dims([query[0], heads, query[1], _scalar_constant(node, 6)]),
    ]


def dynamic_quantize_lstm(node: ContribNode) -> list:
    """DynamicQuantizeLSTM: Y [T, D, B, H], Y_h and Y_c [D, B, H], typed like X; H is
    `hidden_size`, else dim 1 of R ([D, H, 4H])."""
    x = node.input(0)
    if x is None:
        return []
    directions = 2 if node.attribute("direction", "forward") == "bidirectional" else 1
    hidden = node.attribute("hidden_size")
    if hidden is None:
        recurrence = node.dims(2)
        hidden = recurrence[1] if recurrence and len(recurrence) == 3 else None
    dims = node.dims(0)
    steps, batch = (dims[0], dims[1]) if dims and len(dims) == 3 else (None, None)
    return [x.with_dims([steps, directions, batch, hidden]), x.with_dims([directions, batch, hidden]),
            x.with_dims([directions, batch, hidden])]


MICROSOFT_RESULT_TYPES = {
    "Attention": _attention(past_index=4),
    "QAttention": _attention(past_index=8),
    "MultiHeadAttention": multi_head_attention,
    "GroupQueryAttention": group_query_attention,
    "RotaryEmbedding": _same_as_first_input,
    "SkipLayerNormalization": skip_layer_normalization,
    "SkipSimplifiedLayerNormalization": skip_layer_normalization,
    "EmbedLayerNormalization": embed_layer_normalization,
    "BiasGelu": _broadcast_of(0, 1),
    "FastGelu": _same_as_first_input,
    "Gelu": _same_as_first_input,
    "QuickGelu": _same_as_first_input,
    "BiasAdd": _same_as_first_input,
    "FusedMatMul": fused_matmul,
    "MatMulNBits": matmul_n_bits,
    "GatherBlockQuantized": gather_block_quantized,
    "QLinearAdd": _broadcast_of(0, 3),
    "QLinearMul": _broadcast_of(0, 3),
    "QLinearConcat": qlinear_concat,
    "QLinearGlobalAveragePool": qlinear_global_average_pool,
    "QLinearAveragePool": qlinear_average_pool,
    "QLinearSigmoid": _same_as_first_input,
    "QLinearLeakyRelu": _same_as_first_input,
    "QLinearSoftmax": _same_as_first_input,
    "QLinearConv": _convolution(0, 3, 7, channels_last=None),
    "QGemm": qgemm,
    "QuantizeLinear": quantize_linear,
    "DequantizeLinear": dequantize_linear,
    "DynamicQuantizeMatMul": _matmul_typed_like(0),
    "DynamicQuantizeLSTM": dynamic_quantize_lstm,
    "MatMulIntegerToFloat": _matmul_typed_like(2),
    "NhwcConv": _convolution(0, 1, None, channels_last=True),
    "FusedConv": _convolution(0, 1, None, channels_last=False),
}

# onnxruntime's own operators of the default domain, for the opsets where ONNX has no schema.
DEFAULT_DOMAIN_RESULT_TYPES = {
    "LayerNormalization": layer_normalization,
    "SimplifiedLayerNormalization": simplified_layer_normalization,
}


def inference_for(node: onnx.NodeProto, opsets: dict) -> Callable | None:
    """The inference function for `node`, or None when ONNX types it (or nobody can).

    `opsets`: domain -> version of the model ("" for the default domain).
    """
    if node.domain == MICROSOFT_DOMAIN:
        return MICROSOFT_RESULT_TYPES.get(node.op_type)
    if node.domain == ML_DOMAIN:
        from .ml_types import ML_RESULT_TYPES  # ml_types builds on this module's TensorType

        return ML_RESULT_TYPES.get(node.op_type)
    if node.domain in DEFAULT_DOMAINS and node.op_type in DEFAULT_DOMAIN_RESULT_TYPES:
        version = _default_opset(opsets)
        if version is None or not _onnx_knows(node.op_type, version):
            return DEFAULT_DOMAIN_RESULT_TYPES[node.op_type]
    return None


def _onnx_knows(op_type: str, version: int, domain: str = "") -> bool:
    try:
        onnx.defs.get_schema(op_type, version, domain)
    except onnx.defs.SchemaError:
        return False
    return True


def _default_opset(opsets: dict) -> int | None:
    return opsets.get("", opsets.get("ai.onnx"))


def untyped_reason(node: onnx.NodeProto, opsets: dict) -> str:
    """Why neither ONNX's inference nor this table typed a result of `node` (for an error message)."""
    if inference_for(node, opsets) is not None:
        domain = node.domain or "ai.onnx"
        return f"{domain}.{node.op_type} is typed from the types of its inputs, and they do not determine it"
    if node.domain in DEFAULT_DOMAINS + (ML_DOMAIN,):
        domain = ML_DOMAIN if node.domain == ML_DOMAIN else ""
        version = opsets.get(ML_DOMAIN) if domain else _default_opset(opsets)
        if version is not None and _onnx_knows(node.op_type, version, domain):
            return "shape inference could not infer it"
        return f"ONNX has no operator '{node.op_type}' in domain '{domain or 'ai.onnx'}' at opset {version}"
    if node.domain == MICROSOFT_DOMAIN:
        known = "it is not one of the com.microsoft ops the importer types (importer/contrib_types.py)"
    else:
        known = "ONNX has no schemas for that domain, and the importer types only com.microsoft ops"
    return (
        f"no type inference for op '{node.op_type}' of domain '{node.domain}': {known}; "
        "declaring the result types in the model's value_info makes it importable"
    )


def result_types(node: onnx.NodeProto, function: Callable, input_types: list, constant) -> list:
    """`function`'s result types for `node`, one per output (None where unknown)."""
    inferred = function(ContribNode(node, input_types, constant))
    return (list(inferred) + [None] * len(node.output))[: len(node.output)]
