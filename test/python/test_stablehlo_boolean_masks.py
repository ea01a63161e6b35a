"""A boolean mask cast to float and multiplied (tf2onnx's SelectV2: `mask * new + not(mask) * old`)
on StableHLO is `select(mask, 1, 0)`, not a `stablehlo.convert`: IREE 3.13's preprocessing rewrites
a multiply by a boolean convert as a select on a convert back to i1, which its input conversion
fails on once the mask came through a reshape ("failed to legalize unresolved source
materialization from ('tensor<3x1xf32>') to ('tensor<3x1xi1>')"; wild model tf2onnx-keras-lstm-gru
with dims fixed). `transforms/stablehlo/boolean_masks.py`."""

from __future__ import annotations

import re

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnxruntime_reference import assert_matches, expected

FLOAT, BOOL = TensorProto.FLOAT, TensorProto.BOOL


def masked_update(batch="batch"):
    """The smallest form IREE failed on: a [batch, 1] mask read from [steps, batch, 1] (Gather),
    cast, and used in two blends `mask * x + not(mask) * zeros` (the LSTM's h and c)."""
    nodes = [
        helper.make_node("Constant", [], ["step"], value=numpy_helper.from_array(np.array(0, np.int64))),
        helper.make_node("Gather", ["masks", "step"], ["mask"]),
        helper.make_node("Not", ["mask"], ["kept"]),
        helper.make_node("Cast", ["kept"], ["kept_f"], to=FLOAT),
        helper.make_node("Mul", ["zeros", "kept_f"], ["old"]),
        helper.make_node("Cast", ["mask"], ["mask_f"], to=FLOAT),
        helper.make_node("Mul", ["mask_f", "x"], ["new_x"]),
        helper.make_node("Add", ["new_x", "old"], ["h"]),
        helper.make_node("Mul", ["mask_f", "y"], ["new_y"]),
        helper.make_node("Add", ["new_y", "old"], ["c"]),
    ]
    graph = helper.make_graph(
        nodes, "masked_update",
        [helper.make_tensor_value_info("masks", BOOL, [2, batch, 1]),
         helper.make_tensor_value_info("x", FLOAT, [batch, 24]),
         helper.make_tensor_value_info("y", FLOAT, [batch, 24]),
         helper.make_tensor_value_info("zeros", FLOAT, [batch, 24])],
        [helper.make_tensor_value_info("h", FLOAT, [batch, 24]), helper.make_tensor_value_info("c", FLOAT, [batch, 24])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], ir_version=8)
    rng = np.random.default_rng(0)
    arrays = [np.array([[[True], [False], [True]], [[False], [True], [True]]]), *(rng.standard_normal((3, 24)).astype(np.float32) for _ in range(2)),
              np.zeros((3, 24), np.float32)]
    arrays[3][1, 0] = np.nan  # NaN * 0 stays NaN: the product is kept, only the convert goes
    return model, arrays


@pytest.mark.parametrize("batch", [3, "batch"], ids=["static", "dynamic"])
def test_boolean_mask_is_a_select_and_iree_compiles_it(batch):
    model, arrays = masked_update(batch)
    module = onnx_torch_mlir.compile(model, "stablehlo")
    text = str(module)
    assert "stablehlo.select" in text and not re.search(r"stablehlo\.convert [^\n]*i1>\) -> tensor<[^>]*f32>", text)
    wanted = expected(model, arrays)
    assert_matches(runtime.run(module, arrays, input_dialect="stablehlo"), wanted)
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    assert_matches(iree.compile_with_iree(module, "stablehlo")(*arrays), wanted)


# The smallest StableHLO IREE 3.13 fails on ("failed to legalize unresolved source materialization
# from ('tensor<3x1xf32>') to ('tensor<3x1xi1>')"): torch-mlir's form of the blends above after a
# mask read through a reshape. The step rewrites it into a form IREE compiles.
REPRODUCER = """
func.func @main(%a: tensor<1x3x1xi1>, %x: tensor<3x24xf32>, %y: tensor<3x24xf32>) -> (tensor<3x24xf32>, tensor<3x24xf32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<3x24xf32>
  %r = stablehlo.reshape %a : (tensor<1x3x1xi1>) -> tensor<3x1xi1>
  %n = stablehlo.not %r : tensor<3x1xi1>
  %nf = stablehlo.convert %n : (tensor<3x1xi1>) -> tensor<3x1xf32>
  %nb = stablehlo.broadcast_in_dim %nf, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x24xf32>
  %kept = stablehlo.multiply %nb, %zero : tensor<3x24xf32>
  %f = stablehlo.convert %r : (tensor<3x1xi1>) -> tensor<3x1xf32>
  %b = stablehlo.broadcast_in_dim %f, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x24xf32>
  %mx = stablehlo.multiply %b, %x : tensor<3x24xf32>
  %sx = stablehlo.add %mx, %kept : tensor<3x24xf32>
  %my = stablehlo.multiply %b, %y : tensor<3x24xf32>
  %sy = stablehlo.add %my, %kept : tensor<3x24xf32>
  return %sx, %sy : tensor<3x24xf32>, tensor<3x24xf32>
}
"""


def test_iree_compiles_the_reproducer_once_rewritten():
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    from torch_mlir import ir

    from onnx_torch_mlir.transforms.stablehlo.boolean_masks import boolean_masks_as_selects
    from onnx_torch_mlir.transforms.torch.custom_ops import load_backend_dialects

    with ir.Context() as context:
        load_backend_dialects(context)
        module = ir.Module.parse(REPRODUCER)
        assert boolean_masks_as_selects(module) == 2
        text = str(module)
    mask = np.array([[[True], [False], [True]]])
    x, y = (np.random.default_rng(seed).standard_normal((3, 24)).astype(np.float32) for seed in (1, 2))
    blended = iree.compile_with_iree(text, "stablehlo")(mask, x, y)
    assert_matches(blended, [np.where(mask[0], x, 0), np.where(mask[0], y, 0)])
