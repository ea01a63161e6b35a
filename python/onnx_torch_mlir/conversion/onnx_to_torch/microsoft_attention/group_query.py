"""GroupQueryAttention and RotaryEmbedding (domain `com.microsoft`, version 1), as onnxruntime's
CPU kernels compute them (contrib_ops/cpu/bert/group_query_attention.cc, gqa_attention_base.h,
rotary_embedding.cc), checked against them numerically.

GroupQueryAttention (onnxruntime-genai's LLM exports): `num_heads` query heads share
`kv_num_heads` K/V heads (query head h reads K/V head h // (num_heads / kv_num_heads)).
query [batch, seq, heads * head] (or packed Q, K, V along the last dim when key/value are
absent), key/value [batch, seq, kv_heads * head], past_key/value [batch, kv_heads, past, head],
seqlens_k [batch] (each entry's total length - 1), total_sequence_length (the batch maximum).

- The step is the first prompt when seq == total_sequence_length: each entry's new tokens start
  at position 0. Otherwise entry b's start at p_b = seqlens_k[b] + 1 - seq (right-padded
  batches have different p_b).
- present [batch, kv_heads, L, head], L = max(total_sequence_length, past length) (the past's
  length when the buffers are shared): rows [0, p_b) from the past, rows [p_b, p_b + seq) the
  new K/V, later rows 0 (as the kernel leaves them). L is the declared dim when static; else,
  when total_sequence_length is a dim read from a shape (onnxruntime-genai's exports take it from
  Shape(attention_mask)[1]), max of two dims, a run-time size StableHLO and Linalg take (TOSA
  cannot: --dim); else read from its value at run time (Linalg only: a data-dependent size).
- do_rotary: Q and new K rotated (cos_cache/sin_cache [max_seq, rotary/2]) at positions p_b + i,
  or position_ids (input 9) when given (the first prompt uses position_ids[0, 0] + i).
- Query i of entry b sees keys t <= p_b + i (causal), and with local_window_size w > 0 only
  t > p_b + i - w; with causal 0 every key t <= seqlens_k[b]. attention_bias is added to the
  scaled scores, then softcap (softcap * tanh(x / softcap), if > 0), then the mask, then softmax;
  smooth_softmax / head_sink add exp(sink - max) to the denominator (sink 0 for smooth_softmax).

Refused with a reason: a quantized KV cache (k_quant_type, v_quant_type, kv_cache_bit_width,
k_scale, v_scale), sliding_window_cache, q_norm_weight/k_norm_weight (onnxruntime's CPU kernel
rejects them too), the output_qk output.

RotaryEmbedding: input [batch, seq, hidden] or [batch, heads, seq, head]; position_ids [1] (an
offset: positions offset + i) or [batch, seq]; the first rotary_embedding_dim (default: twice
cos_cache's width) dims of each head rotated, halves (x_i, x_{i+r/2}) or, interleaved, pairs
(x_2i, x_2i+1): (x1 cos - x2 sin, x2 cos + x1 sin). Refused: is_packed_batching, and a scale
other than 1 (onnxruntime's kernels ignore the attribute, so its meaning is not defined).
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .common import (
    MICROSOFT, attention_scale, batched_product, compare, dim_of, divide, int_value, lowest, merge_heads, positions,
    slice_range, static, sub, transpose,
)

# -- rotary embedding --------------------------------------------------------------------------


def _strided(b: TorchBuilder, x: ir.Value, start: int, end: int, step: int) -> ir.Value:
    """x[..., start:end:step] along the last dim."""
    info = b.info(x)
    sizes = list(info.sizes[:-1]) + [len(range(start, end, step))]
    return b.op(
        "aten.slice.Tensor", b.tensor_type(sizes, info.element), x, b.constant_int(info.rank - 1),
        b.constant_int(start), b.constant_int(end), b.constant_int(step),
    )


def _cache_rows(b: TorchBuilder, cache: ir.Value, at: ir.Value) -> ir.Value:
    """cache[at]: the [max_seq, rotary/2] cache's rows at integer positions `at` [n, seq]."""
    at_info, cache_info = b.info(at), b.info(cache)
    flat = b.flatten(b.to_dtype(at, "si64"))
    rows = b.op(
        "aten.index_select", b.tensor_type([b.info(flat).sizes[0], cache_info.sizes[1]], cache_info.element),
        cache, b.constant_int(0), flat,
    )
    sizes = [dim_of(b, at, 0), dim_of(b, at, 1), cache_info.sizes[1]]
    return b.reshape(rows, sizes, [*at_info.sizes, cache_info.sizes[1]])


