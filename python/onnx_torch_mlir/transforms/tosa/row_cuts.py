"""After torch-mlir's TOSA pipeline: the markers of rows cut to a run-time count (torch/dynamic_rows.py)
become `tensor.extract_slice` ops to the count, outside TOSA (dynamic_rows.py's docstring says why
and what the reference runner, IREE and `tosa-validate` make of them)."""

from torch_mlir import ir

from ..torch.dynamic_rows import MARKER_DOMAIN, MARKER_NAME
from ..torch.rewriting import OpsInFrontOf, ops_named


def cut_marked_rows(module: ir.Module) -> int:
    """After torch-mlir's TOSA pipeline: each marker `tosa.custom` becomes `tensor.extract_slice` to
    the count (module docstring); the count rewritten."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, ("tosa.custom",)):
            if (ir.StringAttr(op.attributes["domain_name"]).value == MARKER_DOMAIN
                    and ir.StringAttr(op.attributes["operator_name"]).value == MARKER_NAME):
                _marker_as_extract_slice(op)
                rewritten += 1
    return rewritten


def _marker_as_extract_slice(op: ir.Operation) -> None:
    padded, count_tensor = op.operands
    padded_type = ir.RankedTensorType(padded.type)
    cut_type = ir.RankedTensorType(op.results[0].type)
    dim = next(axis for axis in range(cut_type.rank) if cut_type.is_dynamic_dim(axis))
    builder = Builder(op)
    i64 = ir.IntegerType.get_signless(64)
    count_element = ir.RankedTensorType(count_tensor.type).element_type
    count = builder.create("tensor.extract", count_element, [count_tensor])
    if count_element != i64:
        count = builder.create("arith.extsi", i64, [count])
    count = builder.clamp(count, padded_type.get_dim_size(dim))
    rows = builder.create("arith.index_cast", ir.IndexType.get(), [count])
    dynamic = ir.ShapedType.get_dynamic_size()
    cut = builder.create("tensor.extract_slice", cut_type, [padded, rows], {
        "static_offsets": ir.DenseI64ArrayAttr.get([0] * cut_type.rank),
        "static_sizes": ir.DenseI64ArrayAttr.get(
            [dynamic if axis == dim else padded_type.get_dim_size(axis) for axis in range(cut_type.rank)]),
        "static_strides": ir.DenseI64ArrayAttr.get([1] * cut_type.rank),
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 1, 0]),
    })
    op.results[0].replace_all_uses_with(cut)
    op.erase()


class Builder(OpsInFrontOf):
    """Ops in front of `op`, at its location, with the index arithmetic of a cut."""

    def constant(self, value: int) -> ir.Value:
        i64 = ir.IntegerType.get_signless(64)
        return self.create("arith.constant", i64, [], {"value": ir.IntegerAttr.get(i64, value)})

    def clamp(self, value: ir.Value, most: int) -> ir.Value:
        """`value` in [0, most]: a count beyond the padded rows would read past them."""
        i64 = ir.IntegerType.get_signless(64)
        value = self.create("arith.maxsi", i64, [value, self.constant(0)])
        return self.create("arith.minsi", i64, [value, self.constant(most)])
