"""onnxruntime's contrib activations and products (domain `com.microsoft`, version 1):
Gelu, BiasGelu, FastGelu, QuickGelu, BiasAdd, FusedMatMul.

onnxruntime's transformer optimizer writes these when it fuses the subgraphs of BERT- and
GPT-style models (docs/ContribOperators.md; core/graph/contrib_ops/contrib_defs.cc). ONNX has no
schemas for them, so every attribute default is spelled here.

- Gelu / BiasGelu: the exact 0.5 * x * (1 + erf(x / sqrt(2))), of A + B for BiasGelu.
- FastGelu: the tanh form 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), of X + bias,
  composed from `aten.tanh`: torch-mlir's Linalg lowering of `gelu(approximate='tanh')` is off
  by up to 5e-5 (4e-5 relative near x = 1.3), while its `tanh` is within 1e-7.
- QuickGelu: x * sigmoid(alpha * x), alpha 1.702 by default.
- BiasAdd: X + bias + skip.
- FusedMatMul: alpha * op(A) @ op(B) (numpy matmul), where op transposes the last two dims
  (transA/transB) and, with transBatchA/transBatchB, first moves dim 0 behind the batch dims:
  the permutation [1, ..., r-2, 0, r-1], or [1, ..., r-1, 0] together with trans. These are the
  Transpose nodes onnxruntime's MatMul/Transpose fusion folds in.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

MICROSOFT = "com.microsoft"


def _gelu(node: OnnxNode, b: TorchBuilder, x: ir.Value, approximate: str) -> ir.Value:
    return b.op("aten.gelu", node.result_type(), b.cast_to(x, node.result_type()), b.constant_string(approximate))


@converts("Gelu", since=1, domain=MICROSOFT)
def gelu(node: OnnxNode, b: TorchBuilder):
    """Y = 0.5 * X * (1 + erf(X / sqrt(2)))."""
    return _gelu(node, b, node.input(0), "none")


@converts("BiasGelu", since=1, domain=MICROSOFT)
def bias_gelu(node: OnnxNode, b: TorchBuilder):
    """C = Gelu(A + B), B a bias broadcast along the last dim."""
    return _gelu(node, b, b.binary("aten.add.Tensor", node.input(0), node.input(1)), "none")


@converts("FastGelu", since=1, domain=MICROSOFT)
def fast_gelu(node: OnnxNode, b: TorchBuilder):
    """Y = 0.5 * X' * (1 + tanh(sqrt(2/pi) * (X' + 0.044715 * X'^3))), X' = X + bias (if given)."""
    x, bias = node.input(0), node.optional_input(1)
    if bias is not None:
        x = b.binary("aten.add.Tensor", x, bias)
    if node.is_backend_legal("aten.gelu"):  # the same tanh approximation, kept as one op
        return _gelu(node, b, x, "tanh")
    x = b.cast_to(x, node.result_type())
    cube = b.binary("aten.mul.Tensor", b.binary("aten.mul.Tensor", x, x), x)
    inner = b.binary("aten.add.Tensor", x, b.scalar_op("aten.mul.Scalar", cube, 0.044715))
    gate = b.unary("aten.tanh", b.scalar_op("aten.mul.Scalar", inner, math.sqrt(2.0 / math.pi)))
    half = b.scalar_op("aten.mul.Scalar", b.scalar_op("aten.add.Scalar", gate, 1.0), 0.5)
    return b.binary("aten.mul.Tensor", x, half, node.result_type())


@converts("QuickGelu", since=1, domain=MICROSOFT)
def quick_gelu(node: OnnxNode, b: TorchBuilder):
    """Y = X * sigmoid(alpha * X)."""
    x = node.input(0)
    alpha = node.attr_float("alpha", 1.702)
    if alpha == 1.0 and node.is_backend_legal("aten.silu"):
        return b.op("aten.silu", node.result_type(), x)
    gate = b.unary("aten.sigmoid", b.scalar_op("aten.mul.Scalar", x, alpha) if alpha != 1.0 else x)
    return b.binary("aten.mul.Tensor", x, gate, node.result_type())


@converts("BiasAdd", since=1, domain=MICROSOFT)
def bias_add(node: OnnxNode, b: TorchBuilder):
    """Y = X + bias + skip (X and skip [N, S, C], bias [C])."""
    biased = b.binary("aten.add.Tensor", node.input(0), node.input(1))
    return b.binary("aten.add.Tensor", biased, node.input(2), node.result_type())


# -- FusedMatMul ------------------------------------------------------------------------------


def _permuted(b: TorchBuilder, x: ir.Value, permutation: list[int]) -> ir.Value:
    if permutation == list(range(len(permutation))):
        return x
    info = b.info(x)
    sizes = [info.sizes[p] for p in permutation]
    return b.op("aten.permute", b.tensor_type(sizes, info.element), x, b.int_list(permutation))


def _fused_operand(node: OnnxNode, b: TorchBuilder, index: int, transpose: int, transpose_batch: int) -> ir.Value:
    """Operand `index` after FusedMatMul's transposes."""
    x = node.input(index)
    rank = len(node.input_sizes(index))
    if not transpose and not transpose_batch:
        return x
    if rank < 2:
        node.fail(f"input {index} has rank {rank}: its transposes need rank 2 or more")
    if transpose_batch:
        permutation = list(range(1, rank - 1)) + ([rank - 1, 0] if transpose else [0, rank - 1])
    else:
        permutation = list(range(rank - 2)) + [rank - 1, rank - 2]
    return _permuted(b, x, permutation)