def _rotate(b: TorchBuilder, x: ir.Value, cos: ir.Value, sin: ir.Value, interleaved: bool) -> ir.Value:
    """x [..., head] with its first 2 * width dims rotated; cos, sin broadcast to [..., width]."""
    info = b.info(x)
    half = b.info(cos).sizes[-1]
    rotary = 2 * half
    if interleaved:
        first, second = _strided(b, x, 0, rotary, 2), _strided(b, x, 1, rotary, 2)
    else:
        first, second = _strided(b, x, 0, half, 1), _strided(b, x, half, rotary, 1)

    def combine(lhs, lhs_factor, op, rhs, rhs_factor):
        left = b.binary("aten.mul.Tensor", lhs, lhs_factor, lhs.type)
        return b.binary(op, left, b.binary("aten.mul.Tensor", rhs, rhs_factor, rhs.type), lhs.type)

    new_first = combine(first, cos, "aten.sub.Tensor", second, sin)
    new_second = combine(second, cos, "aten.add.Tensor", first, sin)
    rotated_sizes = list(info.sizes[:-1]) + [rotary]
    if interleaved:
        pairs = b.op(
            "aten.stack", b.tensor_type([*info.sizes[:-1], half, 2], info.element),
            b.tensor_list([new_first, new_second]), b.constant_int(-1),
        )
        rotated = b.op(
            "aten.flatten.using_ints", b.tensor_type(rotated_sizes, info.element), pairs,
            b.constant_int(info.rank - 1), b.constant_int(info.rank),
        )
    else:
        rotated = b.op(
            "aten.cat", b.tensor_type(rotated_sizes, info.element), b.tensor_list([new_first, new_second]),
            b.constant_int(-1),
        )
    if info.sizes[-1] == rotary:
        return rotated
    rest = _strided(b, x, rotary, info.sizes[-1], 1)
    return b.op("aten.cat", x.type, b.tensor_list([rotated, rest]), b.constant_int(-1))


def _rotary_tables(node: OnnxNode, b: TorchBuilder, cos_index: int, at: ir.Value):
    """cos and sin at positions `at` [n, seq]: [n, seq, rotary/2] each."""
    cos, sin = node.input(cos_index), node.input(cos_index + 1)
    for index in (cos_index, cos_index + 1):
        sizes = node.input_sizes(index)
        if len(sizes) != 2 or sizes[1] is None:
            node.fail(f"input {index} (rotary cache) must be [max_sequence, rotary_dim / 2] with a static width")
    return _cache_rows(b, cos, at), _cache_rows(b, sin, at)


