"""`convert-function-types-to-torch-types`: function signatures to `!torch.vtensor`.

Each builtin-tensor argument becomes a `!torch.vtensor` argument whose uses go
through a cast back to the builtin type; each builtin-tensor return operand is
cast to `!torch.vtensor`. The casts meet the ones `convert-onnx-to-torch`
left and `finalize-torch-type-conversion` folds the pairs. Argument and
result attributes (`onnx.name`) are kept.
"""

from __future__ import annotations

from torch_mlir import ir

from .onnx_to_torch.types import is_builtin_tensor, to_vtensor_type

UNREALIZED_CAST = "builtin.unrealized_conversion_cast"


def _cast(value: ir.Value, target: ir.Type, ip: ir.InsertionPoint, location: ir.Location) -> ir.Operation:
    return ir.Operation.create(UNREALIZED_CAST, results=[target], operands=[value], loc=location, ip=ip)


def convert_function_types_to_torch_types(module_op: ir.Operation) -> None:
    for function in module_op.regions[0].blocks[0].operations:
        function = function.operation
        if function.name != "func.func" or not function.regions[0].blocks:
            continue
        _convert_function(function)


def _convert_function(function: ir.Operation) -> None:
    entry = function.regions[0].blocks[0]
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    inputs = list(function_type.inputs)
    for index, argument in enumerate(entry.arguments):
        if not is_builtin_tensor(argument.type):
            continue
        builtin_type, torch_type = argument.type, to_vtensor_type(argument.type)
        argument.set_type(torch_type)
        inputs[index] = torch_type
        if any(True for _ in argument.uses):
            first = entry.operations[0] if len(entry.operations) else None
            ip = ir.InsertionPoint(first) if first is not None else ir.InsertionPoint(entry)
            cast = _cast(argument, builtin_type, ip, function.location)
            argument.replace_all_uses_except(cast.result, cast)
    results = list(function_type.results)
    for block in function.regions[0].blocks:
        terminator = block.operations[len(block.operations) - 1].operation
        if terminator.name != "func.return":
            continue
        for index, operand in enumerate(terminator.operands):
            if is_builtin_tensor(operand.type):
                torch_type = to_vtensor_type(operand.type)
                cast = _cast(operand, torch_type, ir.InsertionPoint(terminator), terminator.location)
                terminator.operands[index] = cast.result
                results[index] = torch_type
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
