"""`erase-onnx-entry-point`: drop `"onnx.EntryPoint"() {func = @main_graph}`.

torch-mlir's backend contract has no such op; the entry function stays public.
"""

from __future__ import annotations

from torch_mlir import ir


def erase_onnx_entry_point(module_op: ir.Operation) -> None:
    body = module_op.regions[0].blocks[0]
    for op in list(body.operations):
        if op.operation.name == "onnx.EntryPoint":
            op.operation.erase()
