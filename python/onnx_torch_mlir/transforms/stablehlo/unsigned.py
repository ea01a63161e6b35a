"""Unsigned constants in torch-mlir's StableHLO output, in a form its consumers lower.

StableHLO keeps unsigned integer types (`ui8`), and torch-mlir's lowering makes a
`stablehlo.constant` of a uint8 weight (a quantized embedding table feeding a Gather, packed
4-bit weights) with that type. Neither consumer lowers such a constant when it is a resource (the
importer maps every weight of more than one element as one): StableHLO's own lowering to Linalg
(our reference runner) and IREE's both make an `arith.constant` whose value keeps `ui8` while its
result is the signless `i8` ("'arith.constant' op failed to verify that all of {value, result}
have same type"). Literal (`dense<...>`) unsigned constants and every other op on unsigned
tensors lower.

`signless_unsigned_constants` gives each such constant the signless type of the same width,
holding the same bytes (a weight the importer mapped gets a second resource over its buffer, no
copy: `importer.tensors.resource_bytes`), and a
`stablehlo.bitcast_convert` back to the unsigned type for its users.
"""

from torch_mlir import ir

from ...errors import PipelineError
from ...importer.tensors import resource_bytes, resource_over_bytes

CONSTANT = "stablehlo.constant"


def signless_unsigned_constants(module: ir.Module) -> int:
    """Rewrite `module`'s unsigned `stablehlo.constant`s in place; returns how many."""
    constants = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if (operation.name == CONSTANT and _unsigned_element(operation.results[0].type)
                and str(operation.attributes["value"]).startswith("dense_resource<")):
            constants.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    with module.context, ir.Location.unknown():
        for constant in constants:
            _rewrite(constant)
    return len(constants)


def _unsigned_element(type_: ir.Type) -> bool:
    if not isinstance(type_, ir.RankedTensorType):
        return False
    element = type_.element_type
    return isinstance(element, ir.IntegerType) and element.is_unsigned


def _rewrite(constant: ir.Operation) -> None:
    unsigned = constant.results[0].type
    width = unsigned.element_type.width
    signless = ir.RankedTensorType.get(unsigned.shape, ir.IntegerType.get_signless(width), unsigned.encoding)
    value = _retyped(constant.attributes["value"], signless)
    with constant.location, ir.InsertionPoint(constant):
        replacement = ir.Operation.create(CONSTANT, results=[signless], attributes={"value": value})
        bitcast = ir.Operation.create("stablehlo.bitcast_convert", results=[unsigned], operands=[replacement.results[0]])
    constant.results[0].replace_all_uses_with(bitcast.results[0])
    constant.erase()


def _retyped(value: ir.Attribute, signless: ir.RankedTensorType) -> ir.Attribute:
    """The same bytes as a resource of type `signless`, over the buffer the importer mapped (no copy)."""
    data = resource_bytes(value)
    if data is None:
        raise PipelineError(f"stablehlo: a {value.type} weight of unknown origin cannot be made signless "
                            "(neither StableHLO consumer lowers an unsigned resource constant)")
    name = str(value).partition(" : ")[0].removeprefix("dense_resource<").removesuffix(">")
    width = signless.element_type.width
    return resource_over_bytes(data, f"{name}_signless", signless, max(1, width // 8))
