"""Small helpers for rewriting torch ops with MLIR's Python bindings (transforms/tosa_*.py)."""

from torch_mlir import ir

from ...ir_walk import ops_named  # noqa: F401 - the transforms import it from here

INT = "!torch.int"
# torch's ScalarType codes of the element types a rewrite converts to (`aten.to.dtype`).
DTYPE_CODES = {"ui8": 0, "si8": 1, "si16": 2, "si32": 3, "si64": 4, "f16": 5, "f32": 6, "f64": 7, "i1": 11, "bf16": 15}


class OpsInFrontOf:
    """Ops of any dialect in front of `op`, at its location: what the rewrites' builders share."""

    def __init__(self, op: ir.Operation):
        self.ip, self.location = ir.InsertionPoint(op), op.location

    def create(self, name: str, result: ir.Type, operands: list, attributes=None) -> ir.Value:
        return ir.Operation.create(name, results=[result], operands=operands, attributes=attributes or {},
                                   loc=self.location, ip=self.ip).results[0]


class TorchOpBuilder(OpsInFrontOf):
    """Torch ops in front of `op`, at its location."""

    def op(self, name: str, result: str, operands: list) -> ir.Value:
        return ir.Operation.create(name, results=[ir.Type.parse(result)], operands=operands,
                                   loc=self.location, ip=self.ip).results[0]

    def _constant(self, name: str, result: str, attribute=None) -> ir.Value:
        attributes = {"value": attribute} if attribute is not None else {}
        return ir.Operation.create(name, results=[ir.Type.parse(result)], attributes=attributes,
                                   loc=self.location, ip=self.ip).results[0]

    def int(self, value: int) -> ir.Value:
        return self._constant("torch.constant.int", INT, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value))

    def float(self, value: float) -> ir.Value:
        return self._constant("torch.constant.float", "!torch.float", ir.FloatAttr.get(ir.F64Type.get(), value))

    def bool(self, value: bool) -> ir.Value:
        return self._constant("torch.constant.bool", "!torch.bool", ir.BoolAttr.get(value))

    def none(self) -> ir.Value:
        return self._constant("torch.constant.none", "!torch.none")

    def scalar_tensor(self, value: float, element: str) -> ir.Value:
        """A rank-0 `torch.vtensor.literal` of `element` type."""
        if element.startswith(("si", "ui")):
            element_type = ir.IntegerType.get_signless(int(element[2:]))
            value_attribute = ir.IntegerAttr.get(element_type, int(value))
        elif element.startswith("i"):
            element_type = ir.IntegerType.get_signless(int(element[1:]))
            value_attribute = ir.IntegerAttr.get(element_type, int(value))
        else:
            element_type = ir.Type.parse(element)
            value_attribute = ir.FloatAttr.get(element_type, value)
        attribute = ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], element_type), value_attribute)
        return self._constant("torch.vtensor.literal", f"!torch.vtensor<[],{element}>", attribute)

    def true_literal(self, sizes: list) -> ir.Value:
        """A `torch.vtensor.literal` of `sizes` (static), all true."""
        shape = "x".join(map(str, sizes))
        attribute = ir.Attribute.parse(f"dense<true> : tensor<{shape + 'x' if shape else ''}i1>")
        return self._constant("torch.vtensor.literal", vtensor_spelling(sizes, "i1"), attribute)

    def list(self, elements: list) -> ir.Value:
        return self.op("torch.prim.ListConstruct", "!torch.list<int>", elements)

    def int_list(self, values: list) -> ir.Value:
        return self.list([self.int(value) for value in values])


def vtensor_spelling(sizes: list, element: str) -> str:
    return f"!torch.vtensor<[{','.join('?' if size is None else str(size) for size in sizes)}],{element}>"


def vtensor_sizes(torch_type: ir.Type):
    """([sizes], element) of a `!torch.vtensor<[...],elem>`, else (None, None)."""
    text = str(torch_type)
    if not text.startswith("!torch.vtensor<[") or "]," not in text:
        return None, None
    dims, element = text[len("!torch.vtensor<["):-1].split("],", 1)
    return ([None if dim == "?" else int(dim) for dim in dims.split(",")] if dims else []), element


def as_operation(owner):
    """The `ir.Operation` of an op view (or of an operation)."""
    return owner.operation if hasattr(owner, "operation") else owner


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The operation that produces `value`, or None for a block argument."""
    owner = as_operation(value.owner)
    return owner if isinstance(owner, ir.Operation) else None


def is_op(candidate, name: str) -> bool:
    return isinstance(candidate, ir.Operation) and candidate.name == name


def constant_int(value: ir.Value):
    """The value of a `torch.constant.int`, else None."""
    constant = defining_op(value)
    return ir.IntegerAttr(constant.attributes["value"]).value if is_op(constant, "torch.constant.int") else None


def int_list(value: ir.Value):
    """The ints of a `prim.ListConstruct` of constants, else None."""
    construct = defining_op(value)
    if not is_op(construct, "torch.prim.ListConstruct"):
        return None
    values = [constant_int(element) for element in construct.operands]
    return None if None in values else values


def product(values) -> int:
    result = 1
    for value in values:
        result *= value
    return result
