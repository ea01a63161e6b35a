"""Builtin-tensor values that the rewrites after torch-mlir's pipelines build (Linalg, StableHLO), at
the current insertion point and location."""

from __future__ import annotations

from torch_mlir import ir


def dynamic_sizes(of: ir.Value, sizes: list[int]) -> list[ir.Value]:
    """`tensor.dim` of `of` at each dim whose entry in `sizes` is dynamic: the size operands of a
    `tensor.extract_slice` or `tensor.expand_shape` whose dynamic dims are those of `of`."""
    index = ir.IndexType.get()
    found = []
    for dim, size in enumerate(sizes):
        if ir.ShapedType.is_dynamic_size(size):
            position = ir.Operation.create("arith.constant", results=[index],
                                           attributes={"value": ir.IntegerAttr.get(index, dim)}).result
            found.append(ir.Operation.create("tensor.dim", results=[index], operands=[of, position]).result)
    return found
