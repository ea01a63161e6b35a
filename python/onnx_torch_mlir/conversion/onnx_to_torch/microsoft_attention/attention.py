"""onnxruntime's contrib attention: Attention and MultiHeadAttention (domain `com.microsoft`, v1).

Semantics are those of onnxruntime's CPU kernels (contrib_ops/cpu/bert/attention*.{h,cc},
multihead_attention.cc), checked against them numerically:

  scores = scale * Q @ K^T + mask + attention_bias,   output = softmax(scores) @ V

with Q [batch, heads, seq, head], K and V [batch, heads, total, head], heads merged back into
[batch, seq, heads * head]. scale defaults to 1/sqrt(head size). `mask` is additive:
  - a key mask (mask_index / key_padding_mask) makes masked positions `mask_filter_value`
    (default -10000), unmasked 0. Forms: raw 0/1 [batch, total] or [batch, seq, total];
    [batch] end positions (right padding: keys at or after the end are masked); [2 * batch]
    end positions then start positions (left padding), told apart at run time when the
    lengths are dynamic.
  - `unidirectional` sets the keys after each query's position (past length + query index)
    to the element type's lowest value, replacing the key mask there, for every query but the
    last one (as the kernels do; with past + seq keys the last query sees them all anyway).
With a past, K and V are the past ones followed by the new ones; present holds them.
Float16 and bfloat16 inputs are attended in float32 (masks included) and the output rounded once,
as onnxruntime's CPU provider does (it has no half-precision kernel for these and casts around the
float32 one; checked bit for bit on Attention). It also keeps IREE compiling dynamic float16 models:
torch-mlir's float16 softmax (float32 inside, rounded after the division) gives IREE a dispatch
that needs a stack buffer of run-time size, which it refuses.

Refused with a reason: Attention's `do_rotary`, `past_present_share_buffer` and
`past_sequence_length` (buffer sharing), 4-D masks (onnxruntime's CPU kernel has none either)
and the [3 * batch + 2] mask form; MultiHeadAttention's `past_sequence_length`,
`cache_indirection` and the `qk` output.

Products are `aten.bmm` over batch * heads: torch-mlir lowers 4-D `aten.matmul` with dynamic
batch dims only partly. ONNX has no schemas for these ops, so every default is spelled here.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .common import (
    MICROSOFT, attention_scale, batched_product, broadcast_sizes, compare, concat, dim_of, divide, head_count,
    int_value, lowest, merge_heads, mul, positions, select, slice_range, split_heads, static, sub, transpose,
)


_HALF_FLOATS = ("f16", "bf16")


def _computed_in(element: str, fused: bool) -> str:
    """The element type attention computes in: float32 for half-precision inputs (see the module
    docstring), unless it stays one aten.scaled_dot_product_attention in the input's type."""
    return "f32" if element in _HALF_FLOATS and not fused else element


def _attend(b: TorchBuilder, q, k, v, scale: float, mask, attention_bias, fused: bool = False) -> ir.Value:
    """softmax(scale * q @ k^T + mask + attention_bias) @ v, heads merged, in the input's element
    type. `fused`: as one aten.scaled_dot_product_attention (the user keeps it backend-legal)."""
    if fused:
        return merge_heads(b, _scaled_dot_product_attention(b, q, k, v, scale, mask, attention_bias))
    element = b.info(q).element
    computed = _computed_in(element, fused)
    if computed != element:
        q, k, v = (b.to_dtype(x, computed) for x in (q, k, v))
        if attention_bias is not None:
            attention_bias = b.to_dtype(attention_bias, computed)
        return b.to_dtype(_attend(b, q, k, v, scale, mask, attention_bias), element)
    scores = b.scalar_op("aten.mul.Scalar", batched_product(b, q, transpose(b, k, 2, 3)), scale)
    for addend in (mask, attention_bias):
        if addend is not None:
            scores = b.binary("aten.add.Tensor", scores, addend, scores.type)
    probabilities = b.op("aten.softmax.int", scores.type, scores, b.constant_int(-1), b.constant_none())
    return merge_heads(b, batched_product(b, probabilities, v))


