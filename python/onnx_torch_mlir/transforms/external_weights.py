"""Weights outside the module: entry-function arguments with a safetensors file, or IREE parameters.

Two of compile's `weights=` forms (output_form.py has the others) take the large constants out of
the compiled module and write them to a file beside it:

- "arguments": each becomes a trailing argument of the entry function, after the model's inputs,
  in the order their constants stand in the function, with the argument attribute
  `onnx_torch_mlir.weight = "<ONNX initializer name>"`. The weights go to a safetensors file
  (safetensors_file.py), keyed by that name, with their element type and shape; its metadata
  `onnx_torch_mlir.arguments` lists the names in argument order (a JSON list), so a caller can
  pass them without reading the module. Every backend (and `torch`) takes this form.
- "parameters": each becomes a private `util.global` initialised from the IREE parameter
  `#stream.parameter.named<"model"::"<ONNX initializer name>">`, read with `util.global.load` where
  the constant was (through `torch_c.from_builtin_tensor` on the Torch dialect): the form
  `iree-import-onnx --externalize-params` writes. The weights go to an IREE parameter archive
  (.irpa) written with iree.runtime's `ParameterIndex`; IREE runs it with the archive under the
  scope "model" (`iree-run-module --parameters=model=weights.irpa`). `util` and `stream` are IREE's
  dialects, not torch-mlir's: the ops are unregistered here (our contexts allow them) and print in
  MLIR's generic form, which IREE reads as text or bytecode.

Which constants: those in the body of the entry function (not inside a nested region, whose ops a
function argument may not reach) whose value is a `dense_resource` our importer made (from raw
bytes; an initializer in typed fields becomes a literal and stays), of a static
shape and at least `min_bytes` bytes, with an element type the file holds (no sub-byte integers,
float4/float6, complex or i1). A constant two ops share is one weight. Others stay in the module
as resources. Weights of torch-mlir's importer are resources whose bytes Python cannot reach, so
they stay too.

Memory: each weight is the importer's buffer (the memory-mapped model or external data file); no
weight is copied, and the writers stream the buffers to the file.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os

import ml_dtypes
import numpy as np
from torch_mlir import ir

from ..errors import PipelineError, WeightsFileError
from ..importer.tensors import ImportedBytes, resource_bytes
from ..weights_forms import DEFAULT_MIN_BYTES, EXTERNAL_FORMS

WEIGHT_ATTRIBUTE = "onnx_torch_mlir.weight"
ARGUMENTS_METADATA = "onnx_torch_mlir.arguments"
PARAMETER_SCOPE = "model"

_CONSTANT_OPS = {
    "arith.constant": "value", "tosa.const": "values", "stablehlo.constant": "value", "torch.vtensor.literal": "value",
}
# MLIR element type -> numpy dtype, for the types both weights files hold.
_ELEMENT_DTYPES = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2,
    **{f"{sign}i{bits}": np.dtype(f"{'u' if sign == 'u' else ''}int{bits}")
       for bits in (8, 16, 32, 64) for sign in ("", "s", "u")},
}


@dataclasses.dataclass(frozen=True)
class ExternalWeight:
    """One weight taken out of the module: its name (the ONNX initializer's) and its values, a
    view of the importer's bytes with the element type and shape of the constant."""

    name: str
    array: np.ndarray


def externalize_weights(module: ir.Module, form: str, min_bytes: int = DEFAULT_MIN_BYTES) -> list[ExternalWeight]:
    """Take the large constants of `module`'s entry function out of it, in place, in `form`
    ("arguments" or "parameters"); the weights taken, in argument order (for parameters, the order
    their constants stood in)."""
    from .output_form import entry_function

    if form not in EXTERNAL_FORMS:
        raise PipelineError(f"unknown external weights form '{form}': expected one of {', '.join(EXTERNAL_FORMS)}")
    if min_bytes < 0:
        raise PipelineError(f"the weights' size threshold must not be negative, got {min_bytes}")
    entry = entry_function(module)
    weights, uses = _large_constants(entry, min_bytes)
    if not weights:
        return []
    with module.context, ir.Location.unknown():
        if form == "arguments":
            _as_arguments(entry, weights, uses)
        else:
            _as_parameters(module, entry, weights, uses)
    return weights


def write_weights(weights: list[ExternalWeight], form: str, path, entry_name: str = "") -> None:
    """Write the weights `externalize_weights` took to `path`: a safetensors file for "arguments"
    (metadata: the argument order and the entry function), an IREE parameter archive for "parameters"."""
    path = os.fspath(path)
    if form == "arguments":
        from ..safetensors_file import write_safetensors

        metadata = {ARGUMENTS_METADATA: json.dumps([weight.name for weight in weights])}
        if entry_name:
            metadata["onnx_torch_mlir.entry"] = entry_name
        write_safetensors(path, {weight.name: weight.array for weight in weights}, metadata)
    elif form == "parameters":
        write_parameter_archive(weights, path)
    else:
        raise PipelineError(f"unknown external weights form '{form}': expected one of {', '.join(EXTERNAL_FORMS)}")


def write_parameter_archive(weights: list[ExternalWeight], path: str) -> None:
    """An IREE parameter archive at `path` holding each weight's bytes under its name.

    iree.runtime's ParameterIndex wraps each buffer (no copy) and writes the archive in one pass;
    the file appears whole or not at all."""
    try:
        import iree.runtime as iree_runtime
    except ImportError:
        raise PipelineError("weights='parameters' writes an IREE parameter archive, which needs IREE: "
                            "pip install 'onnx-torch-mlir[iree]' (iree-base-runtime)") from None
    index = iree_runtime.ParameterIndex()
    for weight in weights:
        index.add_buffer(weight.name, np.ascontiguousarray(weight.array).reshape(-1).view(np.uint8))
    partial = f"{path}.partial"
    try:
        index.create_archive_file(partial)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(partial, 0o666 & ~umask)  # IREE creates it readable by its owner only
        os.replace(partial, path)
    except (OSError, RuntimeError, ValueError) as error:
        if os.path.exists(partial):
            os.unlink(partial)
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise WeightsFileError(f"cannot write the parameter archive {path}: {detail}") from None


def weight_argument_names(function) -> list[str | None]:
    """For each argument of `function` (a func.func operation), the weight it takes (its
    `onnx_torch_mlir.weight` attribute), or None for a model input."""
    operation = getattr(function, "operation", function)
    count = len(ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value).inputs)
    if "arg_attrs" not in operation.attributes:
        return [None] * count
    names = []
    for attributes in ir.ArrayAttr(operation.attributes["arg_attrs"]):
        dictionary = ir.DictAttr(attributes)
        names.append(ir.StringAttr(dictionary[WEIGHT_ATTRIBUTE]).value if WEIGHT_ATTRIBUTE in dictionary else None)
    return names + [None] * (count - len(names))