def _dim(b: TorchBuilder, x: ir.Value, index: int):
    """Dim `index` of x: an int when static, else a `!torch.int`."""
    size = b.info(x).sizes[index]
    if size is not None:
        return size
    return b.op("aten.size.int", b.type("!torch.int"), x, b.constant_int(index))


def _broadcast_batch_dim(b: TorchBuilder, lhs: ir.Value, lhs_index, rhs: ir.Value, rhs_index):
    """numpy's broadcast of one batch dim of each operand (index None: a missing leading dim, 1)."""
    lhs_size = 1 if lhs_index is None else b.info(lhs).sizes[lhs_index]
    rhs_size = 1 if rhs_index is None else b.info(rhs).sizes[rhs_index]
    if lhs_size is not None and lhs_size == rhs_size:
        return lhs_size
    if lhs_size == 1:
        return rhs_size if rhs_size is not None else _dim(b, rhs, rhs_index)
    if rhs_size == 1:
        return lhs_size if lhs_size is not None else _dim(b, lhs, lhs_index)
    if lhs_size is not None:
        return lhs_size
    if rhs_size is not None:
        return rhs_size
    # Both dynamic: max(lhs, rhs) (they are equal or one of them is 1).
    return b.op("prim.max.int", b.type("!torch.int"), _dim(b, lhs, lhs_index), _dim(b, rhs, rhs_index))


def _batch_matmul(node: OnnxNode, b: TorchBuilder, lhs: ir.Value, rhs: ir.Value, result_type: ir.Type) -> ir.Value:
    """lhs @ rhs with numpy broadcasting of the batch dims.

    When both operands have batch dims that are not provably equal, both are broadcast
    explicitly first: torch-mlir's lowerings of `aten.matmul` assume dynamic batch dims equal
    and leave a 3-D product with a dynamic batch undecomposed (then it is an `aten.bmm`)."""
    lhs_sizes, rhs_sizes = b.info(lhs).sizes, b.info(rhs).sizes
    if min(len(lhs_sizes), len(rhs_sizes)) < 3 or (
        len(lhs_sizes) == len(rhs_sizes) and None not in lhs_sizes[:-2] and lhs_sizes[:-2] == rhs_sizes[:-2]
    ):
        return b.op("aten.matmul", result_type, lhs, rhs)
    rank = max(len(lhs_sizes), len(rhs_sizes))
    lhs_offset, rhs_offset = rank - len(lhs_sizes), rank - len(rhs_sizes)
    batch = [
        _broadcast_batch_dim(
            b, lhs, i - lhs_offset if i >= lhs_offset else None, rhs, i - rhs_offset if i >= rhs_offset else None
        )
        for i in range(rank - 2)
    ]

    def broadcast(x):
        info = b.info(x)
        sizes = [size if isinstance(size, int) else None for size in batch] + list(info.sizes[-2:])
        targets = [b.constant_int(size) if isinstance(size, int) else size for size in batch]
        targets += [b.constant_int(-1), b.constant_int(-1)]
        return b.op("aten.broadcast_to", b.tensor_type(sizes, info.element), x, b.list(targets, "!torch.int"))

    product = "aten.bmm" if rank == 3 else "aten.matmul"
    return b.op(product, result_type, broadcast(lhs), broadcast(rhs))


@converts("FusedMatMul", since=1, domain=MICROSOFT)
def fused_matmul(node: OnnxNode, b: TorchBuilder):
    """Y = alpha * op(A) @ op(B) (see the module docstring for op)."""
    lhs = _fused_operand(node, b, 0, node.attr_int("transA", 0), node.attr_int("transBatchA", 0))
    rhs = _fused_operand(node, b, 1, node.attr_int("transB", 0), node.attr_int("transBatchB", 0))
    lhs_rank, rhs_rank = b.info(lhs).rank, b.info(rhs).rank
    alpha = node.attr_float("alpha", 1.0)
    result = node.result_info()
    if result.rank is None:
        node.fail("needs a ranked result")
    if min(lhs_rank, rhs_rank) == 1 and max(lhs_rank, rhs_rank) > 2:
        node.fail(f"a rank-1 operand with a rank-{max(lhs_rank, rhs_rank)} one is not supported")
    product_type = node.result_type()
    product = _batch_matmul(node, b, lhs, rhs, product_type)
    if alpha != 1.0:
        product = b.scalar_op("aten.mul.Scalar", product, alpha)
    return product