def _scaled_dot_product_attention(b: TorchBuilder, q, k, v, scale: float, mask, attention_bias) -> ir.Value:
    """aten.scaled_dot_product_attention of [batch, heads, seq, head] q, k, v; mask and bias added
    into its additive attn_mask, of rank 4 (a [seq, total] causal mask as [1, 1, seq, total])."""
    addends = [addend for addend in (mask, attention_bias) if addend is not None]
    combined = addends[0] if addends else b.constant_none()
    if len(addends) == 2:
        combined = b.binary("aten.add.Tensor", addends[0], addends[1])
    while addends and b.info(combined).rank < 4:
        combined = b.unsqueeze(combined, 0)
    q_info, v_info = b.info(q), b.info(v)
    result_type = b.tensor_type(list(q_info.sizes[:-1]) + [v_info.sizes[-1]], q_info.element)
    return b.op(
        "aten.scaled_dot_product_attention", result_type, q, k, v, combined, b.constant_float(0.0),
        b.constant_bool(False), b.constant_float(scale), b.constant_bool(False),
    )


# -- masks ----------------------------------------------------------------------------------------


def _keep_to_additive(b: TorchBuilder, keep: ir.Value, mask_filter_value: float, element: str) -> ir.Value:
    """A boolean keep mask as 0 (kept) or mask_filter_value in the element type (selected, not
    computed as (keep - 1) * -mask_filter_value: the exporters' default of float32's lowest value
    is -inf in float16, and 0 * inf would make every kept position NaN)."""
    zero, fill = b.scalar_tensor_literal(0.0, element), b.scalar_tensor_literal(mask_filter_value, element)
    return b.op("aten.where.self", b.tensor_type(b.info(keep).sizes, element), keep, zero, fill)


def _key_mask(node: OnnxNode, b: TorchBuilder, index: int, batch, total, element: str) -> ir.Value | None:
    """The additive key mask of input `index`, broadcastable to [batch, heads, seq, total]."""
    mask = node.optional_input(index)
    if mask is None:
        return None
    info = b.info(mask)
    mask_filter_value = node.attr_float("mask_filter_value", -10000.0)
    if info.rank in (2, 3):
        zero = b.scalar_tensor_literal(0, info.element)
        keep = compare(b, "aten.gt.Tensor", mask, zero)
        additive = _keep_to_additive(b, keep, mask_filter_value, element)
        return b.unsqueeze(b.unsqueeze(additive, 1), 1) if info.rank == 2 else b.unsqueeze(additive, 1)
    if info.rank != 1:
        node.fail(f"input {index} (mask) of rank {info.rank} is not supported: 1-D, 2-D or 3-D only")
    length, static_batch = info.sizes[0], static(batch)
    if length is not None and static_batch is not None and length not in (static_batch, 2 * static_batch):
        node.fail(f"input {index} (mask) of length {length} for batch {static_batch}: only the [batch] "
                  "(end positions) and [2 * batch] (end and start positions) forms are supported")
    keys = b.unsqueeze(positions(b, total), 0)  # [1, total]
    mask = b.to_dtype(mask, "si64")
    if length is None or static_batch is None:
        ends, starts = _ends_and_starts(node, b, mask, batch)
    elif length == 2 * static_batch:
        ends, starts = slice_range(b, mask, 0, 0, static_batch), slice_range(b, mask, 0, static_batch, length)
    else:
        ends, starts = mask, None
    keep = compare(b, "aten.lt.Tensor", keys, b.unsqueeze(ends, 1))
    if starts is not None:
        keep = compare(b, "aten.logical_and", keep, compare(b, "aten.ge.Tensor", keys, b.unsqueeze(starts, 1)))
    additive = _keep_to_additive(b, keep, mask_filter_value, element)  # [batch, total]
    return b.unsqueeze(b.unsqueeze(additive, 1), 1)