def parameter_globals(module: ir.Module) -> list[str]:
    """The symbols of `module`'s `util.global`s initialised from a named IREE parameter (those of
    weights="parameters", or of IREE's own importer)."""
    names = []
    for operation in module.body.operations:
        operation = operation.operation
        if operation.name == "util.global" and "initial_value" in operation.attributes:
            value = str(operation.attributes["initial_value"])
            if value.startswith(("#stream.parameter.named<", "#flow.parameter.named<")):
                names.append(ir.StringAttr(operation.attributes["sym_name"]).value)
    return names


def _large_constants(entry: ir.Operation, min_bytes: int) -> tuple[list[ExternalWeight], list[list[ir.Operation]]]:
    """The weights to take out of `entry`'s body, and for each the constant ops that hold it."""
    weights: list[ExternalWeight] = []
    uses: list[list[ir.Operation]] = []
    by_handle: dict[str, int] = {}
    names: set[str] = set()
    for operation in entry.regions[0].blocks[0].operations:
        operation = operation.operation
        attribute_name = _CONSTANT_OPS.get(operation.name)
        if attribute_name is None or attribute_name not in operation.attributes:
            continue
        value = operation.attributes[attribute_name]
        handle = str(value).partition(" : ")[0]  # a resource prints as its handle, never its data
        if handle in by_handle:
            uses[by_handle[handle]].append(operation)
            continue
        data = resource_bytes(value) if handle.startswith("dense_resource<") else None
        array = _typed_view(data, value.type) if data is not None and data.nbytes >= min_bytes else None
        if array is None:
            continue
        by_handle[handle] = len(weights)
        weights.append(ExternalWeight(_unique(data.tensor_name or handle, names), array))
        uses.append([operation])
    return weights, uses


