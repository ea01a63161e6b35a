"""Rewriting the entry function into a form the ExecutionEngine can call.

The entry function `@f(args) -> (r0, r1, ...)` becomes

    func.func @otm_entry(args {bufferization.writable = false}) attributes {llvm.emit_c_interface} {
      ...
      %u0 = tensor.cast %r0 : tensor<...xT0> to tensor<*xT0>
      call @otm_consume_result_0(%u0) : (tensor<*xT0>) -> ()
      ...
      return
    }
    func.func private @otm_consume_result_0(tensor<*xT0> {bufferization.access = "read"})
        attributes {llvm.emit_c_interface}

Each consumer is implemented in Python and copies its memref out, so result
shapes need not be known before the call, aliasing results and constants need
no special care, and the buffer deallocation passes free every buffer the
function allocated once its consumer has returned.  Arguments are marked
not writable so bufferization never writes into the caller's arrays.  The entry
is renamed to `@otm_entry`: its own name may be a C library function's that a
lowering declares (a graph named "erf" computing a double Erf would otherwise
define the `erf` that `convert-math-to-libm` calls).
"""

from dataclasses import dataclass

from torch_mlir import ir
from torch_mlir.dialects import func, tensor

from onnx_torch_mlir.errors import RunnerError

RESULT_CONSUMER_PREFIX = "otm_consume_result_"
ENTRY_SYMBOL = "otm_entry"


@dataclass(frozen=True)
class Signature:
    """The entry function's name and the MLIR spelling of its argument and result types."""

    entry: str
    input_types: tuple[str, ...]
    result_types: tuple[str, ...]


def find_entry(module: ir.Module, entry: str | None) -> func.FuncOp:
    """The function named `entry`, or else the module's single public function with a body."""
    functions = [op for op in module.body.operations if isinstance(op, func.FuncOp)]
    if entry is not None:
        for function in functions:
            if function.sym_name.value == entry:
                return function
        raise RunnerError(f"the module has no function @{entry}")
    public = [f for f in functions if _is_public(f) and not f.is_external]
    if len(public) != 1:
        names = ", ".join("@" + f.sym_name.value for f in public) or "none"
        raise RunnerError(
            f"cannot pick the entry function: expected one public function with a body, found {names}"
        )
    return public[0]


def signature_of(function: func.FuncOp) -> Signature:
    function_type = function.type
    return Signature(
        entry=function.sym_name.value,
        input_types=tuple(str(t) for t in function_type.inputs),
        result_types=tuple(str(t) for t in function_type.results),
    )


def make_callable_from_python(module: ir.Module, function: func.FuncOp) -> None:
    """Rewrite `function` (in `module`) as the module docstring shows; it is then `@ENTRY_SYMBOL`."""
    result_element_types = [t.element_type for t in function.type.results]
    with ir.Location.unknown():
        _rename_entry(module, function)
        _return_through_consumers(function)
        _protect_arguments(function)
        function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        _declare_consumers(module, result_element_types)


def _rename_entry(module: ir.Module, function: func.FuncOp) -> None:
    name = function.sym_name.value
    if name == ENTRY_SYMBOL:
        return
    if ENTRY_SYMBOL in ir.SymbolTable(module.operation):
        raise RunnerError(f"the module already has a function @{ENTRY_SYMBOL}, a name the runner reserves")
    ir.SymbolTable.replace_all_symbol_uses(name, ENTRY_SYMBOL, module.operation)
    function.attributes["sym_name"] = ir.StringAttr.get(ENTRY_SYMBOL)


def _is_public(function: func.FuncOp) -> bool:
    visibility = function.attributes["sym_visibility"] if "sym_visibility" in function.attributes else None
    return visibility is None or ir.StringAttr(visibility).value == "public"