def _ends_and_starts(node: OnnxNode, b: TorchBuilder, mask: ir.Value, batch):
    """A 1-D mask of a length not known to be batch or 2 * batch, told apart at run time: the
    ends are its first `batch` entries; the starts the next `batch` ones when it is 2 * batch
    long, else 0 (the index is clamped so that a [batch] mask is read in range). Any other
    length (the [3 * batch + 2] form) fails a run-time check on Linalg and in Torch output
    (torch-mlir's StableHLO lowering takes no `torch.runtime.assert`)."""
    rows = positions(b, batch)
    row_type = b.tensor_type([static(batch)], "si64")
    ends = b.op("aten.index_select", row_type, mask, b.constant_int(0), rows)
    length = dim_of(b, mask, 0)
    shifted = b.op("aten.add.Scalar", rows.type, rows, int_value(b, batch), b.constant_int(1))
    shifted = b.op("aten.clamp", rows.type, shifted, b.constant_int(0), int_value(b, sub(b, length, 1)))
    starts = b.op("aten.index_select", row_type, mask, b.constant_int(0), shifted)
    boolean = b.type("!torch.bool")
    two_sided = b.op("aten.eq.int", boolean, int_value(b, length), int_value(b, mul(b, batch, 2)))
    if node.target in (None, "linalg-on-tensors"):
        one_sided = b.op("aten.eq.int", boolean, int_value(b, length), int_value(b, batch))
        either = b.op("aten.__or__.bool", boolean, one_sided, two_sided)
        message = f"{node.op_type}: a 1-D mask must hold batch or 2 * batch positions"
        b.op("torch.runtime.assert", None, either, attributes={"message": ir.StringAttr.get(message)})
    two_sided = b.op("aten.Int.bool", b.type("!torch.int"), two_sided)
    return ends, b.op("aten.mul.Scalar", row_type, starts, two_sided)


def _causal(b: TorchBuilder, mask: ir.Value | None, sequence, total, past, element: str) -> ir.Value:
    """`mask` with key t of query s set to the lowest value where t > past + s, for every query
    but the last (onnxruntime's kernels leave the last row unmasked: the same when the keys are
    past + seq long, and what they compute for cross attention with other lengths)."""
    if all(isinstance(d, int) for d in (sequence, total, past)):
        queries = np.arange(sequence)[:, None]
        future = b.literal((np.arange(total)[None, :] > past + queries) & (queries < sequence - 1), "i1")
    else:
        queries = b.unsqueeze(positions(b, sequence), 1)
        offset = b.binary("aten.sub.Tensor", b.unsqueeze(positions(b, total), 0), queries)
        future = b.op("aten.gt.Scalar", b.tensor_type(b.info(offset).sizes, "i1"), offset, int_value(b, past))
        last = int_value(b, sub(b, sequence, 1))
        not_last = b.op("aten.lt.Scalar", b.tensor_type(b.info(queries).sizes, "i1"), queries, last)
        future = compare(b, "aten.logical_and", future, not_last)
    fill = b.scalar_tensor_literal(lowest(element), element)
    otherwise = mask if mask is not None else b.scalar_tensor_literal(0.0, element)
    sizes = broadcast_sizes(b.info(future).sizes, b.info(otherwise).sizes)
    return b.op("aten.where.self", b.tensor_type(sizes, element), future, fill, otherwise)


# -- Attention ----------------------------------------------------------------------------------


