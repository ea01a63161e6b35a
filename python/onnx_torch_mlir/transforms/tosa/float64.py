"""Float64 in TOSA output as float32.

TOSA has no 64-bit float type: no profile (pro_fp, pro_int) or extension allows `f64`, so the
TOSA validator (tosa-tools' `--tosa-validate`) and IREE's TOSA input ("'tosa.cast' op is not
profile-aligned: element type 'f64' is not legal") refuse a graph with one, and the serializer
has no flatbuffer type for it. torch-mlir's TOSA lowering keeps the model's float64 values
(SwiftF0's pitch decoder: a Cast to double, a softmax and a float64 table lookup, and a float64
output). So every float64 of the lowered module becomes float32: value types, the entry
signature (a float64 input or output is float32 there), `tosa.const` values (a weight is
rounded to float32 once) and float attributes; a `tosa.cast` between two types that are now the
same is dropped. The compile warns once, naming how many values and which outputs changed type.

Not where the program takes a float64 input (the caller's data may be beyond float32's range:
PyTorch-exported conformance cases are fed values up to 9e223), and not where a float64 value
becomes an integer (a `tosa.cast` from f64 to an integer type): our
conversion computes some integer results in float64 on purpose, because float64 holds them exactly
(an integer Pow, a requantization's `accumulator * multiplier`), and float32 would round them. Such
a module is left as it is: invalid TOSA, named by tools/tosa_validation.py's "float64" group, as
before this step; it runs on our reference runner and Linalg or StableHLO keep it exact.

A user who needs float64 results compiles for Linalg or StableHLO, which keep them. This step
stays as long as TOSA has no float64.
"""

from __future__ import annotations

import warnings

import numpy as np
from torch_mlir import ir

from ...errors import OnnxTorchMlirWarning, PipelineError
from ...importer.tensors import resource_bytes, resource_like
from ...ir_walk import has_op

CAST = "tosa.cast"


def float64_as_float32(module: ir.Module) -> int:
    """Rewrite every float64 type, constant and attribute of `module` as float32; returns how many
    values changed type."""
    with module.context, ir.Location.unknown():
        if _float64_made_integer(module) or _takes_float64(module):
            return 0
        changed_outputs = _float64_outputs(module)
        retyped = _retype_values_and_attributes(module)
        if not retyped:
            return 0
        _drop_identity_casts(module)
        _check_none_left(module)
        warnings.warn(OnnxTorchMlirWarning(
            f"tosa: TOSA has no float64, so the {retyped} float64 values of this model are computed in float32"
            f"{changed_outputs}; compile for linalg-on-tensors or stablehlo to keep float64"), stacklevel=2)
    return retyped


def _takes_float64(module: ir.Module) -> bool:
    """Whether a public function takes a float64 argument: its caller hands float64 data, whose
    range and precision float32 may not hold, so the module is left as it is."""
    for operation in module.body.operations:
        if operation.operation.name == "func.func" and "sym_visibility" not in operation.attributes:
            inputs = ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value).inputs
            if any(_float32_of(type_) is not None for type_ in inputs):
                return True
    return False


def _float64_made_integer(module: ir.Module) -> bool:
    """Whether some `tosa.cast` takes a float64 value to an integer type (module docstring)."""
    return has_op(module, lambda operation: operation.name == CAST
                  and _float32_of(operation.operands[0].type) is not None
                  and isinstance(operation.results[0].type.element_type, ir.IntegerType))


def _float32_of(type_: ir.Type) -> ir.Type | None:
    """`type_` with float32 for its float64 element, or None when it has none."""
    if isinstance(type_, ir.F64Type):
        return ir.F32Type.get()
    if isinstance(type_, ir.RankedTensorType) and isinstance(type_.element_type, ir.F64Type):
        return ir.RankedTensorType.get(type_.shape, ir.F32Type.get(), type_.encoding)
    if isinstance(type_, ir.UnrankedTensorType) and isinstance(type_.element_type, ir.F64Type):
        return ir.UnrankedTensorType.get(ir.F32Type.get())
    return None


