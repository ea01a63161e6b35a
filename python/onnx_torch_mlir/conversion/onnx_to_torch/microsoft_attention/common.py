"""What the com.microsoft attention ops share: dims, head reshapes, the batched products,
position ranges. Dims are ints when static, else `!torch.int` values."""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode

MICROSOFT = "com.microsoft"
NUMPY_FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def lowest(element: str) -> float:
    """The lowest finite value of a float element type (what the kernels mask with)."""
    return float(np.finfo(NUMPY_FLOATS.get(element, np.float32)).min)


def dim_of(b: TorchBuilder, x: ir.Value, index: int):
    """Dim `index` of x: an int when static, else `aten.size.int`."""
    size = b.info(x).sizes[index]
    if size is not None:
        return size
    return b.op("aten.size.int", b.type("!torch.int"), x, b.constant_int(index))


def static(size) -> int | None:
    """A dim's size if known at conversion time, else None (a `?`)."""
    return size if isinstance(size, int) else None


def mul(b: TorchBuilder, lhs, rhs):
    """lhs * rhs of two dims (folded when both are ints)."""
    if isinstance(lhs, int) and isinstance(rhs, int):
        return lhs * rhs
    return b.op("aten.mul.int", b.type("!torch.int"), int_value(b, lhs), int_value(b, rhs))


def sub(b: TorchBuilder, lhs, rhs):
    """lhs - rhs of two dims (folded when both are ints)."""
    if isinstance(lhs, int) and isinstance(rhs, int):
        return lhs - rhs
    return b.op("aten.sub.int", b.type("!torch.int"), int_value(b, lhs), int_value(b, rhs))


def int_value(b: TorchBuilder, size) -> ir.Value:
    """A dim as a `!torch.int` value."""
    return size if isinstance(size, ir.Value) else b.constant_int(size)


# -- tensor compositions ------------------------------------------------------------------------


def transpose(b: TorchBuilder, x: ir.Value, first: int, second: int) -> ir.Value:
    info = b.info(x)
    sizes = list(info.sizes)
    sizes[first], sizes[second] = sizes[second], sizes[first]
    return b.op(
        "aten.transpose.int", b.tensor_type(sizes, info.element), x, b.constant_int(first), b.constant_int(second)
    )


def slice_range(b: TorchBuilder, x: ir.Value, dim: int, start: int, end: int) -> ir.Value:
    """x[start:end] along `dim` (static bounds)."""
    info = b.info(x)
    sizes = list(info.sizes)
    sizes[dim] = end - start
    return b.op(
        "aten.slice.Tensor", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(start),
        b.constant_int(end), b.constant_int(1),
    )


def select(b: TorchBuilder, x: ir.Value, dim: int, index: int) -> ir.Value:
    info = b.info(x)
    sizes = [s for i, s in enumerate(info.sizes) if i != dim]
    return b.op("aten.select.int", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(index))


def concat(b: TorchBuilder, values: list[ir.Value], dim: int) -> ir.Value:
    infos = [b.info(v) for v in values]
    sizes = list(infos[0].sizes)
    parts = [info.sizes[dim] for info in infos]
    sizes[dim] = None if None in parts else sum(parts)
    return b.op("aten.cat", b.tensor_type(sizes, infos[0].element), b.tensor_list(values), b.constant_int(dim))


def split_heads(b: TorchBuilder, x: ir.Value, heads: int, head_size: int) -> ir.Value:
    """[batch, seq, heads * head] -> [batch, heads, seq, head]."""
    info = b.info(x)
    split = b.reshape(x, [dim_of(b, x, 0), dim_of(b, x, 1), heads, head_size], [*info.sizes[:2], heads, head_size])
    return transpose(b, split, 1, 2)


def merge_heads(b: TorchBuilder, x: ir.Value) -> ir.Value:
    """[batch, heads, seq, head] -> [batch, seq, heads * head]."""
    info = b.info(x)
    heads, head_size = info.sizes[1], info.sizes[3]
    x = transpose(b, x, 1, 2)
    result_sizes = [info.sizes[0], info.sizes[2], heads * head_size]
    return b.reshape(x, [dim_of(b, x, 0), dim_of(b, x, 1), heads * head_size], result_sizes)


def batched_product(b: TorchBuilder, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    """[b, h, m, k] @ [b, h, k, n] as one `aten.bmm` over b * h."""
    left, right = b.info(lhs), b.info(rhs)
    batch, heads = dim_of(b, lhs, 0), left.sizes[1]
    rows, inner, columns = dim_of(b, lhs, 2), dim_of(b, lhs, 3), dim_of(b, rhs, 3)
    flat = mul(b, batch, heads)
    lhs3 = b.reshape(lhs, [flat, rows, inner], [static(flat), left.sizes[2], left.sizes[3]])
    rhs3 = b.reshape(rhs, [flat, inner, columns], [static(flat), left.sizes[3], right.sizes[3]])
    product = b.op("aten.bmm", b.tensor_type([static(flat), left.sizes[2], right.sizes[3]], left.element), lhs3, rhs3)
    return b.reshape(product, [batch, heads, rows, columns], [left.sizes[0], heads, left.sizes[2], right.sizes[3]])


def positions(b: TorchBuilder, length) -> ir.Value:
    """[0, length) as si64: a literal when static."""
    if isinstance(length, int):
        return b.literal(np.arange(length, dtype=np.int64), "si64")
    none = b.constant_none()
    return b.op("aten.arange", b.tensor_type([None], "si64"), length, b.dtype("si64"), none, none, none)


def compare(b: TorchBuilder, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    return b.op(op, b.broadcast_type(lhs, rhs, "i1"), lhs, rhs)


def broadcast_sizes(left, right):
    rank = max(len(left), len(right))
    left, right = (1,) * (rank - len(left)) + tuple(left), (1,) * (rank - len(right)) + tuple(right)
    return [r if l == 1 else l if r == 1 or l == r else (l if r is None else r) for l, r in zip(left, right)]


def attention_scale(node: OnnxNode, head_size: int) -> float:
    scale = node.attr_float("scale", 0.0)
    return scale if scale != 0.0 else 1.0 / math.sqrt(head_size)


def head_count(node: OnnxNode) -> int:
    heads = node.attr_int("num_heads", 0)
    if heads <= 0:
        node.fail("attribute 'num_heads' must be a positive number")
    return heads


def divide(node: OnnxNode, width: int | None, heads: int, what: str) -> int:
    if width is None:
        node.fail(f"{what} must be static")
    if width % heads:
        node.fail(f"{what} {width} is not a multiple of num_heads {heads}")
    return width // heads