@converts("Attention", since=1, domain=MICROSOFT)
def attention(node: OnnxNode, b: TorchBuilder):
    """Q, K, V = input @ weights + bias, split by qkv_hidden_sizes (default thirds), then
    multi-head attention with an optional past [2, batch, heads, past, head] and present."""
    for name in ("do_rotary", "past_present_share_buffer"):
        if node.attr_int(name, 0):
            node.fail(f"attribute '{name}' = 1 is not supported")
    if node.has_input(6):
        node.fail("input 6 (past_sequence_length, for past/present buffer sharing) is not supported")
    element = node.input_info(0).element
    fused = node.is_backend_legal("aten.scaled_dot_product_attention")
    computed = _computed_in(element, fused)  # the projection too, as onnxruntime's float32 kernel
    x, weights, bias, past, attention_bias = (
        None if value is None else b.to_dtype(value, computed)
        for value in (node.input(0), node.input(1), node.optional_input(2), node.optional_input(4),
                      node.optional_input(5))
    )
    if len(node.input_sizes(0)) != 3 or len(node.input_sizes(1)) != 2:
        node.fail("needs input [batch, sequence, input_hidden] and weights [input_hidden, q + k + v hidden]")
    heads = head_count(node)
    widths = node.attr_ints("qkv_hidden_sizes", None)
    total_width = node.input_sizes(1)[1]
    if widths is None:
        if total_width is None or total_width % 3:
            node.fail(f"weights width {total_width} must be static and divisible by 3 without qkv_hidden_sizes")
        widths = [total_width // 3] * 3
    if len(widths) != 3 or widths[0] != widths[1]:
        node.fail(f"qkv_hidden_sizes {widths} must be 3 sizes with equal Q and K sizes")
    head_size = divide(node, widths[0], heads, "the Q hidden size")
    value_head_size = divide(node, widths[2], heads, "the V hidden size")
    sizes = node.input_sizes(0)
    projected = b.op("aten.matmul", b.tensor_type([sizes[0], sizes[1], sum(widths)], computed), x, weights)
    if bias is not None:
        projected = b.binary("aten.add.Tensor", projected, bias, projected.type)
    offsets = [0, widths[0], widths[0] + widths[1], sum(widths)]
    q, k, v = (
        split_heads(b, slice_range(b, projected, 2, offsets[i], offsets[i + 1]), heads, size)
        for i, size in enumerate((head_size, head_size, value_head_size))
    )
    past_length = 0
    if past is not None:
        if node.input_info(4).rank != 5:
            node.fail("past must be [2, batch, heads, past_sequence, head]")
        past_length = dim_of(b, past, 3)
        k = concat(b, [select(b, past, 0, 0), k], 2)
        v = concat(b, [select(b, past, 0, 1), v], 2)
    batch, sequence, total = dim_of(b, x, 0), dim_of(b, x, 1), dim_of(b, k, 2)
    mask = _key_mask(node, b, 3, batch, total, computed)
    if node.attr_int("unidirectional", 0):
        mask = _causal(b, mask, sequence, total, past_length, computed)
    output = _attend(b, q, k, v, attention_scale(node, head_size), mask, attention_bias, fused)
    results = [b.cast_to(b.to_dtype(output, element), node.result_type(0))]
    if node.num_results > 1:  # present: [2, batch, heads, total, head] (this step's K, V without a past)
        present = None
        if node.result_is_used(1):
            stacked_type = b.tensor_type([2, *b.info(k).sizes], computed)
            present = b.op("aten.stack", stacked_type, b.tensor_list([k, v]), b.constant_int(0))
            present = b.cast_to(b.to_dtype(present, element), node.result_type(1))
        results.append(present)
    return results if len(results) > 1 else results[0]


# -- MultiHeadAttention ---------------------------------------------------------------------------


def _packed_part(b: TorchBuilder, packed: ir.Value, index: int) -> ir.Value:
    """Part `index` of a packed [batch, seq, heads, parts, head] tensor, as [batch, seq, heads, head]."""
    return select(b, packed, 3, index)


def _with_bias(b: TorchBuilder, x: ir.Value, bias: ir.Value | None, start: int, width: int) -> ir.Value:
    """x + bias[start:start + width], reshaped like x's trailing dims ([width] or [heads, head])."""
    if bias is None:
        return x
    part = slice_range(b, bias, 0, start, start + width)
    info = b.info(x)
    if info.rank == 4:  # [batch, seq, heads, head]
        part = b.reshape(part, list(info.sizes[2:]))
    return b.binary("aten.add.Tensor", x, part, x.type)


@converts("MultiHeadAttention", since=1, domain=MICROSOFT)
def multi_head_attention(node: OnnxNode, b: TorchBuilder):
    """Self or cross attention with the input projections done: query [batch, seq, hidden] with
    key and value [batch, kv_seq, hidden] (bias [q + k + v hidden] added to each), or key and
    value already [batch, heads, kv_seq, head] (only the Q bias applies), or query packed
    [batch, seq, heads, 3, head], or key packed [batch, kv_seq, heads, 2, head]. past_key/value
    [batch, heads, past, head] come before the new K/V; present_key/value hold them all."""
    if node.has_input(8):
        node.fail("input 8 (past_sequence_length, for past/present buffer sharing) is not supported")
    if node.has_input(9):
        node.fail("input 9 (cache_indirection, for beam search) is not supported")
    if node.num_results > 3 and node.result_is_used(3):
        node.fail("output 3 (qk) is not supported")
    heads = head_count(node)
    query, key, value, bias = node.input(0), node.optional_input(1), node.optional_input(2), node.optional_input(3)
    query_rank = len(node.input_sizes(0))
    key_rank = None if key is None else len(node.input_sizes(1))
    bnsh = False
    if query_rank == 5:
        if key is not None or value is not None:
            node.fail("packed QKV query [batch, seq, heads, 3, head] takes no key or value")
        head_size = node.input_sizes(0)[4]
        q, k, v = (_packed_part(b, query, i) for i in range(3))
        width = heads * head_size
        q, k, v = (_with_bias(b, t, bias, i * width, width) for i, t in enumerate((q, k, v)))
        q, k, v = (transpose(b, t, 1, 2) for t in (q, k, v))
    elif query_rank == 3 and key_rank in (3, 4, 5):
        width = node.input_sizes(0)[2]
        head_size = divide(node, width, heads, "the query hidden size")
        q = split_heads(b, _with_bias(b, query, bias, 0, width), heads, head_size)
        if key_rank == 5:
            if value is not None:
                node.fail("packed KV key [batch, kv_seq, heads, 2, head] takes no value")
            k, v = (_with_bias(b, _packed_part(b, key, i), bias, (i + 1) * width, width) for i in range(2))
            k, v = transpose(b, k, 1, 2), transpose(b, v, 1, 2)
        else:
            if value is None or len(node.input_sizes(2)) != key_rank:
                node.fail(f"key of rank {key_rank} needs a value of the same rank")
            if key_rank == 4:  # [batch, heads, kv_seq, head]: projected already, no K/V bias
                bnsh = True
                k, v = key, value
            else:
                value_width = node.input_sizes(2)[2]
                value_head_size = divide(node, value_width, heads, "the value hidden size")
                k = split_heads(b, _with_bias(b, key, bias, width, width), heads, head_size)
                v = split_heads(b, _with_bias(b, value, bias, 2 * width, value_width), heads, value_head_size)
    else:
        node.fail(f"query of rank {query_rank} with key of rank {key_rank} is not a supported form "
                  "(query [batch, seq, hidden] with key [batch, kv_seq, hidden], [batch, heads, kv_seq, head] "
                  "or packed [batch, kv_seq, heads, 2, head]; or packed query [batch, seq, heads, 3, head])")
    past_key, past_value = node.optional_input(6), node.optional_input(7)
    if (past_key is None) != (past_value is None):
        node.fail("past_key and past_value must be given together")
    past_length = 0
    if past_key is not None:
        if bnsh:
            node.fail("past_key/past_value with key and value already [batch, heads, kv_seq, head] is not supported")
        past_length = dim_of(b, past_key, 2)
        k, v = concat(b, [past_key, k], 2), concat(b, [past_value, v], 2)
    element = node.input_info(0).element
    batch, sequence, total = dim_of(b, q, 0), dim_of(b, q, 2), dim_of(b, k, 2)
    fused = node.is_backend_legal("aten.scaled_dot_product_attention")
    mask = _key_mask(node, b, 4, batch, total, _computed_in(element, fused))
    if node.attr_int("unidirectional", 0):
        mask = _causal(b, mask, sequence, total, past_length, _computed_in(element, fused))
    output = _attend(b, q, k, v, attention_scale(node, head_size), mask, node.optional_input(5), fused)
    results = [b.cast_to(output, node.result_type(0))]
    for index, state in ((1, k), (2, v)):
        if index < node.num_results:
            results.append(b.cast_to(state, node.result_type(index)) if node.result_is_used(index) else None)
    return results[: min(node.num_results, 3)] + [None] * max(node.num_results - 3, 0)
