"""Neural-network ops, part 1: MatMul, Gemm, Einsum, and the helpers the other nn modules share.

The family is split in four modules: this one (products), `nn_conv` (Conv, ConvTranspose),
`nn_pool` (MaxPool, AveragePool, LpPool, the global pools, MaxRoiPool) and `nn_norm`
(BatchNormalization, InstanceNormalization, LayerNormalization, GroupNormalization,
LpNormalization, LRN, MeanVarianceNormalization).

The compositions the modules share (elementwise arithmetic with computed result types,
padding, slicing) are `TorchBuilder` methods; ONNX's `pads`/`auto_pad` and per-spatial-dim
attributes are read by the node view (`OnnxNode.resolve_pads`, `OnnxNode.spatial_ints`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

# -- MatMul, Gemm, Einsum -----------------------------------------------------------------------


_HALF_FLOATS = ("f16", "bf16")


def _matmul_in_float32(node: OnnxNode, b: TorchBuilder, lhs, rhs):
    """A 16-bit float product accumulated in float32 and rounded once, as onnxruntime and the
    Linalg path give it: the StableHLO path rounded every partial sum to 16 bits (Attention in
    float16 was off by several units in the last place)."""
    result = node.result_info()
    wide = b.op("aten.matmul", b.tensor_type(result.sizes, "f32"), b.to_dtype(lhs, "f32"), b.to_dtype(rhs, "f32"))
    return b.to_dtype(wide, result.element)


@converts("MatMul", since=1)
def matmul(node: OnnxNode, b: TorchBuilder):
    """numpy.matmul: 1-D operands are promoted and the added dim removed, batch dims broadcast.

    A 1-D operand next to an N-D one (N > 2) is promoted here, because torch-mlir's backends
    lower only some of those `aten.matmul` forms."""
    lhs, rhs = node.input(0), node.input(1)
    lhs_rank, rhs_rank = node.input_info(0).rank, node.input_info(1).rank
    ranked = None not in (lhs_rank, rhs_rank, node.result_info().rank)
    if ranked and min(lhs_rank, rhs_rank) >= 3 and _batch_needs_broadcast(node):
        return _matmul_with_broadcast_batch(node, b, lhs, rhs)
    if not ranked or (lhs_rank == 1) == (rhs_rank == 1) or max(lhs_rank, rhs_rank) <= 2:
        if node.target == "stablehlo" and node.result_info().element in _HALF_FLOATS:
            return _matmul_in_float32(node, b, lhs, rhs)
        return b.op("aten.matmul", node.result_type(), lhs, rhs)
    squeeze = -2 if lhs_rank == 1 else -1
    lhs = b.unsqueeze(lhs, 0) if lhs_rank == 1 else lhs
    rhs = b.unsqueeze(rhs, -1) if rhs_rank == 1 else rhs
    result = node.result_info()
    sizes = list(result.sizes)
    sizes.insert(len(sizes) + 1 + squeeze, 1)
    product = b.op("aten.matmul", b.tensor_type(sizes, result.element), lhs, rhs)
    return b.op("aten.squeeze.dim", node.result_type(), product, b.constant_int(squeeze))


def _batch_needs_broadcast(node: OnnxNode) -> bool:
    """Whether the batch dims of two operands of rank >= 3 are not provably equal."""
    lhs, rhs = node.input_info(0).sizes[:-2], node.input_info(1).sizes[:-2]
    return len(lhs) != len(rhs) or any(l is None or r is None or l != r for l, r in zip(lhs, rhs))


def _broadcast_batch_size(b: TorchBuilder, lhs_size, rhs_size, lhs_dim, rhs_dim):
    """ONNX's broadcast of two batch dims (an int when known, else a `!torch.int`)."""
    if lhs_size is not None and lhs_size == rhs_size:
        return lhs_size
    if lhs_size == 1 or (rhs_size is not None and rhs_size != 1):
        return rhs_size if rhs_size is not None else rhs_dim()
    if rhs_size == 1 or lhs_size is not None:
        return lhs_size if lhs_size is not None else lhs_dim()
    # both dynamic: rhs unless rhs is 1, computed as rhs + (lhs - rhs) * (rhs == 1)
    int_type = b.type("!torch.int")
    lhs_value, rhs_value = lhs_dim(), rhs_dim()
    rhs_is_one = b.op("aten.Int.bool", int_type, b.op("aten.eq.int", b.type("!torch.bool"), rhs_value, b.constant_int(1)))
    difference = b.op("aten.sub.int", int_type, lhs_value, rhs_value)
    return b.op("aten.add.int", int_type, rhs_value, b.op("aten.mul.int", int_type, difference, rhs_is_one))


