"""Boolean masks multiplied into floats as `stablehlo.select(mask, 1, 0)` instead of a convert.

ONNX models mask with `Cast(bool -> float)` and `Mul` (tf2onnx writes TF's `SelectV2` that way:
`mask * new + not(mask) * old`), which torch-mlir lowers to `stablehlo.convert` (i1 to float),
maybe broadcast, and `stablehlo.multiply`. IREE 3.13's StableHLO preprocessing (`MulCastOfBool`)
rewrites such a product as a select on `convert(convert(mask) -> i1)`; when its other patterns have
moved the float convert above a `stablehlo.reshape` of the mask (a mask row read in a loop body),
the convert back to i1 is left after that reshape, and IREE's input conversion fails on it
("failed to legalize unresolved source materialization from ('tensor<3x1xf32>') to
('tensor<3x1xi1>')"; wild model tf2onnx-keras-lstm-gru with dims fixed; the smallest reproducer is
in `test/python/test_stablehlo_boolean_masks.py`).

Here each such convert, whose value reaches a `stablehlo.multiply` only through broadcasts and
converts (what IREE's pattern looks through), becomes `select(mask, 1, 0)`: the same numbers (a
cast of a boolean is exactly 1 or 0, and the product keeps ONNX's NaN * 0 = NaN), and no convert
for IREE's pattern to start from. On a dynamic shape the two constants are broadcast to the mask's
dims (`tensor.dim`, as torch-mlir's own broadcasts). Delete when IREE legalizes a convert to i1
after a reshape (check with that test).
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named

_LOOKED_THROUGH = ("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim", "stablehlo.convert")


def boolean_masks_as_selects(module: ir.Module) -> int:
    """Rewrite each boolean convert that feeds a multiply (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for convert in ops_named(module, {"stablehlo.convert"}):
            if _is_mask(convert) and _reaches_multiply(convert.results[0]):
                _as_select(convert)
                rewritten += 1
    return rewritten


def _is_mask(convert: ir.Operation) -> bool:
    source, result = convert.operands[0].type, convert.results[0].type
    if not (isinstance(source, ir.RankedTensorType) and isinstance(result, ir.RankedTensorType)):
        return False
    element = source.element_type
    return (isinstance(element, ir.IntegerType) and element.width == 1
            and isinstance(result.element_type, ir.FloatType))


def _reaches_multiply(value: ir.Value) -> bool:
    for use in value.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if user.name == "stablehlo.multiply":
            return True
        if user.name in _LOOKED_THROUGH and use.operand_number == 0 and _reaches_multiply(user.results[0]):
            return True
    return False


def _as_select(convert: ir.Operation) -> None:
    mask, result_type = convert.operands[0], convert.results[0].type
    ip, location = ir.InsertionPoint(convert), convert.location
    shape = None if result_type.has_static_shape else _dims_of(mask, ip, location)
    one, zero = (_filled(number, shape, result_type, ip, location) for number in (1.0, 0.0))
    select = ir.Operation.create("stablehlo.select", results=[result_type], operands=[mask, one, zero],
                                 ip=ip, loc=location)
    convert.results[0].replace_all_uses_with(select.results[0])
    convert.erase()


def _filled(number: float, shape, result_type: ir.RankedTensorType, ip, location) -> ir.Value:
    """A tensor of `result_type` holding `number`: a splat constant, or a scalar constant broadcast
    to `shape` (a tensor of index dims) when the type has a dynamic dim."""
    element = result_type.element_type
    constant_type = result_type if shape is None else ir.RankedTensorType.get([], element)
    constant = ir.Operation.create(
        "stablehlo.constant", results=[constant_type],
        attributes={"value": ir.DenseElementsAttr.get_splat(constant_type, ir.FloatAttr.get(element, number))},
        ip=ip, loc=location).results[0]
    if shape is None:
        return constant
    return ir.Operation.create(
        "stablehlo.dynamic_broadcast_in_dim", results=[result_type], operands=[constant, shape],
        attributes={"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])}, ip=ip, loc=location).results[0]


def _dims_of(value: ir.Value, ip, location) -> ir.Value:
    """`value`'s dims as a tensor of index (`tensor.dim` for a dynamic one)."""
    index = ir.IndexType.get()

    def constant(number: int) -> ir.Value:
        return ir.Operation.create("arith.constant", results=[index], attributes={"value": ir.IntegerAttr.get(index, number)},
                                   ip=ip, loc=location).results[0]

    sizes = [
        ir.Operation.create("tensor.dim", results=[index], operands=[value, constant(dim)], ip=ip,
                            loc=location).results[0] if ir.ShapedType.is_dynamic_size(size) else constant(size)
        for dim, size in enumerate(value.type.shape)
    ]
    return ir.Operation.create("tensor.from_elements", results=[ir.RankedTensorType.get([len(sizes)], index)],
                               operands=sizes, ip=ip, loc=location).results[0]
