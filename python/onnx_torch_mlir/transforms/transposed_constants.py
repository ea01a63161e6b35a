"""Constant tensors transposed at compile time: what the channels-last steps of the Linalg and the
StableHLO routes (linalg/channels_last.py, stablehlo/channels_last.py) do to a filter whose bytes are
known, so that the consumer meets a filter already in its layout instead of a transpose to fold."""

from __future__ import annotations

import numpy as np
from torch_mlir import ir


def splat_like(attribute: ir.Attribute, type_: ir.RankedTensorType) -> ir.Attribute:
    """The splat `attribute`'s value as a splat of `type_`."""
    return ir.DenseElementsAttr.get_splat(type_, ir.DenseElementsAttr(attribute).get_splat_value())


def transposed_constant(attribute: ir.Attribute, type_: ir.RankedTensorType, permutation,
                        suffix: str = "channels_last") -> ir.Attribute | None:
    """`attribute`'s elements, read in the shape `type_` has before `permutation`, transposed (result
    axis i is source axis permutation[i]); None when they cannot be read here. Literal elements stay
    literal; an importer weight (`dense_resource`) becomes one named after it (`NAME_<suffix>`)."""
    from ..importer.tensors import resource_bytes, resource_like

    source_shape = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        source_shape[axis] = type_.shape[position]
    attribute = attribute.maybe_downcast() if hasattr(attribute, "maybe_downcast") else attribute
    if isinstance(attribute, ir.DenseElementsAttr):
        if ir.DenseElementsAttr(attribute).is_splat:
            return splat_like(attribute, type_)
        if not isinstance(attribute, (ir.DenseFPElementsAttr, ir.DenseIntElementsAttr)):
            return None
        try:
            values = np.array(attribute).reshape(source_shape)
        except (TypeError, ValueError):  # an element type numpy's buffer protocol does not carry
            return None
        return ir.DenseElementsAttr.get(np.ascontiguousarray(values.transpose(permutation)),
                                        type=type_.element_type, shape=list(type_.shape))
    data = resource_bytes(attribute)
    width = _element_width(type_.element_type)
    if data is None or width not in (8, 16, 32, 64):
        return None
    values = np.frombuffer(data, dtype=np.dtype(f"uint{width}")).reshape(source_shape)
    name = str(attribute).partition(" : ")[0].removeprefix("dense_resource<").removesuffix(">")
    return resource_like(np.ascontiguousarray(values.transpose(permutation)), f"{name}_{suffix}", type_)


def _element_width(element: ir.Type) -> int | None:
    element = element.maybe_downcast() if hasattr(element, "maybe_downcast") else element
    if isinstance(element, (ir.FloatType, ir.IntegerType)):
        return element.width
    return None


def matrix_rows(matrix: ir.Value, user: ir.Operation, transpose: str, constants: tuple[str, ...],
                new_constant: str) -> ir.Value | None:
    """The `[N, K]` matrix whose transpose is the 2-D `matrix` (`[K, N]`), read by `user`: the input of
    a `transpose` op (named so in the backend's dialect) with permutation [1, 0], or a constant (one of
    `constants`) whose elements are transposed here into a `new_constant` op before `user`; None for
    anything else (a run-time transpose would cost what it saves)."""
    from .torch.rewriting import defining_op

    owner = defining_op(matrix)
    if owner is None:
        return None
    if owner.name == transpose and list(ir.DenseI64ArrayAttr(owner.attributes["permutation"])) == [1, 0]:
        return owner.operands[0]
    if owner.name not in constants:
        return None
    depth, features = matrix.type.shape
    rows_type = ir.RankedTensorType.get([features, depth], matrix.type.element_type)
    attribute = transposed_constant(owner.attributes["value"], rows_type, [1, 0], "rows")
    if attribute is None:
        return None
    return ir.Operation.create(new_constant, results=[rows_type], attributes={"value": attribute},
                               loc=user.location, ip=ir.InsertionPoint(user)).result
