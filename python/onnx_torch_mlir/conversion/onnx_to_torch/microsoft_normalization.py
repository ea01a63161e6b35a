"""onnxruntime's contrib normalizations: SkipLayerNormalization, SkipSimplifiedLayerNormalization,
EmbedLayerNormalization (domain `com.microsoft`, version 1), and the two that onnxruntime
registers in the default domain at version 1, before ONNX had them: LayerNormalization (ONNX's
own arrived at opset 17, whose pattern takes over from there) and SimplifiedLayerNormalization
(RMS norm; ONNX has none). onnxruntime's optimizer writes all of them into BERT-, GPT- and
LLaMA-style models (docs/ContribOperators.md, core/graph/contrib_ops/{bert,contrib}_defs.cc).

Every normalization here is over the trailing dims, composed from reductions:
  LayerNorm: y = (x - mean) * rsqrt(mean((x - mean)^2) + epsilon) * gamma + beta
  RMS norm:  y = x * rsqrt(mean(x^2) + epsilon) * gamma
The Skip forms normalize input + skip (+ bias) and can also return that sum. onnxruntime
computes f16 and bf16 in f32 (its stash type): so do these patterns, casting the results back.
The statistics outputs (mean, inv_std_var) keep the normalized dims as 1 ([batch, seq, 1]).
ONNX has no schemas for these ops, so every attribute default is spelled here.
"""

from __future__ import annotations

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

MICROSOFT = "com.microsoft"
NARROW_FLOATS = ("f16", "bf16")


def _dim(b: TorchBuilder, x: ir.Value, index: int):
    """Dim `index` of x: an int when static, else a `!torch.int`."""
    size = b.info(x).sizes[index]
    if size is not None:
        return size
    return b.op("aten.size.int", b.type("!torch.int"), x, b.constant_int(index))


def _wide(b: TorchBuilder, x: ir.Value | None) -> ir.Value | None:
    """x in f32 if it is f16 or bf16 (onnxruntime's computation type for them)."""
    if x is None or b.info(x).element not in NARROW_FLOATS:
        return x
    return b.to_dtype(x, "f32")


def _result(node: OnnxNode, b: TorchBuilder, value: ir.Value, index: int) -> ir.Value | None:
    """`value` as result `index` (its declared element type and shape), None if unused."""
    if index >= node.num_results or not node.result_is_used(index):
        return None
    return b.cast_to(b.to_dtype(value, node.result_info(index).element), node.result_type(index))


def _normalize(b: TorchBuilder, x: ir.Value, first_dim: int, epsilon: float, centered: bool):
    """(normalized x, mean, inverse std) over dims [first_dim, rank); mean is None for RMS."""
    dims = list(range(first_dim, b.info(x).rank))
    mean = None
    if centered:
        mean = b.reduce_mean(x, dims)
        x = b.binary("aten.sub.Tensor", x, mean)
    variance = b.reduce_mean(b.binary("aten.mul.Tensor", x, x), dims)
    inverse_std = b.unary("aten.rsqrt", b.scalar_op("aten.add.Scalar", variance, epsilon))
    return b.binary("aten.mul.Tensor", x, inverse_std), mean, inverse_std


def _kept_normalization(node: OnnxNode, b: TorchBuilder, x, first_dim: int, epsilon: float, gamma, beta,
                        centered: bool, statistics=(1, 2), widen: bool = False):
    """gamma * norm(x) (+ beta) as one aten.layer_norm (centered) or aten.rms_norm when the user keeps
    that op backend-legal, the statistics outputs are unused and gamma/beta have the normalized
    shape; else None (the composed form), having created no op. `widen`: x in f32 if narrower."""
    torch_op = "aten.layer_norm" if centered else "aten.rms_norm"
    if not node.is_backend_legal(torch_op) or any(
        i < node.num_results and node.result_is_used(i) for i in statistics
    ):
        return None
    info = b.info(x)
    normalized = tuple(info.sizes[first_dim:])
    if None in normalized or any(v is not None and b.info(v).sizes != normalized for v in (gamma, beta)):
        return None
    x = _wide(b, x) if widen else x
    info = b.info(x)
    shape = b.int_list(list(normalized))
    if centered:
        arguments = [_wide(b, gamma), b.constant_none() if beta is None else _wide(b, beta)]
        return b.op(
            torch_op, b.tensor_type(info.sizes, info.element), x, shape, *arguments,
            b.constant_float(epsilon), b.constant_bool(True),
        )
    return b.op(torch_op, b.tensor_type(info.sizes, info.element), x, shape, _wide(b, gamma), b.constant_float(epsilon))