def _broadcast_to_batch(b: TorchBuilder, x: ir.Value, batch: list) -> ir.Value:
    info = b.info(x)
    if all(isinstance(size, int) for size in batch) and list(info.sizes[:-2]) == batch:
        return x  # already the static batch
    sizes = [size if isinstance(size, int) else None for size in batch] + list(info.sizes[-2:])
    targets = [b.constant_int(size) if isinstance(size, int) else size for size in batch]
    targets += [b.constant_int(-1), b.constant_int(-1)]
    return b.op("aten.broadcast_to", b.tensor_type(sizes, info.element), x, b.list(targets, "!torch.int"))


def _matmul_with_broadcast_batch(node: OnnxNode, b: TorchBuilder, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    """Both operands broadcast to the common batch dims first, then multiplied.

    torch-mlir's lowerings of `aten.matmul` assume dynamic batch dims equal: on Linalg a
    run-time batch of 1 against 3 gave wrong numbers, and a 3-D product with a dynamic batch
    is not decomposed at all (rotary embeddings' [batch, 8, 1] x [batch, 1, sequence]). With
    the batch broadcast explicitly, the 3-D product is an `aten.bmm`."""
    lhs_sizes, rhs_sizes = node.input_info(0).sizes, node.input_info(1).sizes
    rank = max(len(lhs_sizes), len(rhs_sizes))
    lhs_batch = [1] * (rank - len(lhs_sizes)) + list(lhs_sizes[:-2])
    rhs_batch = [1] * (rank - len(rhs_sizes)) + list(rhs_sizes[:-2])
    lhs_offset, rhs_offset = rank - len(lhs_sizes), rank - len(rhs_sizes)

    def dim_of(x, position):
        return lambda: b.op("aten.size.int", b.type("!torch.int"), x, b.constant_int(position))

    batch = [
        _broadcast_batch_size(b, l, r, dim_of(lhs, i - lhs_offset), dim_of(rhs, i - rhs_offset))
        for i, (l, r) in enumerate(zip(lhs_batch, rhs_batch))
    ]
    lhs, rhs = _broadcast_to_batch(b, lhs, batch), _broadcast_to_batch(b, rhs, batch)
    product = "aten.bmm" if rank == 3 else "aten.matmul"
    return b.op(product, node.result_type(), lhs, rhs)


def _transpose_2d(b: TorchBuilder, x: ir.Value) -> ir.Value:
    sizes = b.info(x).sizes
    return b.op(
        "aten.transpose.int", b.tensor_type(list(reversed(sizes)), b.info(x).element), x, b.constant_int(0),
        b.constant_int(1),
    )


def _gemm(node: OnnxNode, b: TorchBuilder, c: ir.Value | None):
    """Y = alpha * A' @ B' + beta * C, A' = A^T if transA, B' = B^T if transB; C broadcasts to Y."""
    a, bb = node.input(0), node.input(1)
    for index in (0, 1):
        if node.input_info(index).rank != 2:
            node.fail(f"input {index} must have rank 2, not {node.input_info(index).rank}")
    if node.attr_int("transA"):
        a = _transpose_2d(b, a)
    if node.attr_int("transB"):
        bb = _transpose_2d(b, bb)
    alpha, beta = node.attr_float("alpha"), node.attr_float("beta")
    result = node.result_info()
    product_type = b.tensor_type([b.info(a).sizes[0], b.info(bb).sizes[1]], result.element)
    last = c is None and alpha == 1.0
    product = b.op("aten.mm", node.result_type() if last else product_type, a, bb)
    if alpha != 1.0:
        product = b.scalar_op("aten.mul.Scalar", product, alpha, node.result_type() if c is None else product_type)
    if c is None:
        return product
    if beta != 1.0:
        c = b.scalar_op("aten.mul.Scalar", c, beta)
    return b.binary("aten.add.Tensor", product, c, node.result_type())


@converts("Gemm", since=1)
def gemm_required_c(node: OnnxNode, b: TorchBuilder):
    """Opsets 1-10: C is required. The opset 1/6 `broadcast` attribute needs nothing: with
    broadcast=0 C already has Y's shape, and with broadcast=1 numpy broadcasting is the rule."""
    return _gemm(node, b, node.input(2))


@converts("Gemm", since=11)
def gemm(node: OnnxNode, b: TorchBuilder):
    """From opset 11 C is optional."""
    return _gemm(node, b, node.optional_input(2))


@converts("Einsum", since=12)
def einsum(node: OnnxNode, b: TorchBuilder):
    """numpy.einsum. The identity form (one operand, output subscripts equal to the input's,
    e.g. "->" on a scalar) is the operand itself: torch-mlir's einsum decomposition runs out
    of memory on it."""
    equation = node.attr_string("equation").replace(" ", "")
    inputs = node.inputs()
    terms = equation.split("->")[0].split(",")
    if len(terms) != len(inputs):  # torch-mlir's decomposition runs out of memory on a mismatch
        node.fail(f"equation '{equation}' has {len(terms)} input term(s) for {len(inputs)} input(s)")
    if len(inputs) == 1 and "->" in equation and len(set(equation.split("->")[0])) == len(equation.split("->")[0]):
        lhs, rhs = equation.split("->")
        if lhs == rhs:
            return b.cast_to(inputs[0], node.result_type())
    if node.target == "stablehlo" and "->" in equation:
        equation, inputs = _diagonals_taken(node, b, equation, inputs)
        lhs, rhs = equation.split("->")
        if len(inputs) == 1 and lhs == rhs:
            return b.cast_to(inputs[0], node.result_type())
    if _is_dynamic_pair_product(b, equation, inputs):
        return _einsum_as_bmm(node, b, equation, inputs)
    operands = b.tensor_list(inputs)
    return b.op("aten.einsum", node.result_type(), b.constant_string(equation), operands, b.constant_none())


def _is_dynamic_pair_product(b: TorchBuilder, equation: str, inputs: list) -> bool:
    """Two ranked operands with a dynamic dim, explicit output, no ellipsis, no repeated letter, and
    batch letters of one size: torch-mlir's einsum decomposition leaves an `aten.matmul` with
    dynamic batch dims, which it neither decomposes nor lowers (Funnel's "bind,bjnd->bnij")."""
    if len(inputs) != 2 or "->" not in equation or "." in equation:
        return False
    (lhs, rhs), out = equation.split("->")[0].split(","), equation.split("->")[1]
    infos = [b.info(x) for x in inputs]
    if any(info.sizes is None for info in infos) or (len(lhs), len(rhs)) != (infos[0].rank, infos[1].rank):
        return False
    if any(len(set(term)) != len(term) for term in (lhs, rhs, out)) or not set(out) <= set(lhs + rhs):
        return False
    if None not in infos[0].sizes + infos[1].sizes:
        return False
    sizes = dict(zip(rhs, infos[1].sizes))
    for letter, size in zip(lhs, infos[0].sizes):  # a shared letter: one size (no size-1 broadcast)
        other = sizes.get(letter, size)
        if size != other and (None not in (size, other) or 1 in (size, other)):
            return False
    return True


def _einsum_as_bmm(node: OnnxNode, b: TorchBuilder, equation: str, inputs: list):
    """A two-operand einsum as `aten.bmm`: letters of one operand only and not in the output are
    summed first; each operand is permuted to [batch, own, contracted] (rhs [batch, contracted, own])
    and reshaped to 3-D; the product is reshaped to [batch, lhs own, rhs own] and permuted to the output."""
    (lhs, rhs), out = equation.split("->")[0].split(","), equation.split("->")[1]
    lhs_x, lhs = _summed_away(b, inputs[0], lhs, set(rhs + out))
    rhs_x, rhs = _summed_away(b, inputs[1], rhs, set(lhs + out))
    batch = [c for c in lhs if c in rhs and c in out]
    contracted = [c for c in lhs if c in rhs and c not in out]
    lhs_own = [c for c in lhs if c not in rhs]
    rhs_own = [c for c in rhs if c not in lhs]
    dims = dict(zip(rhs, b.dims(rhs_x)))
    dims.update((c, d) for c, d in zip(lhs, b.dims(lhs_x)) if c not in dims or isinstance(dims[c], ir.Value))
    lhs_x = _permuted(b, lhs_x, lhs, batch + lhs_own + contracted)
    rhs_x = _permuted(b, rhs_x, rhs, batch + contracted + rhs_own)

    def product(letters):
        return b.dim_product([dims[c] for c in letters])

    lhs_x = b.reshape(lhs_x, [product(batch), product(lhs_own), product(contracted)])
    rhs_x = b.reshape(rhs_x, [product(batch), product(contracted), product(rhs_own)])
    element = node.result_info().element
    bmm_sizes = [b.static_dim(product(group)) for group in (batch, lhs_own, rhs_own)]
    result = b.op("aten.bmm", b.tensor_type(bmm_sizes, element), lhs_x, rhs_x)
    order = batch + lhs_own + rhs_own
    result = b.reshape(result, [dims[c] for c in order])
    return b.cast_to(_permuted(b, result, "".join(order), list(out)), node.result_type())


def _summed_away(b: TorchBuilder, x, term: str, kept: set):
    """`x` with the dims of letters not in `kept` summed away, and its remaining letters."""
    summed = [i for i, c in enumerate(term) if c not in kept]
    if not summed:
        return x, term
    x = b.op("aten.sum.dim_IntList", b.reduced_type(x, summed, False), x, b.int_list(summed),
             b.constant_bool(False), b.constant_none())
    return x, "".join(c for c in term if c in kept)


def _permuted(b: TorchBuilder, x, letters, order: list):
    """`x` (dims named by `letters`) permuted to the letters of `order`."""
    permutation = [list(letters).index(c) for c in order]
    if permutation == list(range(len(permutation))):
        return x
    sizes = [b.info(x).sizes[p] for p in permutation]
    return b.op("aten.permute", b.tensor_type(sizes, b.info(x).element), x, b.int_list(permutation))


def _diagonals_taken(node: OnnxNode, b: TorchBuilder, equation: str, inputs: list):
    """The equation and operands with each letter repeated in an input term ("ii") replaced by its
    diagonal, taken here: torch-mlir's einsum decomposition takes it with `aten.diagonal`, which
    its StableHLO lowering does not take. The two dims go last (`aten.permute`), are flattened, and
    an `index_select` of the positions k * (n + 1) picks the diagonal, which is the letter's last dim."""
    lhs, rhs = equation.split("->")
    terms = lhs.split(",")
    for index, term in enumerate(terms):
        labels = _term_labels(node, term, b.info(inputs[index]).rank)
        while True:
            letter = next((c for c in labels if c is not None and labels.count(c) > 1), None)
            if letter is None:
                break
            first = labels.index(letter)
            second = labels.index(letter, first + 1)
            inputs[index] = _diagonal_last(node, b, inputs[index], first, second)
            labels = [c for i, c in enumerate(labels) if i not in (first, second)] + [letter]
        terms[index] = _term_text(labels, "..." in term)
    return ",".join(terms) + "->" + rhs, inputs


def _term_labels(node: OnnxNode, term: str, rank: int) -> list:
    """One label a dim: the term's letter, None for a dim of the ellipsis."""
    if "..." not in term:
        if len(term) != rank:
            node.fail(f"einsum term '{term}' has {len(term)} letters for an input of rank {rank}")
        return list(term)
    before, after = term.split("...")
    return list(before) + [None] * (rank - len(before) - len(after)) + list(after)


def _term_text(labels: list, has_ellipsis: bool) -> str:
    if not has_ellipsis:
        return "".join(labels)
    if None not in labels:
        return "..." + "".join(labels)
    start = labels.index(None)
    end = len(labels) - labels[::-1].index(None)
    return "".join(labels[:start]) + "..." + "".join(labels[end:])


def _diagonal_last(node: OnnxNode, b: TorchBuilder, x, first: int, second: int):
    sizes = list(b.info(x).sizes)
    n = sizes[first]
    if n is None or sizes[second] != n:
        node.fail("a repeated einsum letter needs a static size (the same on both dims) on stablehlo")
    rank = len(sizes)
    order = [d for d in range(rank) if d not in (first, second)] + [first, second]
    kept = [sizes[d] for d in order[:-2]]
    x = b.op("aten.permute", b.tensor_type(kept + [n, n], b.info(x).element), x, b.int_list(order))
    x = b.op("aten.flatten.using_ints", b.tensor_type(kept + [n * n], b.info(x).element), x,
             b.constant_int(rank - 2), b.constant_int(rank - 1))
    positions = b.literal(np.arange(n, dtype=np.int64) * (n + 1), "si64")
    return b.op("aten.index_select", b.tensor_type(kept + [n], b.info(x).element), x, b.constant_int(rank - 2),
                positions)