@converts("RotaryEmbedding", since=1, domain=MICROSOFT)
def rotary_embedding(node: OnnxNode, b: TorchBuilder):
    """Rotary position embedding of [batch, seq, hidden] or [batch, heads, seq, head] input."""
    if node.attr_int("is_packed_batching", 0):
        node.fail("attribute 'is_packed_batching' = 1 (ragged batches) is not supported")
    if node.attr_float("scale", 1.0) != 1.0:
        node.fail(f"attribute 'scale' = {node.attr_float('scale', 1.0)} is not supported: onnxruntime's kernels "
                  "ignore it, so its meaning is not defined")
    x = node.input(0)
    sizes = node.input_sizes(0)
    interleaved = bool(node.attr_int("interleaved", 0))
    heads, rotary_dim = node.attr_int("num_heads", 0), node.attr_int("rotary_embedding_dim", 0)
    half = node.input_sizes(2)[1] if len(node.input_sizes(2)) == 2 else None
    if half is None:
        node.fail("cos_cache must be [max_sequence, rotary_dim / 2] with a static width")
    if rotary_dim and rotary_dim != 2 * half:
        node.fail(f"rotary_embedding_dim {rotary_dim} does not match cos_cache's width {half} (half of it)")
    if rotary_dim and len(sizes) == 3 and heads <= 0:
        node.fail("rotary_embedding_dim needs num_heads for a [batch, seq, hidden] input")
    sequence_axis = 1 if len(sizes) == 3 else 2
    if len(sizes) not in (3, 4):
        node.fail(f"input of rank {len(sizes)}: needs [batch, seq, hidden] or [batch, heads, seq, head]")
    position_ids = node.input(1)
    position_rank = len(node.input_sizes(1))
    if position_rank == 1:  # an offset: positions offset + i, the same for every batch entry
        offsets = b.to_dtype(position_ids, "si64")
        steps = b.unsqueeze(positions(b, dim_of(b, x, sequence_axis)), 0)
        at = b.binary("aten.add.Tensor", steps, b.unsqueeze(offsets, 1))
    elif position_rank == 2:
        at = position_ids
    else:
        node.fail("position_ids must be [1] or [batch, seq]")
    cos, sin = _rotary_tables(node, b, 2, at)
    if len(sizes) == 4:  # [batch, heads, seq, head]: the tables broadcast over heads
        return b.cast_to(_rotate(b, x, b.unsqueeze(cos, 1), b.unsqueeze(sin, 1), interleaved), node.result_type())
    head_size = sizes[2] // heads if heads > 0 and sizes[2] is not None else 2 * half
    heads = divide(node, sizes[2], head_size, "the hidden size")  # hidden / head size
    split = b.reshape(x, [dim_of(b, x, 0), dim_of(b, x, 1), heads, head_size], [*sizes[:2], heads, head_size])
    rotated = _rotate(b, split, b.unsqueeze(cos, 2), b.unsqueeze(sin, 2), interleaved)
    merged = b.reshape(rotated, [dim_of(b, x, 0), dim_of(b, x, 1), sizes[2]], list(sizes))
    return b.cast_to(merged, node.result_type())


# -- GroupQueryAttention ------------------------------------------------------------------------


def _refuse_unsupported(node: OnnxNode) -> None:
    for name in ("k_quant_type", "v_quant_type"):
        if node.attr_string(name, "NONE") != "NONE":
            node.fail(f"attribute '{name}' = '{node.attr_string(name)}' (a quantized KV cache) is not supported")
    if node.attr_int("kv_cache_bit_width", 0):
        node.fail("attribute 'kv_cache_bit_width' (a quantized KV cache) is not supported")
    for index, name in ((12, "k_scale"), (13, "v_scale"), (14, "q_norm_weight"), (15, "k_norm_weight")):
        if node.has_input(index):
            node.fail(f"input {index} ({name}) is not supported")
    if node.attr_int("sliding_window_cache", 0):
        node.fail("attribute 'sliding_window_cache' = 1 (window-sized KV buffers) is not supported")
    if node.num_results > 3 and node.result_is_used(3):
        node.fail("output 3 (output_qk) is not supported")
    if node.attr_int("causal", 1) not in (0, 1):
        node.fail(f"attribute 'causal' = {node.attr_int('causal')} must be 0 or 1")
    if not node.attr_int("causal", 1) and node.attr_int("local_window_size", -1) != -1:
        node.fail("local_window_size must be -1 when causal is 0")


def _scalar(b: TorchBuilder, x: ir.Value) -> ir.Value:
    """A one-element tensor as rank 0."""
    return x if b.info(x).rank == 0 else b.reshape(x, [], [])


