"""LinearAttention (opset 27): the recurrence written out step by step over a static sequence.

query [B, T, H_q * d_k], key [B, T, H_kv * d_k], value [B, T, H_kv * d_v] are unpacked to heads;
the state S [B, H_kv, d_k, d_v] starts at past_state (or zeros) and for each token t:

- gated, gated_delta: S *= exp(g_t), g_t per key dim (decay [B, T, H_kv * d_k]) or per head
  (decay [B, T, H_kv]);
- delta, gated_delta: v_t <- beta_t * (v_t - S^T k_t), beta [B, T, H_kv] or [B, T, 1];
- every rule: S += k_t (outer) v_t, then o_t = scale * q_t^T S, where query head h reads KV head
  h // (H_q / H_kv) (GQA; the query heads are viewed as [H_kv, H_q / H_kv]).

scale 0 means 1 / sqrt(d_k). As ONNX's reference does, the arithmetic is in f32 whatever the
input types (f16, bf16), and output / present_state are cast back to their declared types.
chunk_size is a tuning hint with no effect on the result.

The loop over T is unrolled at conversion time (one matmul for the read, one for the delta
correction, one outer product per token), so T must be static; a dynamic T is refused.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

_RULES = ("linear", "gated", "delta", "gated_delta")
_QUERY, _KEY, _VALUE, _PAST_STATE, _DECAY, _BETA = range(6)


def _permute(b: TorchBuilder, x: ir.Value, order: list[int]) -> ir.Value:
    sizes = b.info(x).sizes
    result = b.tensor_type([sizes[i] for i in order], b.info(x).element)
    return b.op("aten.permute", result, x, b.int_list(order))


def _heads_first(b: TorchBuilder, x: ir.Value, batch, steps: int, head_sizes: list[int]) -> ir.Value:
    """[B, T, prod(head_sizes)] as f32 [B, heads..., T, last]: [B, T, H, D] -> [B, H, T, D] and
    [B, T, H, G, D] -> [B, H, T, G, D]."""
    x = b.to_dtype(x, "f32")
    unpacked = b.reshape(x, [batch, steps, *head_sizes], [b.static_dim(batch), steps, *head_sizes])
    rank = 2 + len(head_sizes)
    return _permute(b, unpacked, [0, 2, 1, *range(3, rank)])


def _step(b: TorchBuilder, x: ir.Value, dim: int, t: int) -> ir.Value:
    """x[..., t:t+1, ...] along `dim` (the time dim kept, size 1)."""
    return b.slice_range(x, dim, t, t + 1)


def _select(b: TorchBuilder, x: ir.Value, dim: int, t: int) -> ir.Value:
    """x[..., t, ...] along `dim` (the time dim dropped)."""
    info = b.info(x)
    sizes = [size for i, size in enumerate(info.sizes) if i != dim]
    return b.op("aten.select.int", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(t))


def _matmul(b: TorchBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """Batched [..., m, k] @ [..., k, n] with the same batch dims."""
    left, right = b.info(x).sizes, b.info(y).sizes
    return b.op("aten.matmul", b.tensor_type([*left[:-1], right[-1]], "f32"), x, y)


def _static_last_dim(node: OnnxNode, index: int, what: str) -> int:
    sizes = node.input_sizes(index, what)
    if len(sizes) != 3:
        node.fail(f"{what} must be rank 3 (B, T, H*D), got rank {len(sizes)}")
    if sizes[-1] is None:
        node.fail(f"{what} needs a static last dim (heads * head size)")
    return sizes[-1]


def _head_size(node: OnnxNode, packed: int, heads: int, what: str) -> int:
    if packed % heads:
        node.fail(f"{what}'s last dim {packed} is not a multiple of its {heads} heads")
    return packed // heads


def _check_rule_inputs(node: OnnxNode, rule: str) -> tuple[bool, bool]:
    """Whether the rule gates (needs decay) and corrects (needs beta); fails on a mismatch."""
    if rule not in _RULES:
        node.fail(f"update_rule '{rule}' is not one of {', '.join(_RULES)}")
    gating, correcting = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    for index, name, needed in ((_DECAY, "decay", gating), (_BETA, "beta", correcting)):
        if needed and not node.has_input(index):
            node.fail(f"update_rule '{rule}' needs the {name} input")
        if not needed and node.has_input(index):
            node.fail(f"update_rule '{rule}' takes no {name} input")
    return gating, correcting


def _decay_columns(node: OnnxNode, b: TorchBuilder, batch, steps: int, kv_heads: int, d_k: int) -> ir.Value:
    """decay as f32 [B, H_kv, d_k or 1, T]: column t multiplies S's rows."""
    last = _static_last_dim(node, _DECAY, "decay")
    if last == kv_heads * d_k:
        per_head = [kv_heads, d_k]
    elif last == kv_heads:
        per_head = [kv_heads, 1]
    else:
        node.fail(f"decay's last dim {last} must be kv_num_heads ({kv_heads}) or kv_num_heads * d_k ({kv_heads * d_k})")
    decay = _heads_first(b, node.input(_DECAY), batch, steps, per_head)
    return _permute(b, decay, [0, 1, 3, 2])


