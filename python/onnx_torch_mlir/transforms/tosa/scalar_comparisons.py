"""Comparisons of a float tensor with a number, as comparisons with a literal of the tensor's type.

torch-mlir's TOSA lowering of `aten.{eq,ne,lt,le,gt,ge}.Scalar` on a float tensor casts the tensor to
float64 and compares it with the number rounded to the tensor's type and widened to float64. TOSA
with float64 is valid for no TOSA profile and IREE refuses it ("not profile-aligned: element type
'f64'"); most such comparisons come from torch-mlir's own decompositions (`isinf`, `where` masks,
grid sampling's bounds). Widening both sides is exact, so comparing the tensor with a rank-0 literal
of its own type holding the rounded number (`aten.*.Tensor`, broadcast) gives the same answers, as
torch does (it casts a Python number to the tensor's dtype).
"""

from __future__ import annotations

from torch_mlir import ir

from ..torch.rewriting import TorchOpBuilder, defining_op, ops_named

_COMPARISONS = {f"torch.aten.{name}.Scalar": f"torch.aten.{name}.Tensor" for name in ("eq", "ne", "lt", "le", "gt", "ge")}


def compare_with_literals(module: ir.Module) -> int:
    """Rewrite the comparisons the module docstring describes; the count rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, set(_COMPARISONS)):
            rewritten += _rewrite(operation)
    return rewritten


def _element(value: ir.Value) -> str | None:
    spelling = str(value.type)
    if not spelling.startswith("!torch.vtensor<"):
        return None
    return spelling.rsplit(",", 1)[-1].rstrip(">")


def _number(value: ir.Value) -> float | None:
    producer = defining_op(value)
    if producer is None or producer.name not in ("torch.constant.float", "torch.constant.int"):
        return None
    attribute = producer.attributes["value"]
    return float(ir.FloatAttr(attribute).value) if producer.name == "torch.constant.float" else int(ir.IntegerAttr(attribute).value)


def _rewrite(operation: ir.Operation) -> int:
    tensor, scalar = operation.operands[0], operation.operands[1]
    element = _element(tensor)
    number = _number(scalar)
    if element not in ("f32", "f16", "bf16") or number is None:
        return 0
    builder = TorchOpBuilder(operation)
    with operation.location:
        literal = builder.scalar_tensor(number, element)
        replacement = builder.op(_COMPARISONS[operation.name], str(operation.results[0].type), [tensor, literal])
    operation.results[0].replace_all_uses_with(replacement)
    operation.erase()
    return 1
