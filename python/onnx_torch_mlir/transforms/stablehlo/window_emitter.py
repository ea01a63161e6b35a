"""The ops the StableHLO window rewrites emit (stablehlo_dynamic_convolution.py, stablehlo_dynamic_blocks.py)
and the attributes they read from a `stablehlo.convolution` or `stablehlo.reduce_window`.

Sizes that may be dynamic travel as (static size or DYNAMIC, index value) pairs: `tensor.dim` and
`arith` on index values compute them, and `tensor.extract_slice` / `tensor.expand_shape` take them,
forms both StableHLO consumers lower on dynamic shapes.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir
from torch_mlir._mlir_libs import _stablehlo

DYNAMIC = ir.ShapedType.get_dynamic_size()


def integers(op: ir.Operation, name: str, count: int, default: int) -> list[int]:
    """The i64 array attribute `name` of `op`, or `count` times `default` when absent."""
    if name not in op.attributes:
        return [default] * count
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def integer(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value if name in op.attributes else 1


def edge_padding(op: ir.Operation, count: int) -> list[tuple[int, int]]:
    """The (low, high) edge padding of every window dim."""
    if "padding" not in op.attributes:
        return [(0, 0)] * count
    pairs = np.array(ir.DenseIntElementsAttr(op.attributes["padding"]), np.int64).reshape(count, 2)
    return [(int(low), int(high)) for low, high in pairs]


class Emitter:
    """Creates ops before the op being rewritten."""

    def __init__(self, op: ir.Operation):
        self.ip = ir.InsertionPoint(op)
        self.loc = op.location
        self.index = ir.IndexType.get()
        self.i64 = ir.IntegerType.get_signless(64)

    def create(self, name: str, result_type: ir.Type, operands: list, **attributes) -> ir.Value:
        return ir.Operation.create(name, results=[result_type], operands=operands, attributes=attributes,
                                   loc=self.loc, ip=self.ip).results[0]

    def index_constant(self, value: int) -> ir.Value:
        return self.create("arith.constant", self.index, [], value=ir.IntegerAttr.get(self.index, value))

    def size(self, value: ir.Value, dim: int) -> ir.Value:
        """The size of `value` in `dim` as an index value (a constant when static)."""
        if not value.type.is_dynamic_dim(dim):
            return self.index_constant(value.type.get_dim_size(dim))
        return self.create("tensor.dim", self.index, [value, self.index_constant(dim)])

    def sizes(self, value: ir.Value) -> list[tuple[int, ir.Value]]:
        """(static size or DYNAMIC, index value) of every dim of `value`."""
        return [(value.type.shape[d], self.size(value, d)) for d in range(value.type.rank)]

    def arith(self, name: str, lhs: ir.Value, rhs: int) -> ir.Value:
        return self.create(f"arith.{name}", self.index, [lhs, self.index_constant(rhs)])

    def transpose(self, value: ir.Value, permutation: list[int]) -> ir.Value:
        if permutation == list(range(len(permutation))):
            return value
        shape = [value.type.shape[d] for d in permutation]
        return self.create("stablehlo.transpose", ir.RankedTensorType.get(shape, value.type.element_type), [value],
                           permutation=ir.DenseI64ArrayAttr.get(permutation))

    def reshape(self, value: ir.Value, shape: list[int]) -> ir.Value:
        """A static reshape (of the kernel)."""
        return self.create("stablehlo.reshape", ir.RankedTensorType.get(shape, value.type.element_type), [value])

    def collapse(self, value: ir.Value, reassociation: list[list[int]], shape: list[int]) -> ir.Value:
        return self.create("tensor.collapse_shape", ir.RankedTensorType.get(shape, value.type.element_type), [value],
                           reassociation=ir.Attribute.parse(str(reassociation)))

    def expand(self, value: ir.Value, reassociation: list[list[int]], shape: list[int],
               sizes: list[ir.Value]) -> ir.Value:
        """`tensor.expand_shape` to `shape`; `sizes` has the index value of every dim."""
        dynamic = [size for dim, size in zip(shape, sizes) if dim == DYNAMIC]
        return self.create("tensor.expand_shape", ir.RankedTensorType.get(shape, value.type.element_type),
                           [value, *dynamic], reassociation=ir.Attribute.parse(str(reassociation)),
                           static_output_shape=ir.DenseI64ArrayAttr.get(shape))

    def split_channels(self, value: ir.Value, groups: int) -> ir.Value:
        """Channels last split into groups: `[N, P..., C]` -> `[N, P..., G, C/G]`."""
        count = value.type.rank - 2
        channels = value.type.get_dim_size(count + 1)
        reassociation = [[d] for d in range(count + 1)] + [[count + 1, count + 2]]
        shape = list(value.type.shape[:-1]) + [groups, channels // groups]
        sizes = [self.size(value, d) for d in range(count + 1)]
        return self.expand(value, reassociation, shape,
                           sizes + [self.index_constant(groups), self.index_constant(channels // groups)])

    def window(self, value: ir.Value, offsets: list[int], sizes: list[tuple[int, ir.Value]],
               strides: list[int]) -> ir.Value:
        """`tensor.extract_slice` at static offsets and strides; `sizes` are (static or DYNAMIC, index
        value) pairs. Every window of an op shares the same size values: IREE passes each distinct
        one to a dispatch as a constant, at most 64 (ConvNeXt's 7x7 windows as `real_dynamic_slice`s
        had 68)."""
        dynamic = [size for static, size in sizes if static == DYNAMIC]
        shape = [static for static, _ in sizes]
        return self.create("tensor.extract_slice", ir.RankedTensorType.get(shape, value.type.element_type),
                           [value, *dynamic], static_offsets=ir.DenseI64ArrayAttr.get(offsets),
                           static_sizes=ir.DenseI64ArrayAttr.get(shape),
                           static_strides=ir.DenseI64ArrayAttr.get(strides),
                           operandSegmentSizes=ir.DenseI32ArrayAttr.get([1, 0, len(dynamic), 0]))

    def dot(self, lhs: ir.Value, rhs: ir.Value, shape: list[int], batched: bool) -> ir.Value:
        """`lhs [(B,) M, K] x rhs [(B,) K, N]`, batched over the leading dim when `batched`."""
        batch = [0] if batched else []
        numbers = _stablehlo.DotDimensionNumbers.get(
            lhs_batching_dimensions=batch, rhs_batching_dimensions=batch,
            lhs_contracting_dimensions=[lhs.type.rank - 1], rhs_contracting_dimensions=[rhs.type.rank - 2])
        return self.create("stablehlo.dot_general", ir.RankedTensorType.get(shape, lhs.type.element_type),
                           [lhs, rhs], dot_dimension_numbers=numbers)

    def scalar(self, element_type: ir.Type, value: float) -> ir.Value:
        """A rank-0 `stablehlo.constant` of `value`."""
        scalar = ir.RankedTensorType.get([], element_type)
        if isinstance(element_type, ir.IntegerType):
            attribute = ir.IntegerAttr.get(element_type, int(value))
        else:
            attribute = ir.FloatAttr.get(element_type, float(value))
        return self.create("stablehlo.constant", scalar, [], value=ir.DenseElementsAttr.get_splat(scalar, attribute))

    def zero(self, element_type: ir.Type) -> ir.Value:
        return self.scalar(element_type, 0)

    def reduce(self, value: ir.Value, init: ir.Value, combiner: str, dims: list[int]) -> ir.Value:
        """`stablehlo.reduce` of `value` over `dims`, starting from `init` (a rank-0 tensor), with the
        body one `combiner` op (`stablehlo.add`, `maximum`, ...)."""
        shape = [size for d, size in enumerate(value.type.shape) if d not in dims]
        element = value.type.element_type
        op = ir.Operation.create("stablehlo.reduce", results=[ir.RankedTensorType.get(shape, element)],
                                 operands=[value, init], attributes={"dimensions": ir.DenseI64ArrayAttr.get(dims)},
                                 regions=1, loc=self.loc, ip=self.ip)
        scalar = ir.RankedTensorType.get([], element)
        block = op.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            combined = ir.Operation.create(combiner, results=[scalar], operands=list(block.arguments), loc=self.loc)
            ir.Operation.create("stablehlo.return", operands=[combined.results[0]], loc=self.loc)
        return op.results[0]
