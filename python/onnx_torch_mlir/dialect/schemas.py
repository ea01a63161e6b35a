"""ONNX operator schemas (`onnx.defs`) at a model's opset, cached."""

import functools

import onnx.defs

DEFAULT_DOMAIN_KEY = "ai.onnx"


@functools.lru_cache(maxsize=None)
def schema_for(op_type: str, opset: int, domain: str = "") -> onnx.defs.OpSchema | None:
    """The schema of `op_type` in force at `opset`, or None if the op does not exist there."""
    try:
        return onnx.defs.get_schema(op_type, opset, domain)
    except onnx.defs.SchemaError:
        return None


def operand_bounds(schema: onnx.defs.OpSchema) -> tuple[int, int]:
    return schema.min_input, schema.max_input


def result_bounds(schema: onnx.defs.OpSchema) -> tuple[int, int]:
    return schema.min_output, schema.max_output


def required_attributes(schema: onnx.defs.OpSchema) -> list[str]:
    """Required attributes, except graphs: the dialect holds those as regions."""
    graph = onnx.defs.OpSchema.AttrType.GRAPH
    return [name for name, attribute in schema.attributes.items() if attribute.required and attribute.type != graph]


def allowed_types(schema: onnx.defs.OpSchema, parameter) -> set[str]:
    """The ONNX type strings (`tensor(float)`...) a formal parameter accepts."""
    for constraint in schema.type_constraints:
        if constraint.type_param_str == parameter.type_str:
            return set(constraint.allowed_type_strs)
    return {parameter.type_str}


def parameter_for(parameters, index: int):
    """The formal parameter of operand (or result) `index`; the last one repeats when variadic."""
    if index < len(parameters):
        return parameters[index]
    if parameters and parameters[-1].option == onnx.defs.OpSchema.FormalParameterOption.Variadic:
        return parameters[-1]
    return None
