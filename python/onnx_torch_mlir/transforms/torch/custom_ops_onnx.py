"""Keeping ONNX ops: `keep_onnx_ops` takes chosen ONNX ops past the ONNX-to-Torch conversion.

On the imported module (torch-ONNX spelling), each `torch.operator "onnx.Y"` of a
kept op type becomes a *carrier*

    %r = func.call @onnx.Y(%a, %none) : (!torch.vtensor<...>, !torch.none) -> ...
    func.func private @onnx.Y(...) attributes {onnx.attributes = "{...}", onnx.op_type = "Y"}

to a private declaration (one per signature and attribute set: `@onnx.Y$1`, ...): a call is legal in torch-mlir's backend contract, so
the carrier passes the Torch pipeline untouched, and on the way to a backend
custom_ops.py turns it into the backend's custom op of domain "onnx" (TOSA
`tosa.custom` with `operator_name = "Y"`, `domain_name = "onnx"`; StableHLO
`stablehlo.custom_call @onnx.Y`; Linalg `func.call @onnx.Y`). The op's ONNX
attributes go into the JSON by name, plus `"onnx.opset_version"` (the model's
opset for the default domain: no ONNX attribute name has a dot); its inputs
stay operands in order, a missing optional input as the None placeholder.

This is also the escape hatch for a model with an op we cannot convert yet.
"""

from __future__ import annotations

import difflib
import json

import numpy as np
from torch_mlir import ir
from torch_mlir.dialects import func

from ...errors import ConversionError
from ..torch.custom_ops import ONNX_ATTRIBUTES, ONNX_OP_TYPE, json_value

_ATTRIBUTE_PREFIX = "torch.onnx."


def normalize_onnx_op_names(names) -> tuple[str, ...]:
    """ONNX op types of the default domain; an unknown one raises ConversionError with close matches."""
    import onnx.defs

    known = sorted({schema.name for schema in onnx.defs.get_all_schemas_with_history() if schema.domain in ("", "ai.onnx")})
    result, unknown = [], []
    for name in names:
        name = name.strip().removeprefix("onnx.")
        if not name:
            continue
        (result if name in known else unknown).append(name)
    if unknown:
        details = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=4, cutoff=0.6)
            details.append(f"'{name}'" + (f" (close matches: {', '.join(close)})" if close else ""))
        raise ConversionError(f"unknown ONNX op to keep {'; '.join(details)}")
    return tuple(dict.fromkeys(result))


def attribute_json_value(attribute: ir.Attribute, where: str):
    """An ONNX attribute as torch-ONNX spells it -> a JSON value."""
    if isinstance(attribute, ir.BoolAttr):
        return bool(attribute.value)
    if isinstance(attribute, ir.IntegerAttr):
        return attribute.value
    if isinstance(attribute, ir.FloatAttr):
        return json_value(float(attribute.value))
    if isinstance(attribute, ir.StringAttr):
        return attribute.value
    if isinstance(attribute, ir.ArrayAttr):
        return [attribute_json_value(item, where) for item in attribute]
    if isinstance(attribute, ir.TypeAttr):
        return str(attribute.value)
    if isinstance(attribute, ir.DenseElementsAttr):
        try:
            values = np.array(attribute)
        except Exception:  # noqa: BLE001 - bindings cannot read every element type
            raise ConversionError(f"{where}: tensor attribute of type {attribute.type} has no JSON form") from None
        return {"type": str(attribute.type), "values": json_value(values.tolist())}
    raise ConversionError(f"{where}: attribute {attribute} has no JSON form")


def _opset_of(op: ir.Operation) -> int | None:
    parent = op.parent
    while parent is not None:
        if parent.name == "func.func" and "torch.onnx_meta.opset_version" in parent.attributes:
            return ir.IntegerAttr(parent.attributes["torch.onnx_meta.opset_version"]).value
        parent = parent.parent
    return None


def keep_onnx_ops(module: ir.Module, op_types) -> int:
    """Turn every `torch.operator "onnx.<T>"` with T in `op_types` into a carrier call; returns how many."""
    op_types = normalize_onnx_op_names(op_types)
    wanted = {f"onnx.{name}" for name in op_types}
    found: list[ir.Operation] = []

    def collect(holder):
        for region in holder.regions:
            for block in region.blocks:
                for op in block.operations:
                    op = op.operation
                    if op.name == "torch.operator" and ir.StringAttr(op.attributes["name"]).value in wanted:
                        found.append(op)
                    collect(op)

    collect(module.operation)
    signatures: dict[str, dict[str, str]] = {}
    body = module.body
    with module.context:
        for op in found:
            onnx_name = ir.StringAttr(op.attributes["name"]).value
            where = f"keeping {onnx_name} at {op.location}"
            if any(len(region.blocks) for region in op.regions):
                raise ConversionError(f"{where}: its subgraph attributes have no custom-op encoding")
            attributes = {}
            for index in range(len(op.attributes)):
                named = op.attributes[index]
                if named.name.startswith(_ATTRIBUTE_PREFIX):
                    attributes[named.name[len(_ATTRIBUTE_PREFIX) :]] = attribute_json_value(named.attr, where)
            opset = _opset_of(op)
            if opset is not None:
                attributes["onnx.opset_version"] = opset
            operand_types = [value.type for value in op.operands]
            result_types = [value.type for value in op.results]
            attributes_json = json.dumps(attributes, separators=(",", ":"))
            # Passes of the Torch pipeline rebuild calls and drop their attributes, so the op
            # type and attributes live on the declaration: one per signature and attribute set.
            key = f"{operand_types}->{result_types} {attributes_json}"
            known = signatures.setdefault(onnx_name, {})
            if key not in known:
                symbol = onnx_name if not known else f"{onnx_name}${len(known)}"
                known[key] = symbol
                with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
                    declaration = func.FuncOp(symbol, (operand_types, result_types), visibility="private")
                    declaration.operation.attributes[ONNX_ATTRIBUTES] = ir.StringAttr.get(attributes_json)
                    declaration.operation.attributes[ONNX_OP_TYPE] = ir.StringAttr.get(onnx_name[len("onnx.") :])
            with op.location, ir.InsertionPoint(op):
                call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(known[key]), list(op.operands))
            for old, new in zip(op.results, call.results):
                old.replace_all_uses_with(new)
            op.erase()
    return len(found)
