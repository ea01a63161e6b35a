"""How the compiled module is handed over: the entry function's name and where the weights live.

Consumers differ in what they take, for the same program:
- XLA (jax/jaxlib's CPU client, `compile_and_load` on StableHLO) looks for a public function named
  `main` ("MLIR module must have a main function") and takes only literal constants ("Only dense
  elements attr are supported"); its StableHLO is older than ours, so it is best handed a portable
  artifact (VHLO, versioned bytecode), which also takes only literal constants.
- IREE, our runner and MLIR's tools take the importer's resources (`dense_resource`), which keep
  the weights out of the printed IR and are written once, in place, as bytecode.
- A consumer that loads weights apart from the program (to share them between programs, to keep
  a multi-gigabyte module small, or because its format caps the module's size) takes them as the
  entry function's arguments with a safetensors file, or, for IREE, as parameters in a parameter
  archive (external_weights.py).

`rename_entry` names the entry function; `inline_weights` turns every resource the importer made
into a literal (`dense<...>`) of the same bytes; `portable_artifact` serializes StableHLO for a
target StableHLO version.
"""

import numpy as np
from torch_mlir import ir

from ..errors import PipelineError
from ..importer.tensors import resource_bytes


def entry_function(module: ir.Module) -> ir.Operation:
    """The module's public `func.func` (the graph); a module with none or several is refused."""
    public = [operation.operation for operation in module.body.operations
              if operation.operation.name == "func.func" and "sym_visibility" not in operation.operation.attributes]
    if len(public) != 1:
        raise PipelineError(f"the module has {len(public)} public functions; expected one entry function")
    return public[0]


def rename_entry(module: ir.Module, name: str) -> None:
    """Name the entry function `name`, in place; calls of it (there are none in our output) would break,
    so a private function already named `name` is refused rather than shadowed."""
    entry = entry_function(module)
    current = ir.StringAttr(entry.attributes["sym_name"]).value
    if current == name:
        return
    taken = [operation for operation in module.body.operations if operation.operation.name == "func.func"
             and ir.StringAttr(operation.operation.attributes["sym_name"]).value == name]
    if taken:
        raise PipelineError(f"cannot name the entry function '{name}': the module has another function of that name")
    with module.context:
        entry.attributes["sym_name"] = ir.StringAttr.get(name)


def _storage_dtype(element: ir.Type) -> np.dtype:
    """The numpy type whose bytes the importer stored for `element` (one element per byte below 8 bits)."""
    if isinstance(element, ir.ComplexType):
        return np.dtype(np.complex64 if ir.FloatType(element.element_type).width == 32 else np.complex128)
    width = element.width if isinstance(element, ir.IntegerType) else ir.FloatType(element).width
    if width == 1:
        return np.dtype(np.bool_)
    if width < 8:
        return np.dtype(np.int8)
    return np.dtype(f"uint{width}")


def _literal(resource: ir.Attribute) -> ir.Attribute:
    data = resource_bytes(resource)
    if data is None:
        raise PipelineError(f"cannot inline the weight {str(resource).partition(' : ')[0]}: its bytes are not "
                            "the importer's (inline weights in the process that imported the model)")
    tensor_type = ir.RankedTensorType(resource.type)
    values = np.frombuffer(data, dtype=_storage_dtype(tensor_type.element_type))
    return ir.DenseElementsAttr.get(values, type=tensor_type.element_type, shape=list(tensor_type.shape))


def resource_attribute_names(operation: ir.Operation) -> list[str]:
    """The names of `operation`'s attributes that are `dense_resource` elements."""
    attributes = operation.attributes
    named = (attributes[index] for index in range(len(attributes)))
    return [item.name for item in named if str(item.attr).startswith("dense_resource<")]  # prints the handle only


def inline_weights(module: ir.Module) -> int:
    """Replace every `dense_resource` attribute of `module`'s ops with the literal of its bytes; the count."""
    found: list[tuple[ir.Operation, str]] = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        found.extend((operation, name) for name in resource_attribute_names(operation))
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    with module.context:
        for operation, name in found:
            operation.attributes[name] = _literal(operation.attributes[name])
    return len(found)


def portable_artifact(module: ir.Module, target_version: str) -> bytes:
    """`module` (StableHLO with literal constants) as a StableHLO portable artifact for `target_version`."""
    from torch_mlir._mlir_libs import _stablehlo

    diagnostics: list[str] = []

    def remember(diagnostic) -> bool:
        diagnostics.append(f"{diagnostic.location}: {diagnostic.message}")
        return True

    handler = module.context.attach_diagnostic_handler(remember)
    try:
        return _stablehlo.serialize_portable_artifact(module, target_version)
    except Exception as error:  # the binding raises a bare RuntimeError; the reason came as a diagnostic
        reason = diagnostics[0] if diagnostics else str(error)
        raise PipelineError(f"cannot write a StableHLO {target_version} portable artifact: {reason}") from None
    finally:
        handler.detach()
