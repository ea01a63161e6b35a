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