def _beta_rows(node: OnnxNode, b: TorchBuilder, batch, steps: int, kv_heads: int) -> ir.Value:
    """beta as f32 [B, H_kv or 1, T, 1]."""
    last = _static_last_dim(node, _BETA, "beta")
    if last not in (kv_heads, 1):
        node.fail(f"beta's last dim {last} must be kv_num_heads ({kv_heads}) or 1")
    return _heads_first(b, node.input(_BETA), batch, steps, [last, 1])


def _initial_state(node: OnnxNode, b: TorchBuilder, state_sizes: list) -> ir.Value:
    if not node.has_input(_PAST_STATE):
        return b.full(state_sizes, 0.0, "f32")
    past = b.to_dtype(node.input(_PAST_STATE), "f32")
    return b.cast_to(past, b.tensor_type([b.static_dim(size) for size in state_sizes], "f32"))


@converts("LinearAttention", since=27)
def linear_attention(node: OnnxNode, b: TorchBuilder):
    rule = node.attr_string("update_rule")
    gating, correcting = _check_rule_inputs(node, rule)
    q_heads, kv_heads = node.attr_int("q_num_heads"), node.attr_int("kv_num_heads")
    if q_heads <= 0 or kv_heads <= 0 or q_heads % kv_heads:
        node.fail(f"q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads ({kv_heads})")
    group = q_heads // kv_heads
    d_k = _head_size(node, _static_last_dim(node, _QUERY, "query"), q_heads, "query")
    d_v = _head_size(node, _static_last_dim(node, _VALUE, "value"), kv_heads, "value")
    if _static_last_dim(node, _KEY, "key") != kv_heads * d_k:
        node.fail(f"key's last dim must be kv_num_heads * d_k = {kv_heads * d_k}")
    steps = node.input_sizes(_QUERY, "query")[1]
    if steps is None:
        node.fail("a dynamic sequence length (query dim 1) is not supported: the recurrence is unrolled over it")
    scale = node.attr_float("scale") or 1.0 / math.sqrt(d_k)
    batch = b.dim(node.input(_QUERY), 0)

    queries = _heads_first(b, node.input(_QUERY), batch, steps, [kv_heads, group, d_k])  # [B, Hkv, T, G, dk]
    keys = _heads_first(b, node.input(_KEY), batch, steps, [kv_heads, d_k])  # [B, Hkv, T, dk]
    key_columns = _permute(b, keys, [0, 1, 3, 2])  # [B, Hkv, dk, T]
    values = _heads_first(b, node.input(_VALUE), batch, steps, [kv_heads, d_v])  # [B, Hkv, T, dv]
    decay = _decay_columns(node, b, batch, steps, kv_heads, d_k) if gating else None
    beta = _beta_rows(node, b, batch, steps, kv_heads) if correcting else None
    state = _initial_state(node, b, [batch, kv_heads, d_k, d_v])

    reads = []
    for t in range(steps):
        if gating:
            state = b.binary("aten.mul.Tensor", state, b.unary("aten.exp", _step(b, decay, 3, t)))
        value = _step(b, values, 2, t)  # [B, Hkv, 1, dv]
        if correcting:
            retrieved = _matmul(b, _step(b, keys, 2, t), state)  # k_t^T S: [B, Hkv, 1, dv]
            value = b.binary("aten.mul.Tensor", _step(b, beta, 2, t), b.binary("aten.sub.Tensor", value, retrieved))
        state = b.binary("aten.add.Tensor", state, b.binary("aten.mul.Tensor", _step(b, key_columns, 3, t), value))
        reads.append(b.unsqueeze(_matmul(b, _select(b, queries, 2, t), state), 2))  # [B, Hkv, 1, G, dv]

    read_sizes = list(b.info(reads[0]).sizes)
    read_sizes[2] = steps
    stacked = b.op("aten.cat", b.tensor_type(read_sizes, "f32"), b.tensor_list(reads), b.constant_int(2))
    tokens = _permute(b, b.scalar_op("aten.mul.Scalar", stacked, scale), [0, 2, 1, 3, 4])
    output = b.reshape(tokens, [batch, steps, q_heads * d_v], [b.static_dim(batch), steps, q_heads * d_v])
    output = b.cast_to(b.to_dtype(output, node.result_info(0).element), node.result_type(0))
    present = b.cast_to(b.to_dtype(state, node.result_info(1).element), node.result_type(1))
    return [output, present]
