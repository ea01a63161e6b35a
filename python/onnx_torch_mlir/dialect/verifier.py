"""Checks `onnx.<OpType>` ops (ONNX dialect spelling) against the ONNX schemas.

The ops are unregistered in MLIR, so MLIR checks nothing about them; this
verifier checks, at the opset recorded on the module (`onnx.opset_import`),
that each op exists, has a number of operands and results its schema allows,
operand and result types its type constraints allow, its required attributes
and no attribute its schema does not know.
Errors name the op, its location (the ONNX node) and what is wrong.
"""

from torch_mlir import ir

from ..errors import ConversionError
import re

from .schemas import (
    DEFAULT_DOMAIN_KEY,
    allowed_types,
    operand_bounds,
    parameter_for,
    required_attributes,
    result_bounds,
    schema_for,
)

# Ops of the dialect that are not ONNX operators.
STRUCTURAL_OPS = {"onnx.EntryPoint", "onnx.NoValue", "onnx.Custom", "onnx.Yield", "onnx.Return"}
ML_DOMAIN = "ai.onnx.ml"
# Attributes the importer adds that no schema lists.
IMPORTER_ATTRIBUTES = {"onnx_node_name", "onnx_output_names"}


class OnnxVerificationError(ConversionError):
    """An ONNX dialect op that its schema does not allow."""


def verify_module(module: ir.Module, model_name: str = "") -> None:
    """Raise OnnxVerificationError for the first op that breaks its schema."""
    opsets = _opsets(module)
    problems = []

    def visit(operation):
        operation = operation.operation if hasattr(operation, "operation") else operation
        name = operation.name
        if name.startswith("onnx.") and name not in STRUCTURAL_OPS:
            problem = check_op(operation, opsets)
            if problem:
                problems.append(f"{operation.location}: '{name}': {problem}")
        for region in operation.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(child)
                    if problems:
                        return

    visit(module.operation)
    if problems:
        prefix = f"{model_name}: " if model_name else ""
        raise OnnxVerificationError(prefix + problems[0])


def check_op(operation: ir.Operation, opsets: dict) -> str | None:
    """What is wrong with `operation` per its ONNX schema at the module's `opsets`, or None.

    `onnx.<OpType>` is an op of the default domain, or of `ai.onnx.ml`.
    """
    op_type = operation.name.removeprefix("onnx.")
    opset = opsets.get(DEFAULT_DOMAIN_KEY)
    schema = schema_for(op_type, opset) if opset is not None else None
    if schema is None and ML_DOMAIN in opsets:
        schema = schema_for(op_type, opsets[ML_DOMAIN], ML_DOMAIN)
    if schema is None:
        return f"no ONNX operator '{op_type}' at opset {opset}" if opset else "no default ONNX opset on the module"
    operand_count = len(operation.operands)
    low, high = operand_bounds(schema)
    if not low <= operand_count <= high:
        return f"{operand_count} operands, the schema (opset {schema.since_version}) allows {low} to {high}"
    result_count = len(operation.results)
    low, high = result_bounds(schema)
    if not low <= result_count <= high:
        return f"{result_count} results, the schema (opset {schema.since_version}) allows {low} to {high}"
    # Initializers are "onnx.Constant"s too, of any element type: their types are not Constant's.
    if op_type != "Constant":
        problem = _check_types(schema, operation.operands, schema.inputs, "operand") or _check_types(
            schema, operation.results, schema.outputs, "result"
        )
        if problem:
            return problem
    names = {named.name for named in (operation.attributes[index] for index in range(len(operation.attributes)))}
    missing = [name for name in required_attributes(schema) if name not in names]
    if missing:
        return f"missing required attribute(s) {', '.join(missing)}"
    unknown = sorted(names - set(schema.attributes) - IMPORTER_ATTRIBUTES)
    if unknown:
        return f"unknown attribute(s) {', '.join(unknown)} for opset {schema.since_version}"
    return None


# MLIR element type spelling (ONNX dialect) -> ONNX type name.
ONNX_TYPE_NAMES = {
    "f32": "float", "f64": "double", "f16": "float16", "bf16": "bfloat16", "i1": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "i4": "int4", "i2": "int2",
    "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64", "ui4": "uint4", "ui2": "uint2",
    "complex<f32>": "complex64", "complex<f64>": "complex128", "!onnx.String": "string",
    "f8E4M3FN": "float8e4m3fn", "f8E4M3FNUZ": "float8e4m3fnuz", "f8E5M2": "float8e5m2",
    "f8E5M2FNUZ": "float8e5m2fnuz", "f8E8M0FNU": "float8e8m0", "f4E2M1FN": "float4e2m1",
}
_TENSOR = re.compile(r"^tensor<(?:[0-9?]+x|\*x)*(.+)>$")


def onnx_type_string(mlir_type: str) -> str | None:
    """`tensor<?x3xf32>` -> `tensor(float)`, `!onnx.Seq<...>` -> `seq(...)`; None for `none` or unknown."""
    for prefix, kind in (("!onnx.Seq<", "seq"), ("!onnx.Opt<", "optional")):
        if mlir_type.startswith(prefix):
            inner = onnx_type_string(mlir_type[len(prefix) : -1])
            return f"{kind}({inner})" if inner else None
    match = _TENSOR.match(mlir_type)
    name = ONNX_TYPE_NAMES.get(match.group(1)) if match else None
    return f"tensor({name})" if name else None


def _check_types(schema, values, parameters, what: str) -> str | None:
    for index, value in enumerate(values):
        parameter = parameter_for(parameters, index)
        onnx_type = onnx_type_string(str(value.type))
        if parameter is None or onnx_type is None:
            continue
        allowed = allowed_types(schema, parameter)
        if onnx_type not in allowed:
            return f"{what} {index} ('{parameter.name}') is {onnx_type}, the schema allows {', '.join(sorted(allowed))}"
    return None


def _opsets(module: ir.Module) -> dict:
    """Domain -> version, from the module's `onnx.opset_import`."""
    attributes = module.operation.attributes
    if "onnx.opset_import" in attributes:
        versions = ir.DictAttr(attributes["onnx.opset_import"])
        return {versions[index].name: ir.IntegerAttr(versions[index].attr).value for index in range(len(versions))}
    raise OnnxVerificationError("the module records no ONNX opsets (onnx.opset_import)")