def _first_normalized_dim(node: OnnxNode, rank: int) -> int:
    axis = node.attr_int("axis", -1)
    if not -rank <= axis < rank:
        node.fail(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def _kept_results(node: OnnxNode, b: TorchBuilder, kept: ir.Value) -> list:
    """[output 0 from a kept normalization, None for each other result]."""
    output = b.cast_to(b.to_dtype(kept, node.result_info(0).element), node.result_type(0))
    return [output] + [None] * (node.num_results - 1)


def _scale_and_shift(b: TorchBuilder, y: ir.Value, gamma: ir.Value, beta: ir.Value | None) -> ir.Value:
    y = b.binary("aten.mul.Tensor", y, _wide(b, gamma))
    return y if beta is None else b.binary("aten.add.Tensor", y, _wide(b, beta))


# -- default domain, version 1 -------------------------------------------------------------------


def _normalization_operands(node: OnnxNode):
    """X, the first normalized dim (from `axis`) and `stash_type` (0 or 1) of the v1 norms."""
    first_dim = _first_normalized_dim(node, len(node.input_sizes(0)))
    stash = node.attr_int("stash_type", 1)
    if stash not in (0, 1):
        node.fail(f"stash_type {stash} is not supported (0 or 1)")
    return node.input(0), first_dim, stash


@converts("LayerNormalization", since=1)
def layer_normalization_contrib(node: OnnxNode, b: TorchBuilder):
    """onnxruntime's LayerNormalization before opset 17: Y = LayerNorm over [axis, rank) * Scale
    + B; outputs Y, Mean, InvStdDev (normalized dims kept as 1). Attributes: axis (-1),
    epsilon (1e-5), stash_type (1: f16/bf16 computed in f32; 0: in their own type)."""
    x, first_dim, stash = _normalization_operands(node)
    scale, bias = node.input(1), node.optional_input(2)
    if stash == 1:
        x = _wide(b, x)
    # (stash_type 0 on f16/bf16 keeps the composed form: the kept op's scale and bias are widened.)
    kept = None
    if stash == 1 or b.info(x).element not in NARROW_FLOATS:
        kept = _kept_normalization(node, b, x, first_dim, node.attr_float("epsilon", 1e-5), scale, bias, True)
    if kept is not None:
        return _kept_results(node, b, kept)
    y, mean, inverse_std = _normalize(b, x, first_dim, node.attr_float("epsilon", 1e-5), centered=True)
    y = b.binary("aten.mul.Tensor", y, _wide(b, scale) if stash == 1 else scale)
    if bias is not None:
        y = b.binary("aten.add.Tensor", y, _wide(b, bias) if stash == 1 else bias)
    output = b.cast_to(b.to_dtype(y, node.result_info(0).element), node.result_type(0))
    return [output, _result(node, b, mean, 1), _result(node, b, inverse_std, 2)][: node.num_results]


@converts("SimplifiedLayerNormalization", since=1)
def simplified_layer_normalization(node: OnnxNode, b: TorchBuilder):
    """RMS norm: Y = X * rsqrt(mean(X^2 over [axis, rank)) + epsilon) * scale; outputs Y and
    inv_std_var. Attributes: axis (-1), epsilon (1e-5), stash_type (1)."""
    x, first_dim, stash = _normalization_operands(node)
    if stash == 1:
        x = _wide(b, x)
    kept = None
    if stash == 1 or b.info(x).element not in NARROW_FLOATS:
        epsilon = node.attr_float("epsilon", 1e-5)
        kept = _kept_normalization(node, b, x, first_dim, epsilon, node.input(1), None, False, statistics=(1,))
    if kept is not None:
        return _kept_results(node, b, kept)
    y, _, inverse_std = _normalize(b, x, first_dim, node.attr_float("epsilon", 1e-5), centered=False)
    scale = node.input(1)
    y = b.binary("aten.mul.Tensor", y, _wide(b, scale) if stash == 1 else scale)
    output = b.cast_to(b.to_dtype(y, node.result_info(0).element), node.result_type(0))
    return [output, _result(node, b, inverse_std, 1)][: node.num_results]


# -- com.microsoft ------------------------------------------------------------------------------


def _skip_normalization(node: OnnxNode, b: TorchBuilder, centered: bool):
    """input + skip (+ bias), normalized over the last dim, * gamma (+ beta). Outputs: output,
    mean, inv_std_var, input_skip_bias_sum. skip is [batch, seq, hidden], [1, seq, hidden] or
    [seq, hidden] (broadcast)."""
    x, skip = node.input(0), node.input(1)
    rank = len(node.input_sizes(0))
    if rank not in (2, 3):
        node.fail(f"input has rank {rank}: needs [batch, sequence, hidden] or [tokens, hidden]")
    gamma = node.input(2)
    beta = node.optional_input(3) if centered else None
    bias = node.optional_input(4 if centered else 3)
    total = b.binary("aten.add.Tensor", x, skip, node.result_type(0))
    if bias is not None:
        total = b.binary("aten.add.Tensor", total, bias, node.result_type(0))
    kept = _kept_normalization(
        node, b, total, rank - 1, node.attr_float("epsilon", 1e-12), gamma, beta, centered, widen=True
    )
    if kept is not None:
        results = _kept_results(node, b, kept)[:1] + [None, None]
        results.append(total if node.num_results > 3 and node.result_is_used(3) else None)
        return results[: node.num_results]
    y, mean, inverse_std = _normalize(
        b, _wide(b, total), rank - 1, node.attr_float("epsilon", 1e-12), centered=centered
    )
    output = b.to_dtype(_scale_and_shift(b, y, gamma, beta), node.result_info(0).element)
    output = b.cast_to(output, node.result_type(0))
    if not centered and node.num_results > 1 and node.result_is_used(1):
        node.fail("output 1 (mean) is not defined for the simplified (RMS) normalization")
    results = [output, _result(node, b, mean, 1) if centered else None, _result(node, b, inverse_std, 2)]
    results.append(total if node.num_results > 3 and node.result_is_used(3) else None)
    return results[: node.num_results]


@converts("SkipLayerNormalization", since=1, domain=MICROSOFT)
def skip_layer_normalization(node: OnnxNode, b: TorchBuilder):
    """LayerNorm(input + skip + bias) * gamma + beta; epsilon 1e-12 by default."""
    return _skip_normalization(node, b, centered=True)


@converts("SkipSimplifiedLayerNormalization", since=1, domain=MICROSOFT)
def skip_simplified_layer_normalization(node: OnnxNode, b: TorchBuilder):
    """RMSNorm(input + skip + bias) * gamma; inputs input, skip, gamma, bias."""
    return _skip_normalization(node, b, centered=False)


def _embedding(b: TorchBuilder, table: ir.Value, ids: ir.Value) -> ir.Value:
    """table[ids]: rows of a [rows, hidden] table for integer ids of any shape (si64 index_select
    of the flattened ids, then the ids' shape; out-of-range ids are the caller's error)."""
    ids = b.to_dtype(ids, "si64")
    table_info, ids_info = b.info(table), b.info(ids)
    flat = b.flatten(ids)
    rows = b.op(
        "aten.index_select", b.tensor_type([b.info(flat).sizes[0], table_info.sizes[1]], table_info.element),
        table, b.constant_int(0), flat,
    )
    if ids_info.rank == 1:
        return rows
    sizes = [_dim(b, ids, i) for i in range(ids_info.rank)] + [_dim(b, table, 1)]
    return b.reshape(rows, sizes, list(ids_info.sizes) + [table_info.sizes[1]])


@converts("EmbedLayerNormalization", since=1, domain=MICROSOFT)
def embed_layer_normalization(node: OnnxNode, b: TorchBuilder):
    """BERT's embedding layer: e = word_embedding[input_ids] + position_embedding[position_ids]
    (+ segment_embedding[segment_ids]); output = LayerNorm(e) * gamma + beta (epsilon 1e-12).

    Without position_ids the positions are 0..sequence-1 for every batch entry. Outputs:
    output [batch, seq, hidden]; mask_index [batch] int32, the number of 1s in each row of
    mask (onnxruntime's CPU kernel counts them; 0 without a mask); embedding_sum, e."""
    ids = node.input(0)
    if len(node.input_sizes(0)) != 2:
        node.fail("input_ids must be [batch, sequence]")
    segment_ids, segment_table = node.optional_input(1), node.optional_input(4)
    if (segment_ids is None) != (segment_table is None):
        node.fail("segment_ids and segment_embedding must be given together")
    word_table, position_table = node.input(2), node.input(3)
    for index, table in ((2, word_table), (3, position_table), (4, segment_table)):
        if table is not None and b.info(table).rank != 2:
            node.fail(f"input {index} must be a [rows, hidden] table")
    embedded = _embedding(b, word_table, ids)
    position_ids = node.optional_input(8)
    if position_ids is not None:
        positions = _embedding(b, position_table, position_ids)
    else:
        sequence = _dim(b, ids, 1)
        table_info = b.info(position_table)
        positions = b.op(
            "aten.slice.Tensor",
            b.tensor_type([sequence if isinstance(sequence, int) else None, table_info.sizes[1]], table_info.element),
            position_table, b.constant_int(0), b.constant_int(0),
            sequence if isinstance(sequence, ir.Value) else b.constant_int(sequence), b.constant_int(1),
        )
    embedded = b.binary("aten.add.Tensor", embedded, positions)
    if segment_ids is not None:
        embedded = b.binary("aten.add.Tensor", embedded, _embedding(b, segment_table, segment_ids))
    y, _, _ = _normalize(b, _wide(b, embedded), 2, node.attr_float("epsilon", 1e-12), centered=True)
    output = _scale_and_shift(b, y, node.input(5), node.input(6))
    results = [b.cast_to(b.to_dtype(output, node.result_info(0).element), node.result_type(0))]
    if node.num_results > 1:
        results.append(_mask_index(node, b, ids) if node.result_is_used(1) else None)
    if node.num_results > 2:
        results.append(_result(node, b, embedded, 2))
    return results


def _mask_index(node: OnnxNode, b: TorchBuilder, ids: ir.Value) -> ir.Value:
    """[batch] int32: the count of 1s in each row of mask (input 7), 0 without a mask."""
    result = node.result_info(1)
    mask = node.optional_input(7)
    if mask is None:
        return b.cast_to(b.full([_dim(b, ids, 0)], 0, result.element), node.result_type(1))
    info = b.info(mask)
    ones = b.op("aten.eq.Scalar", b.tensor_type(info.sizes, "i1"), mask, b.constant_int(1))
    ones = b.to_dtype(ones, "si32")
    counts = b.op(
        "aten.sum.dim_IntList", b.tensor_type(info.sizes[:1], "si32"), ones, b.int_list([1]),
        b.constant_bool(False), b.dtype("si32"),
    )
    return b.cast_to(b.to_dtype(counts, result.element), node.result_type(1))