def _typed_view(data: ImportedBytes, tensor_type: ir.Type) -> np.ndarray | None:
    """The bytes with the constant's shape and an element type the files hold (the model's own
    type where it has the same width: uint8 stays uint8 though Linalg calls it i8), else None."""
    if not isinstance(tensor_type, ir.RankedTensorType) or not tensor_type.has_static_shape:
        return None
    dtype = _ELEMENT_DTYPES.get(str(tensor_type.element_type))
    if dtype is None:
        return None
    dtype = np.dtype(dtype)
    model = data.tensor_dtype
    # Only a signedness the module forgot is taken from the model: same width, both integers.
    if model is not None and dtype.kind in "iu" and model.kind in "iu" and model.itemsize == dtype.itemsize:
        dtype = model
    shape = tuple(tensor_type.shape)
    if dtype.itemsize * math.prod(shape) != data.nbytes:
        return None
    return np.asarray(data).view(dtype).reshape(shape)


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or `name#k` when two weights of the module share an initializer name."""
    candidate, count = name, 1
    while candidate in taken:
        candidate, count = f"{name}#{count}", count + 1
    taken.add(candidate)
    return candidate


def _as_arguments(entry: ir.Operation, weights: list[ExternalWeight], uses: list[list[ir.Operation]]) -> None:
    block = entry.regions[0].blocks[0]
    function_type = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
    old_count = len(function_type.inputs)
    for weight, constants in zip(weights, uses):
        argument = block.add_argument(constants[0].results[0].type, constants[0].location)
        for constant in constants:
            constant.results[0].replace_all_uses_with(argument)
            constant.erase()
    inputs = [argument.type for argument in block.arguments]
    entry.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, function_type.results))
    old = list(ir.ArrayAttr(entry.attributes["arg_attrs"])) if "arg_attrs" in entry.attributes else []
    old += [ir.DictAttr.get({})] * (old_count - len(old))
    named = [ir.DictAttr.get({WEIGHT_ATTRIBUTE: ir.StringAttr.get(weight.name)}) for weight in weights]
    entry.attributes["arg_attrs"] = ir.ArrayAttr.get(old + named)


def _as_parameters(module: ir.Module, entry: ir.Operation, weights: list[ExternalWeight],
                   uses: list[list[ir.Operation]]) -> None:
    if not module.context.allow_unregistered_dialects:
        raise PipelineError("weights='parameters' writes IREE's util ops, which need a context that allows "
                            "unregistered dialects (onnx_torch_mlir.mlir_context.make_context)")
    symbols = {ir.StringAttr(operation.operation.attributes["sym_name"]).value for operation in module.body.operations
               if "sym_name" in operation.operation.attributes}
    for weight, constants in zip(weights, uses):
        constant_type = constants[0].results[0].type
        attribute_name = _CONSTANT_OPS[constants[0].name]
        tensor_type = constants[0].attributes[attribute_name].type  # the builtin type, also under a torch literal
        symbol = _unique(weight.name, symbols)
        initial = ir.Attribute.parse(
            f'#stream.parameter.named<"{PARAMETER_SCOPE}"::{_quoted(weight.name)}> : {tensor_type}'
        )
        with ir.InsertionPoint(entry):
            ir.Operation.create("util.global", attributes={
                "sym_name": ir.StringAttr.get(symbol), "sym_visibility": ir.StringAttr.get("private"),
                "type": ir.TypeAttr.get(tensor_type), "initial_value": initial,
            })
        for constant in constants:
            with ir.InsertionPoint(constant), constant.location:
                loaded = ir.Operation.create("util.global.load", results=[tensor_type], attributes={
                    "global": ir.FlatSymbolRefAttr.get(symbol), "is_immutable": ir.UnitAttr.get(),
                }).results[0]
                if constant_type != tensor_type:
                    loaded = ir.Operation.create("torch_c.from_builtin_tensor", results=[constant_type],
                                                 operands=[loaded]).results[0]
            constant.results[0].replace_all_uses_with(loaded)
            constant.erase()


def _quoted(text: str) -> str:
    """`text` as an MLIR string literal."""
    escaped = "".join(chr(byte) if 32 <= byte < 127 and byte not in b'"\\' else f"\\{byte:02X}" for byte in text.encode())
    return f'"{escaped}"'
