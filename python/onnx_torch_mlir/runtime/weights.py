"""Large weights passed to the compiled program as arguments instead of compiled into it.

A constant the runner leaves in the program reaches LLVM as a global initialiser, which LLVM
copies, optimises over and code-generates like any other data: BERT-base's 417 MiB of weights cost
about 100 s and 3.4 GiB of JIT compilation. So, before lowering, each large `dense_resource`
constant of the entry function whose bytes the runner can reach becomes an extra argument of that
function (in a copy of the program), and every call passes the bytes themselves (no copy). The bytes are reachable when the
program was compiled in this process by our importer, which keeps each weight's buffer
(`importer.tensors.resource_bytes`); a program parsed from a file keeps its constants compiled in.

A module compiled with weights="arguments" already takes its weights as arguments, named; the
caller gives the file they were written to, and `weight_arguments` reads them from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from torch_mlir import ir
from torch_mlir.dialects import func

from onnx_torch_mlir.errors import UnsupportedTypeError
from onnx_torch_mlir.importer.tensors import resource_bytes
from onnx_torch_mlir.ir_walk import has_op
from onnx_torch_mlir.runtime import calling_convention
from onnx_torch_mlir.runtime.dtypes import numpy_dtype_for

# Smaller constants stay compiled in: their cost is small, and some lowerings want them constant.
MIN_HOISTED_BYTES = 64 * 1024
_CONSTANT_OPS = {"arith.constant": "value", "tosa.const": "values", "stablehlo.constant": "value"}


def resource_name(attribute: ir.Attribute) -> str | None:
    """The resource handle of a `dense_resource` attribute, else None."""
    # The bindings give resource attributes no Python class to test; the printed handle is the test
    # (printing a resource attribute never prints its data).
    handle = str(attribute).partition(" : ")[0]
    return handle if handle.startswith("dense_resource<") else None


def without_large_weights(module: ir.Module, entry: str | None) -> tuple[ir.Operation | None, list[np.ndarray]]:
    """A copy of `module` whose entry function takes its large reachable weights as trailing
    arguments, and those weights in order; (None, []) when it has none. `module` is untouched.

    This runs in the caller's context, where the importer's buffers are known by resource handle
    (parsed into the runner's context, a handle may be renamed to stay unique there)."""
    if not _large_weights(module):
        return None, []
    copy = module.operation.clone()
    function = calling_convention.find_entry(copy, entry)
    with copy.context, ir.Location.unknown():
        arrays = _hoist(function)
    return copy, arrays


def _large_weights(module: ir.Module) -> bool:
    return has_op(module, lambda operation: _reachable_bytes(operation) is not None)


def _reachable_bytes(operation: ir.Operation) -> np.ndarray | None:
    attribute = _constant_value(operation)
    if attribute is None or resource_name(attribute) is None:
        return None
    data = resource_bytes(attribute)
    return data if data is not None and data.nbytes >= MIN_HOISTED_BYTES else None


def _hoist(function: func.FuncOp) -> list[np.ndarray]:
    """Turn the large reachable constants of `function` into trailing arguments; their arrays.
    Constants of element types numpy cannot view stay."""
    constants: list[tuple[ir.Operation, np.ndarray]] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        data = _reachable_bytes(operation)
        array = _typed_view(data, operation.results[0].type) if data is not None else None
        if array is not None:
            constants.append((operation, array))
        return ir.WalkResult.ADVANCE

    function.operation.walk(collect)
    block = function.body.blocks[0]
    arrays = []
    for operation, array in constants:
        argument = block.add_argument(operation.results[0].type, operation.location)
        operation.results[0].replace_all_uses_with(argument)
        operation.erase()
        arrays.append(array)
    if arrays:
        _update_signature(function, [argument.type for argument in block.arguments])
    return arrays


def _constant_value(operation: ir.Operation) -> ir.Attribute | None:
    attribute_name = _CONSTANT_OPS.get(operation.name)
    if attribute_name is None or attribute_name not in operation.attributes:
        return None
    return operation.attributes[attribute_name]


def _typed_view(data: np.ndarray, tensor_type: ir.Type) -> np.ndarray | None:
    """The bytes viewed with the tensor's dtype and shape, or None when they do not fit one."""
    if not isinstance(tensor_type, ir.RankedTensorType) or not tensor_type.has_static_shape:
        return None
    try:
        dtype = numpy_dtype_for(str(tensor_type.element_type), "a weight")
    except UnsupportedTypeError:
        return None
    shape = tuple(tensor_type.shape)
    if dtype == np.bool_ or dtype.itemsize * math.prod(shape) != data.nbytes:
        return None
    return data.view(dtype).reshape(shape)


def _update_signature(function: func.FuncOp, inputs: list[ir.Type]) -> None:
    old_count = len(function.type.inputs)
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, function.type.results))
    if "arg_attrs" in function.attributes:
        old = list(ir.ArrayAttr(function.attributes["arg_attrs"]))
        function.attributes["arg_attrs"] = ir.ArrayAttr.get(old + [ir.DictAttr.get({})] * (len(inputs) - old_count))


# --- Weights a module takes from a file (compile's weights="arguments"; transforms/external_weights.py). ---


def weight_arguments(function: func.FuncOp, weights_file) -> tuple[list[ir.Type], list[np.ndarray]]:
    """The types of `function`'s weight arguments (those named by an `onnx_torch_mlir.weight`
    attribute, after the model's inputs) and their arrays from `weights_file` (a safetensors path or
    a mapping of name to array), in argument order; ([], []) for a function without any."""
    from onnx_torch_mlir.errors import RunnerError, WeightsFileError
    from onnx_torch_mlir.safetensors_file import read_safetensors
    from onnx_torch_mlir.transforms.external_weights import weight_argument_names

    names = weight_argument_names(function)
    first = next((index for index, name in enumerate(names) if name is not None), len(names))
    taken = [name for name in names[first:] if name is not None]
    entry = function.sym_name.value
    if not taken:
        return [], []
    if len(taken) != len(names) - first:
        raise RunnerError(f"@{entry}: its weight arguments (onnx_torch_mlir.weight) do not all follow its inputs")
    if weights_file is None:
        raise RunnerError(f"@{entry} takes {len(taken)} weights as arguments (compiled with weights='arguments'): "
                          "pass the safetensors file written with it (weights_file=, --weights-file)")
    where = "the weights given"
    if isinstance(weights_file, Mapping):
        arrays = weights_file
    else:
        where = str(weights_file)
        try:
            arrays, _ = read_safetensors(weights_file)
        except WeightsFileError as error:
            raise RunnerError(str(error)) from None
    missing = [name for name in taken if name not in arrays]
    if missing:
        raise RunnerError(f"{where} has no weight '{missing[0]}' (@{entry} takes {len(taken)} weights; "
                          f"{len(missing)} are missing)")
    return list(function.type.inputs[first:]), [arrays[name] for name in taken]


def refuse_parameters(module) -> None:
    """A module that reads IREE parameters (compile's weights="parameters") runs on IREE only."""
    from onnx_torch_mlir.errors import RunnerError
    from onnx_torch_mlir.transforms.external_weights import parameter_globals

    reads = parameter_globals(module) if isinstance(module, ir.Module) else "util.global" in module
    if reads:
        raise RunnerError("the module reads its weights as IREE parameters (compiled with weights='parameters'), "
                          "which only IREE runs: use --consumer iree, or compile with weights='arguments'")
