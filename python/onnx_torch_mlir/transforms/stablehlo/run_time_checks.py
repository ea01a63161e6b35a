"""Run-time checks that a StableHLO program must keep, as `cf.assert` after torch-mlir's lowering.

StableHLO has no assertion op, torch-mlir's StableHLO lowering converts no `torch.runtime.assert`,
and its backend contract (`torch-verify-stablehlo-backend-contract`) rejects `cf`. So the route
drops the asserts torch-mlir's shape simplification adds (`torch/cleanup.py`). Some checks are
not of that kind: an If whose branches yield different ranks is compiled for the one branch the
rest of the graph takes (`conversion/onnx_to_torch/control_flow/branches.py`), and an input whose
condition selects the other would compute a wrong answer without its check. Such a check is
written as `torch.runtime.assert(aten.Bool.int(aten.item(ok)))` with `ok` a 0-d boolean tensor;
torch-mlir's simplification writes no assert of that form.

`run_time_checks_as_markers` (before torch-mlir's pipeline, before the other asserts are dropped)
replaces each with a marker that the pipeline carries through, as `transforms/torch/dynamic_rows.py`
does for TOSA:

    %t = torch_c.to_builtin_tensor %ok : !torch.vtensor<[],i1> -> tensor<i1>
    stablehlo.custom_call @onnx_torch_mlir.assert(%t) {has_side_effect = true, backend_config = "message"}

and `markers_as_asserts` (after the pipeline) makes each marker

    %b = tensor.extract %t[] : tensor<i1>
    cf.assert %b, "message"

Measured on the pinned wheels: both consumers take `cf.assert` in a StableHLO module (the reference
runner's `stablehlo-legalize-to-linalg` leaves it, and `runtime/assertions.py` reports it; IREE's
StableHLO input runs it on the host and fails the call with FAILED_PRECONDITION and the message).
The other forms are not checks there: IREE compiles and runs `stablehlo.custom_call
@shape_assertion` (JAX's form) without checking it, the reference runner refuses it, and IREE has
no lowering for `shape.cstr_require`. XLA takes none of these, but it compiles static signatures
only, and with static dims the importer decides such an If (no check is left).
"""

from torch_mlir import ir

from ..torch.custom_ops import builtin_tensor_type, load_backend_dialects
from ..torch.rewriting import defining_op, is_op, ops_named, vtensor_sizes

MARKER = "onnx_torch_mlir.assert"


def run_time_checks_as_markers(module: ir.Module) -> int:
    """Each `torch.runtime.assert` of a tensor (module docstring) as the marker custom call; the count."""
    load_backend_dialects(module.context)
    marked = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, ("torch.runtime.assert",)):
            ok = _checked_tensor(op.operands[0])
            if ok is None:
                continue
            builtin = ir.Operation.create("torch_c.to_builtin_tensor", results=[builtin_tensor_type(ok.type)],
                                          operands=[ok], loc=op.location, ip=ir.InsertionPoint(op)).results[0]
            ir.Operation.create("stablehlo.custom_call", results=[], operands=[builtin], attributes={
                "call_target_name": ir.StringAttr.get(MARKER),
                "has_side_effect": ir.BoolAttr.get(True),
                "backend_config": op.attributes["message"],
            }, loc=op.location, ip=ir.InsertionPoint(op))
            condition = defining_op(op.operands[0])
            op.erase()
            _erase_if_unused(condition)
            marked += 1
    return marked


def _checked_tensor(condition: ir.Value) -> ir.Value | None:
    """`ok` if `condition` is `aten.Bool.int(aten.item(ok))` with `ok` a 0-d boolean tensor; else None."""
    to_bool = defining_op(condition)
    if not is_op(to_bool, "torch.aten.Bool.int"):
        return None
    item = defining_op(to_bool.operands[0])
    if not is_op(item, "torch.aten.item"):
        return None
    ok = item.operands[0]
    return ok if vtensor_sizes(ok.type) == ([], "i1") else None


def _erase_if_unused(to_bool: ir.Operation) -> None:
    """The `aten.Bool.int` and `aten.item` that only the assert read (StableHLO lowers no `aten.item`)."""
    item = defining_op(to_bool.operands[0])
    for op in (to_bool, item):
        if list(op.results[0].uses):
            return
        op.erase()


def markers_as_asserts(module: ir.Module) -> int:
    """Each marker custom call as `tensor.extract` and `cf.assert` (module docstring); the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, ("stablehlo.custom_call",)):
            if ir.StringAttr(op.attributes["call_target_name"]).value != MARKER:
                continue
            ip = ir.InsertionPoint(op)
            ok = ir.Operation.create("tensor.extract", results=[ir.IntegerType.get_signless(1)],
                                     operands=[op.operands[0]], loc=op.location, ip=ip).results[0]
            ir.Operation.create("cf.assert", results=[], operands=[ok],
                                attributes={"msg": op.attributes["backend_config"]}, loc=op.location, ip=ip)
            op.erase()
            rewritten += 1
    return rewritten
