"""TOSA arithmetic and comparisons on i8, i16 and i1 done on i32, where no TOSA profile takes the
narrow type.

TOSA's pro_int profile does integer arithmetic (add, sub, mul, maximum, minimum, abs, intdiv) and
comparisons (equal, greater, greater_equal) on i32 only (i8 and i16 go through `tosa.rescale` in
quantized graphs), and `equal` takes no i1. torch-mlir's TOSA lowering emits them on the tensor's
own type for ONNX's int8/int16 arithmetic and comparisons, Mod's sign tests and BitShift's masks,
and `tosa-validate` (and IREE) refuse those ops.

Each such op is rebuilt on operands sign-extended to i32 (`tosa.cast`, exact), and an arithmetic
result is cast back to the narrow type (`tosa.cast` to a narrower integer keeps the low bits). The
answers are the same: comparisons and min/max of sign-extended values are those of the values;
the low 8 or 16 bits of an i32 sum, difference or product are the wrapped narrow result (no i32
overflow: |a*b| <= 2^30 for i16); abs and division of the narrow minimum by -1 wrap back to it.

A `tosa.cast` between i8/i16 and i64 (EXT-INT64 casts i64 only from and to i1 and i32) goes through
i32: sign extension twice is sign extension, and keeping the low 32 then the low 8 or 16 bits keeps
the low 8 or 16.
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named

_ARITHMETIC = {"tosa.add", "tosa.sub", "tosa.mul", "tosa.maximum", "tosa.minimum", "tosa.abs", "tosa.intdiv"}
_COMPARISONS = {"tosa.equal", "tosa.greater", "tosa.greater_equal"}
_NARROW = {"i8", "i16"}


def widen_narrow_integer_ops(module: ir.Module) -> int:
    """Rebuild on i32 every op of the module docstring that has narrow operands; the count rebuilt."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, _ARITHMETIC | _COMPARISONS | {"tosa.cast"}):
            if operation.name == "tosa.cast":
                rewritten += _cast_through_i32(operation)
            elif _needs_widening(operation):
                with operation.location:
                    _widen(operation)
                rewritten += 1
    return rewritten


def _cast_through_i32(cast: ir.Operation) -> int:
    pair = {_element(cast.operands[0]), _element(cast.results[0])}
    if "i64" not in pair or not pair & _NARROW:
        return 0
    with cast.location:
        middle = ir.Operation.create("tosa.cast", results=[_with_element(cast.operands[0].type, "i32")],
                                     operands=[cast.operands[0]], ip=ir.InsertionPoint(cast)).results[0]
    cast.operands[0] = middle
    return 1


def _element(value: ir.Value) -> str:
    return str(ir.ShapedType(value.type).element_type)


def _data_operands(operation: ir.Operation) -> list:
    """The operands that carry the data (not `tosa.mul`'s shift)."""
    operands = list(operation.operands)
    return operands[:2] if operation.name == "tosa.mul" else operands


def _needs_widening(operation: ir.Operation) -> bool:
    element = _element(operation.operands[0])
    if operation.name == "tosa.equal":
        return element in _NARROW | {"i1"}
    return element in _NARROW


def _with_element(type_: ir.Type, element: str) -> ir.Type:
    shaped = ir.RankedTensorType(type_)
    return ir.RankedTensorType.get(shaped.shape, ir.Type.parse(element))


def _widen(operation: ir.Operation) -> None:
    ip = ir.InsertionPoint(operation)

    def cast(value: ir.Value, element: str) -> ir.Value:
        return ir.Operation.create("tosa.cast", results=[_with_element(value.type, element)], operands=[value],
                                   ip=ip).results[0]

    data = _data_operands(operation)
    operands = [cast(value, "i32") for value in data] + list(operation.operands)[len(data):]
    result = operation.results[0]
    comparison = operation.name in _COMPARISONS
    result_type = result.type if comparison else _with_element(result.type, "i32")
    attributes = {name: operation.attributes[name] for name in operation.attributes}
    wide = ir.Operation.create(operation.name, results=[result_type], operands=operands, attributes=attributes,
                               ip=ip).results[0]
    result.replace_all_uses_with(wide if comparison else cast(wide, _element(result)))
    operation.erase()