def _present(node: OnnxNode, b: TorchBuilder, index: int, new: ir.Value, start: ir.Value, length) -> ir.Value:
    """present_key (index 1) or present_value (2): [batch, kv_heads, length, head] with the past's
    rows before each entry's start p_b ([batch, 1]), the new rows from it, zeros after."""
    info = b.info(new)
    batch, kv_heads, sequence, head = dim_of(b, new, 0), info.sizes[1], dim_of(b, new, 2), info.sizes[3]
    offset = b.binary("aten.sub.Tensor", b.unsqueeze(positions(b, length), 0), start)  # [batch, L]: t - p_b

    def rows_where(op: str, bound):  # [batch, 1, L, 1] booleans of `offset op bound`
        condition = b.op(op, b.tensor_type(b.info(offset).sizes, "i1"), offset, int_value(b, bound))
        return b.unsqueeze(b.unsqueeze(condition, 1), 3)

    sizes = [info.sizes[0], kv_heads, static(length), head]
    if node.target == "tosa" and isinstance(sequence, int) and sequence > 0 and not isinstance(batch, int):
        present = _new_rows_by_selects(b, new, rows_where, b.tensor_type(sizes, info.element))
    else:
        clamped = b.op("aten.clamp", offset.type, offset, b.constant_int(0), int_value(b, sub(b, sequence, 1)))
        source_rows = b.op(
            "aten.broadcast_to", b.tensor_type(sizes, "si64"), b.unsqueeze(b.unsqueeze(clamped, 1), 3),
            b.list([int_value(b, d) for d in (batch, kv_heads, length, head)], "!torch.int"),
        )
        gathered = b.op(
            "aten.gather", b.tensor_type(sizes, info.element), new, b.constant_int(2), source_rows,
            b.constant_bool(False),
        )
        is_new = compare(
            b, "aten.logical_and", rows_where("aten.ge.Scalar", 0), rows_where("aten.lt.Scalar", sequence)
        )
        present = b.op("aten.where.self", gathered.type, is_new, gathered, b.scalar_tensor_literal(0.0, info.element))
    past = node.optional_input(index + 2)
    past_length = None if past is None else dim_of(b, past, 2)
    if past is None or past_length == 0:  # (TOSA cannot pad an empty tensor)
        return present
    if isinstance(past_length, int) and isinstance(length, int) and length < past_length:
        node.fail(f"present length {length} is shorter than the past's {past_length}")
    padded = _zero_extend(b, past, 2, length)
    return b.op("aten.where.self", present.type, rows_where("aten.lt.Scalar", 0), padded, present)


def _new_rows_by_selects(b: TorchBuilder, new: ir.Value, rows_where, present_type: ir.Type) -> ir.Value:
    """The new rows placed at t = p_b + i and zeros elsewhere, by one select per new row i (exact,
    static sequence only): torch-mlir's TOSA lowering of `aten.gather` takes no dynamic batch."""
    present = b.scalar_tensor_literal(0.0, b.info(new).element)
    for i in range(b.info(new).sizes[2]):
        row = slice_range(b, new, 2, i, i + 1)
        present = b.op("aten.where.self", present_type, rows_where("aten.eq.Scalar", i), row, present)
    return present


def _repeat_heads(b: TorchBuilder, x: ir.Value, groups: int) -> ir.Value:
    """[batch, kv_heads, L, head] -> [batch, kv_heads * groups, L, head], each head `groups` times."""
    if groups == 1:
        return x
    info = b.info(x)
    batch, kv_heads, length, head = dim_of(b, x, 0), info.sizes[1], dim_of(b, x, 2), info.sizes[3]
    expanded = b.op(
        "aten.broadcast_to", b.tensor_type([info.sizes[0], kv_heads, groups, info.sizes[2], head], info.element),
        b.unsqueeze(x, 2), b.list([int_value(b, d) for d in (batch, kv_heads, groups, length, head)], "!torch.int"),
    )
    result_sizes = [info.sizes[0], kv_heads * groups, info.sizes[2], head]
    return b.reshape(expanded, [batch, kv_heads * groups, length, head], result_sizes)