def _return_through_consumers(function: func.FuncOp) -> None:
    returns = [
        op
        for block in function.body.blocks
        for op in block.operations
        if isinstance(op, func.ReturnOp)
    ]
    for return_op in returns:
        with ir.InsertionPoint(return_op):
            for index, value in enumerate(return_op.operands):
                unranked = tensor.CastOp(ir.UnrankedTensorType.get(value.type.element_type), value)
                func.CallOp([], ir.FlatSymbolRefAttr.get(RESULT_CONSUMER_PREFIX + str(index)), [unranked.result])
            func.ReturnOp([])
        return_op.erase()
    inputs = function.type.inputs
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, []))
    if "res_attrs" in function.attributes:
        del function.attributes["res_attrs"]


def _protect_arguments(function: func.FuncOp) -> None:
    count = len(function.type.inputs)
    old = function.attributes["arg_attrs"] if "arg_attrs" in function.attributes else None
    dictionaries = []
    for index in range(count):
        entries = {a.name: a.attr for a in ir.DictAttr(ir.ArrayAttr(old)[index])} if old else {}
        entries["bufferization.writable"] = ir.BoolAttr.get(False)
        dictionaries.append(ir.DictAttr.get(entries))
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(dictionaries)


def _declare_consumers(module: ir.Module, element_types: list[ir.Type]) -> None:
    read_only = ir.DictAttr.get({"bufferization.access": ir.StringAttr.get("read")})
    with ir.InsertionPoint(module.body):
        for index, element_type in enumerate(element_types):
            consumer_type = ir.FunctionType.get([ir.UnrankedTensorType.get(element_type)], [])
            consumer = func.FuncOp(RESULT_CONSUMER_PREFIX + str(index), consumer_type, visibility="private")
            consumer.arg_attrs = ir.ArrayAttr.get([read_only])
            consumer.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def make_boundary_integers_signless(module: ir.Module, entry: str) -> None:
    """Give the entry function and the consumers signless integer tensors.

    StableHLO's (and TOSA's) signed and unsigned integers lower to Linalg's
    signless ones, with `builtin.unrealized_conversion_cast`s left at the
    function boundary, which bufferization cannot handle. The runner passes
    integers by bit pattern anyway, so the boundary may as well be signless:
    the casts then become identities and go away.
    """
    functions = {op.sym_name.value: op for op in module.body.operations if isinstance(op, func.FuncOp)}
    function = functions[entry]
    for argument in function.body.blocks[0].arguments:
        argument.set_type(_signless(argument.type))
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([_signless(t) for t in function.type.inputs], [])
    )
    casts: list[ir.Operation] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name in ("builtin.unrealized_conversion_cast", "tensor.cast"):
            casts.append(operation)
        return ir.WalkResult.ADVANCE

    function.operation.walk(collect)
    for operation in casts:
        if len(operation.operands) != 1 or len(operation.results) != 1:
            continue
        source, result = operation.operands[0], operation.results[0]
        if operation.name == "tensor.cast":
            if isinstance(result.type, ir.UnrankedTensorType) and _feeds_consumers_only(result):
                result.set_type(_signless(result.type))
        elif _signless(result.type) == source.type:
            result.replace_all_uses_with(source)
            operation.erase()
    for name, consumer in functions.items():
        if name.startswith(RESULT_CONSUMER_PREFIX):
            consumer.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get([_signless(t) for t in consumer.type.inputs], [])
            )


def _feeds_consumers_only(value: ir.Value) -> bool:
    for use in value.uses:
        owner = use.owner
        if owner.name != "func.call":
            return False
        if not ir.FlatSymbolRefAttr(owner.attributes["callee"]).value.startswith(RESULT_CONSUMER_PREFIX):
            return False
    return True


def _signless(tensor_type: ir.Type) -> ir.Type:
    """`tensor_type` with a signed or unsigned integer element type made signless."""
    if not isinstance(tensor_type, (ir.RankedTensorType, ir.UnrankedTensorType)):
        return tensor_type
    element = tensor_type.element_type
    if not isinstance(element, ir.IntegerType) or element.is_signless:
        return tensor_type
    signless = ir.IntegerType.get_signless(element.width)
    if isinstance(tensor_type, ir.UnrankedTensorType):
        return ir.UnrankedTensorType.get(signless)
    return ir.RankedTensorType.get(tensor_type.shape, signless, tensor_type.encoding)
