"""int64 additions and subtractions on TOSA kept in int64.

torch-mlir's TOSA lowering of `aten.add`/`aten.sub` on si64 casts both operands to i32, adds or
subtracts there and casts the result back: every sum or difference beyond 2^31 was wrong (an
int64 Add, Sub, Neg or Mod of large ids gave the low 32 bits, sign-extended). TOSA's EXT-INT64,
which our output claims, has i64 `add` and `sub`.

The three ops of one lowering carry the aten op's location, so an i32 `tosa.add`/`tosa.sub` whose
result is cast back to i64 at its own location (or feeds another one rebuilt), and whose operands are
casts from i64 at the location of such a lowering (or casts of i64 constants, i32 scalar constants,
or results already rebuilt) is rebuilt on the i64 values. A model's own narrowing (an ONNX Cast to
int32, an Add, a Cast back) has its casts at the Cast nodes' locations and is left as it is.
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named

_ADD_SUB = {"tosa.add", "tosa.sub"}


def int64_add_sub_in_int64(module: ir.Module) -> int:
    """Rebuild each narrowed int64 add/sub of the module docstring on i64; the count rebuilt."""
    wide: dict[ir.Value, ir.Value] = {}  # an i32 result -> its i64 rebuild
    narrowed = []
    with module.context:
        candidates = [operation for operation in ops_named(module, _ADD_SUB) if _element(operation.results[0]) == "i32"]
        lowerings = {str(operation.location) for operation in candidates}
        for operation in candidates:
            returns_to_i64 = _casts_back(operation) or any(use.owner.name in _ADD_SUB for use in operation.results[0].uses)
            sources = [_wide_source(value, operation, wide, lowerings) for value in operation.operands] if returns_to_i64 else [None]
            if any(source is None for source in sources):
                continue
            wide[operation.results[0]] = _rebuild(operation, sources)
            narrowed.append(operation)
        for operation in narrowed:
            for cast in _casts_back(operation):
                cast.results[0].replace_all_uses_with(wide[operation.results[0]])
                cast.erase()
        rebuilt = [wide[operation.results[0]].owner.operation for operation in narrowed]
        for operation in reversed(narrowed):
            _erase_if_unused(operation)
        for operation in reversed(rebuilt):  # rebuilt for an add/sub that was not rebuilt after all
            _erase_if_unused(operation)
    return len(narrowed)


def _element(value: ir.Value) -> str:
    return str(ir.ShapedType(value.type).element_type)


def _with_element(type_: ir.Type, element: str) -> ir.Type:
    shaped = ir.RankedTensorType(type_)
    return ir.RankedTensorType.get(shaped.shape, ir.Type.parse(element))


def _wide_source(value: ir.Value, operation: ir.Operation, wide: dict, lowerings: set) -> ir.Value | None:
    """The i64 value `value` narrows for `operation`, or None when it is not a narrowing of one.

    A cast from i64 counts when it is at the location of an add/sub lowering (canonicalization
    shares one cast of a value among the lowerings that read it) or casts a constant."""
    if value in wide:
        return wide[value]
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    owner = owner.operation
    if owner.name == "tosa.cast" and _element(owner.operands[0]) == "i64" and (
            str(owner.location) in lowerings or _is_constant(owner.operands[0])):
        return owner.operands[0]
    if owner.name == "tosa.const":
        values = owner.attributes["values"]
        if isinstance(values, ir.DenseIntElementsAttr) and values.is_splat:
            with operation.location:
                wide_type = _with_element(value.type, "i64")
                splat = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(values.get_splat_value().value))
                return ir.Operation.create(
                    "tosa.const", results=[wide_type], attributes={"values": ir.DenseElementsAttr.get_splat(wide_type, splat)},
                    ip=ir.InsertionPoint(operation),
                ).results[0]
    return None


def _is_constant(value: ir.Value) -> bool:
    """A `tosa.const` (canonicalization gives the cast of a constant operand the constant's location)."""
    return isinstance(value.owner, ir.OpView) and value.owner.operation.name == "tosa.const"


def _casts_back(operation: ir.Operation) -> list[ir.Operation]:
    """The users of `operation`'s result that cast it back to i64 at its location."""
    return [use.owner for use in operation.results[0].uses
            if use.owner.name == "tosa.cast" and use.owner.location == operation.location
            and _element(use.owner.results[0]) == "i64"]


def _rebuild(operation: ir.Operation, sources: list[ir.Value]) -> ir.Value:
    with operation.location:
        return ir.Operation.create(
            operation.name, results=[_with_element(operation.results[0].type, "i64")], operands=sources,
            ip=ir.InsertionPoint(operation),
        ).results[0]


def _erase_if_unused(operation: ir.Operation) -> None:
    """Erase `operation` when nothing uses it, then the operand casts and constants left unused."""
    if any(True for _ in operation.results[0].uses):
        return
    operands = list(dict.fromkeys(operation.operands))  # once each: `x - x` reads one cast twice
    feeders = [value.owner.operation for value in operands if isinstance(value.owner, ir.OpView)]
    operation.erase()
    for feeder in feeders:
        if feeder.name in ("tosa.cast", "tosa.const") and not any(True for _ in feeder.results[0].uses):
            feeder.erase()