def _softmax(node: OnnxNode, b: TorchBuilder, scores: ir.Value, heads: int) -> ir.Value:
    """softmax over the last dim; with smooth_softmax or head_sink, exp(sink - max) joins the sum."""
    sink = node.optional_input(11)
    if sink is None and node.attr_int("smooth_softmax", -1) != 1:
        return b.op("aten.softmax.int", scores.type, scores, b.constant_int(-1), b.constant_none())
    info = b.info(scores)
    if sink is None:
        sink = b.scalar_tensor_literal(0.0, info.element)
    else:
        sink = b.reshape(sink, [1, heads, 1, 1])
    reduced_type = b.tensor_type([*info.sizes[:-1], 1], info.element)
    row_max = b.op("aten.amax", reduced_type, scores, b.int_list([-1]), b.constant_bool(True))
    row_max = b.op("aten.maximum", reduced_type, row_max, sink)
    exponentials = b.unary("aten.exp", b.binary("aten.sub.Tensor", scores, row_max, scores.type))
    total = b.op("aten.sum.dim_IntList", reduced_type, exponentials, b.int_list([-1]), b.constant_bool(True),
                 b.constant_none())
    sink_term = b.unary("aten.exp", b.binary("aten.sub.Tensor", sink, row_max, reduced_type))
    return b.binary("aten.div.Tensor", exponentials, b.binary("aten.add.Tensor", total, sink_term, reduced_type))


@converts("GroupQueryAttention", since=1, domain=MICROSOFT)
def group_query_attention(node: OnnxNode, b: TorchBuilder):
    """Grouped-query attention with a KV cache (see the module docstring)."""
    _refuse_unsupported(node)
    heads, kv_heads = node.attr_int("num_heads", 0), node.attr_int("kv_num_heads", 0)
    if heads <= 0 or kv_heads <= 0 or heads % kv_heads:
        node.fail(f"num_heads {heads} must be a positive multiple of kv_num_heads {kv_heads}")
    query = node.input(0)
    sizes = node.input_sizes(0)
    if len(sizes) != 3:
        node.fail("query must be [batch, sequence, hidden]")
    packed = not node.has_input(1)
    if packed != (not node.has_input(2)):
        node.fail("key and value must be given together (or neither, for packed QKV)")
    head_size = divide(node, sizes[2], heads + 2 * kv_heads if packed else heads, "the query hidden size")
    if packed:
        q_width, kv_width = heads * head_size, kv_heads * head_size
        q = slice_range(b, query, 2, 0, q_width)
        k = slice_range(b, query, 2, q_width, q_width + kv_width)
        v = slice_range(b, query, 2, q_width + kv_width, q_width + 2 * kv_width)
    else:
        q, k, v = query, node.input(1), node.input(2)
    if node.has_input(3) != node.has_input(4):
        node.fail("past_key and past_value must be given together")
    batch, sequence = dim_of(b, query, 0), dim_of(b, query, 1)
    element = node.input_info(0).element

    # Each entry's first new position p_b: 0 for the first prompt, else seqlens_k + 1 - seq.
    total = _scalar(b, node.input(6))
    later_step = b.to_dtype(b.op("aten.ne.Scalar", b.tensor_type([], "i1"), total, int_value(b, sequence)), "si64")
    seqlens = b.to_dtype(node.input(5), "si64")
    start = b.op("aten.add.Scalar", seqlens.type, seqlens, int_value(b, sub(b, 1, sequence)), b.constant_int(1))
    start = b.unsqueeze(b.binary("aten.mul.Tensor", start, later_step, start.type), 1)  # [batch, 1]
    query_positions = b.binary("aten.add.Tensor", start, b.unsqueeze(positions(b, sequence), 0))  # [batch, seq]

    def heads_first(x, count):  # [batch, seq, count * head] -> [batch, seq, count, head]
        return b.reshape(x, [batch, sequence, count, head_size], [sizes[0], sizes[1], count, head_size])

    q, k, v = heads_first(q, heads), heads_first(k, kv_heads), heads_first(v, kv_heads)
    if node.attr_int("do_rotary", 0):
        rotary_positions = query_positions
        if node.has_input(9):  # position_ids; the first prompt uses position_ids[0, 0] + i
            given = b.to_dtype(node.input(9), "si64")
            first = b.binary("aten.add.Tensor", b.unsqueeze(positions(b, sequence), 0),
                             slice_range(b, slice_range(b, given, 0, 0, 1), 1, 0, 1))
            rotary_positions = b.op("aten.where.self", given.type, b.to_dtype(later_step, "i1"), given, first)
        cos, sin = _rotary_tables(node, b, 7, rotary_positions)
        cos, sin = b.unsqueeze(cos, 2), b.unsqueeze(sin, 2)
        interleaved = bool(node.attr_int("rotary_interleaved", 0))
        q, k = _rotate(b, q, cos, sin, interleaved), _rotate(b, k, cos, sin, interleaved)
    q, k, v = (transpose(b, x, 1, 2) for x in (q, k, v))  # [batch, heads, seq, head]

    length = _present_length(node, b, total, sequence)
    present_key = _present(node, b, 1, k, start, length)
    present_value = _present(node, b, 2, v, start, length)
    groups = heads // kv_heads
    keys, values = _repeat_heads(b, present_key, groups), _repeat_heads(b, present_value, groups)
    scores = batched_product(b, q, transpose(b, keys, 2, 3))
    scores = b.scalar_op("aten.mul.Scalar", scores, attention_scale(node, head_size))
    bias = node.optional_input(10)
    if bias is not None:
        bias = _zero_extend(b, bias, 3, length)
        scores = b.binary("aten.add.Tensor", scores, bias, scores.type)
    softcap = node.attr_float("softcap", 0.0)
    if softcap > 0:
        capped = b.unary("aten.tanh", b.scalar_op("aten.mul.Scalar", scores, 1.0 / softcap))
        scores = b.scalar_op("aten.mul.Scalar", capped, softcap)
    visible = _visible_keys(node, b, query_positions, length)  # [batch, seq or 1, L]
    fill = b.scalar_tensor_literal(lowest(element), element)
    scores = b.op("aten.where.self", scores.type, b.unsqueeze(visible, 1), scores, fill)
    output = merge_heads(b, batched_product(b, _softmax(node, b, scores, heads), values))
    results = [b.cast_to(output, node.result_type(0))]
    for index, present in ((1, present_key), (2, present_value)):
        if index < node.num_results:
            results.append(b.cast_to(present, node.result_type(index)) if node.result_is_used(index) else None)
    return results + [None] * (node.num_results - len(results))


