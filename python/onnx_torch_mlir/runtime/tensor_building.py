"""Building tensor-dialect values at an insertion point: the small vocabulary the runner's own
lowerings of StableHLO ops into loops share (stablehlo_scatter.py, stablehlo_sort.py)."""

from __future__ import annotations

from torch_mlir import ir


def create(name: str, operands: list, result_type: ir.Type, ip, **attributes) -> ir.Value:
    """One result of a new `name` op at `ip`."""
    return ir.Operation.create(name, results=[result_type], operands=operands, attributes=attributes, ip=ip).results[0]


def index_constant(value: int, ip) -> ir.Value:
    index = ir.IndexType.get()
    return create("arith.constant", [], index, ip, value=ir.IntegerAttr.get(index, value))


def dim_size(tensor: ir.Value, dim: int, ip) -> ir.Value:
    """Dim `dim` of `tensor` as an index: a constant when static, else `tensor.dim`."""
    if not tensor.type.is_dynamic_dim(dim):
        return index_constant(tensor.type.get_dim_size(dim), ip)
    return create("tensor.dim", [tensor, index_constant(dim, ip)], ir.IndexType.get(), ip)