def _retype_values_and_attributes(module: ir.Module) -> int:
    retyped = 0

    def visit(operation: ir.Operation) -> ir.WalkResult:
        nonlocal retyped
        for region in operation.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    retyped += _retype(argument)
        for result in operation.results:
            retyped += _retype(result)
        _retype_attributes(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return retyped


def _retype(value: ir.Value) -> int:
    demoted = _float32_of(value.type)
    if demoted is None:
        return 0
    value.set_type(demoted)
    return 1


def _retype_attributes(operation: ir.Operation) -> None:
    for name in list(operation.attributes):
        attribute = operation.attributes[name]
        replacement = None
        if isinstance(attribute, ir.TypeAttr) and isinstance(attribute.value, ir.FunctionType):
            replacement = ir.TypeAttr.get(_function_type(attribute.value))
        elif isinstance(attribute, ir.FloatAttr) and isinstance(attribute.type, ir.F64Type):
            replacement = ir.FloatAttr.get(ir.F32Type.get(), attribute.value)
        elif _is_float64_elements(attribute):
            replacement = _elements_as_float32(operation, attribute)
        if replacement is not None:
            operation.attributes[name] = replacement


def _is_float64_elements(attribute: ir.Attribute) -> bool:
    """A `dense<...>` or `dense_resource<...>` of float64 (the bindings do not downcast the latter:
    it is recognised by its printed handle, never its data)."""
    if isinstance(attribute, ir.DenseElementsAttr):
        return _float32_of(attribute.type) is not None
    return type(attribute) is ir.Attribute and str(attribute).startswith("dense_resource<") \
        and _float32_of(attribute.type) is not None


def _function_type(function: ir.FunctionType) -> ir.FunctionType:
    def each(types):
        return [_float32_of(type_) or type_ for type_ in types]

    return ir.FunctionType.get(each(function.inputs), each(function.results))


def _elements_as_float32(operation: ir.Operation, attribute: ir.Attribute) -> ir.Attribute:
    type_ = _float32_of(attribute.type)
    if str(attribute).startswith("dense_resource<"):
        data = resource_bytes(attribute)
        if data is None:
            raise PipelineError(f"tosa: {operation.name} holds a float64 weight of unknown origin, which TOSA "
                                "(no float64) cannot take")
        values = np.asarray(data).view(np.float64).astype(np.float32)
        return resource_like(values, data.tensor_name or "float64_weight", type_)
    elements = ir.DenseElementsAttr(attribute)
    if elements.is_splat:
        return ir.DenseElementsAttr.get_splat(type_, ir.FloatAttr.get(ir.F32Type.get(), elements.get_splat_value().value))
    values = np.array(ir.DenseFPElementsAttr(attribute), dtype=np.float64).astype(np.float32)
    return ir.DenseElementsAttr.get(values.reshape(type_.shape), type=type_)


def _drop_identity_casts(module: ir.Module) -> None:
    casts = []

    def collect(operation: ir.Operation) -> ir.WalkResult:
        if operation.name == CAST and operation.operands[0].type == operation.results[0].type:
            casts.append(operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    for cast in casts:
        cast.results[0].replace_all_uses_with(cast.operands[0])
        cast.erase()


def _check_none_left(module: ir.Module) -> None:
    left = []

    def find(operation: ir.Operation) -> ir.WalkResult:
        attributes = [operation.attributes[name] for name in operation.attributes]
        if any(_float32_of(result.type) for result in operation.results) or any(
                _is_float64_elements(attribute) or (isinstance(attribute, ir.FloatAttr) and isinstance(attribute.type, ir.F64Type))
                or (isinstance(attribute, ir.TypeAttr) and "f64" in str(attribute)) for attribute in attributes):
            left.append(operation.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(find)
    if left:
        raise PipelineError(f"tosa: float64 left in {', '.join(sorted(set(left)))} after making float64 float32 "
                            "(TOSA has no float64)")


def _float64_outputs(module: ir.Module) -> str:
    """', and output(s) N of @entry are float32' for the public functions' float64 results."""
    notes = []
    for operation in module.body.operations:
        if operation.operation.name != "func.func" or "sym_visibility" in operation.attributes:
            continue
        results = ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value).results
        indices = [str(index) for index, type_ in enumerate(results) if _float32_of(type_) is not None]
        if indices:
            name = ir.StringAttr(operation.attributes["sym_name"]).value
            notes.append(f"output{'s' if len(indices) > 1 else ''} {', '.join(indices)} of @{name}")
    return f", and {'; '.join(notes)} {'are' if len(notes) > 1 or ',' in notes[0] else 'is'} float32" if notes else ""