def _present_length(node: OnnxNode, b: TorchBuilder, total: ir.Value, sequence):
    """L = max(total_sequence_length, past length), onnxruntime's present length: the declared dim
    when static; the sequence without a past; dim arithmetic when total_sequence_length is a dim
    read from a shape; else total_sequence_length's value read at run time (Linalg only)."""
    if node.num_results > 1:
        declared = node.result_info(1).sizes
        if declared is not None and len(declared) == 4 and declared[2] is not None:
            return declared[2]
    if not node.has_input(3):
        return sequence
    past_length = dim_of(b, node.input(3), 2)
    total_dim = _dim_behind(b, node.constant_input(6), node.input(6))
    if total_dim is not None:
        if isinstance(total_dim, int) and isinstance(past_length, int):
            return max(total_dim, past_length)
        if node.target == "tosa":
            node.fail("the present length (max of total_sequence_length and the past length) must be static on "
                      "tosa, and here it is a run-time size, which tosa cannot express (its shapes are compile-time "
                      "constants, and no TOSA op builds a tensor of a run-time length): fix the total and past "
                      "lengths at compile time with --dim NAME=SIZE (Python: dims={'NAME': SIZE}), NAME the "
                      "symbolic dims they come from")
        return b.op("prim.max.int", b.type("!torch.int"), int_value(b, total_dim), int_value(b, past_length))
    if node.target in ("tosa", "stablehlo"):
        node.fail(f"the present length (max of total_sequence_length and the past length) must be static on "
                  f"{node.target}, or total_sequence_length a dim read from a shape (Shape, Gather, Cast, as "
                  "onnxruntime-genai's exports compute it from attention_mask): its value is data here, and a "
                  f"size read from data is not expressible on {node.target}; declare present_key's shape, or fix "
                  "the dims it depends on with --dim")
    as_int = b.op("aten.item", b.type("!torch.int"), total)
    return b.op("prim.max.int", b.type("!torch.int"), as_int, int_value(b, past_length))


def _dim_behind(b: TorchBuilder, constant, total: ir.Value):
    """total_sequence_length as a dim when it is one: a literal, or a dim of a shape (`Shape`
    then `Gather` gives `prim.NumToTensor` of an `aten.size.int`, or `aten.tensor` of a one-dim
    list) through integer casts to int32 or int64; else None. A cast to int32 is taken as exact:
    a dim of 2**31 or more (a 16 GiB int64 attention-mask row) is not handled."""
    if constant is not None:
        return int(constant.reshape(-1)[0]) if constant.size == 1 and constant.dtype.kind in "iu" else None
    producer = _producer(total)
    while producer is not None and producer.name == "torch.aten.to.dtype":
        if b.info(producer.result).element not in ("si32", "si64") or b.info(producer.operands[0]).element not in (
            "si32", "si64",
        ):
            return None
        producer = _producer(producer.operands[0])
    if producer is not None and producer.name == "torch.aten.tensor":
        producer = _producer(producer.operands[0])
        if producer is None or producer.name != "torch.prim.ListConstruct" or len(producer.operands) != 1:
            return None
        return _int_or_value(producer.operands[0])
    if producer is not None and producer.name == "torch.prim.NumToTensor.Scalar":
        return _int_or_value(producer.operands[0])
    return None


def _producer(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if isinstance(owner, ir.Operation) else None


def _int_or_value(value: ir.Value):
    """A `!torch.int` as a Python int when a `torch.constant.int` gives it, else the value."""
    producer = _producer(value)
    if producer is not None and producer.name == "torch.constant.int":
        return ir.IntegerAttr(producer.attributes["value"]).value
    return value


def _zero_extend(b: TorchBuilder, x: ir.Value, dim: int, length) -> ir.Value:
    """x padded with zeros after its end along `dim` to `length` (at least x's size there): a
    pad when the amount is static, else a concatenation with zeros (StableHLO's lowering of
    `constant_pad_nd` takes static amounts only)."""
    info = b.info(x)
    sizes = list(info.sizes)
    sizes[dim] = static(length)
    extra = sub(b, length, dim_of(b, x, dim))
    if isinstance(extra, int):
        amounts = [0] * (2 * (info.rank - 1 - dim) + 1) + [extra]  # (before, after) pairs from the last dim
        padding = b.list([b.constant_int(amount) for amount in amounts], "!torch.int")
        return b.op("aten.constant_pad_nd", b.tensor_type(sizes, info.element), x, padding, b.constant_float(0.0))
    zeros = b.full([extra if i == dim else dim_of(b, x, i) for i in range(info.rank)], 0.0, info.element)
    return b.op("aten.cat", b.tensor_type(sizes, info.element), b.tensor_list([x, zeros]), b.constant_int(dim))


def _visible_keys(node: OnnxNode, b: TorchBuilder, query_positions: ir.Value, length) -> ir.Value:
    """Which keys each query sees, [batch, seq, L] (causal) or [batch, 1, L]."""
    keys = b.unsqueeze(b.unsqueeze(positions(b, length), 0), 0)  # [1, 1, L]
    if not node.attr_int("causal", 1):
        seqlens = b.unsqueeze(b.unsqueeze(b.to_dtype(node.input(5), "si64"), 1), 2)  # [batch, 1, 1]
        return compare(b, "aten.le.Tensor", keys, seqlens)
    at = b.unsqueeze(query_positions, 2)  # [batch, seq, 1]
    visible = compare(b, "aten.le.Tensor", keys, at)
    window = node.attr_int("local_window_size", -1)
    if window > 0:
        earliest = b.op("aten.sub.Scalar", at.type, at, b.constant_int(window), b.constant_int(1))
        visible = compare(b, "aten.logical_and", visible, compare(b, "aten.gt.Tensor", keys, earliest))
    return visible
