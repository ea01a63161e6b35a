"""Loop forms IREE (3.13) compiles, and the reproducers of the ones it does not.

IREE raises a *counting* `stablehlo.while` (a counter compared with a bound in the condition
region, no carried flag) to an `scf.for`; every other while loop stays an `scf.while`, and its
stream conversion fails ("failed to legalize unresolved target materialization from ('index') to
('!stream.resource<*>', 'index')") when a carried tensor has a run-time dim that the body computes
from a value outside the loop, a different SSA value than the initial value's dim: an RNN's state,
whose batch dim is X's in the body and the initial state input's before the loop (older Silero
VAD). `transforms/torch/control_flow.py` therefore emits a for-like `torch.prim.Loop` as the
counting form, and `recurrent/tensor_loop.py` runs the time loop for-like with a Y buffer of its
final size (IREE's `scf.for` loses a carried tensor that grows). The same failure met
NonMaxSuppression's greedy loop on Linalg with a run-time box count and no limit (ultralytics'
`nms=True` exports): its picked boxes took the box count's dim before the loop and an si32
`arange`'s length (the count truncated to i32 and back) in the body; `detection.py` builds its
`arange`s in si64 now, whose length is the box count's own dim. When the reproducers compile,
those workarounds can go.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime.iree import IreeError, compile_with_iree
from onnxruntime_reference import assert_matches, expected

# The smallest reproducer: the state's dim is %h's before the loop and %x's in the body.
FLAGGED_WHILE = """
func.func @main(%x: tensor<?x4xf32>, %h: tensor<?x4xf32>, %n: tensor<i64>) -> tensor<?x4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %go = stablehlo.compare LT, %zero, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r:3 = stablehlo.while(%c = %go, %s = %h, %t = %zero) : tensor<i1>, tensor<?x4xf32>, tensor<i64>
  cond {
    stablehlo.return %c : tensor<i1>
  } do {
    %s2 = stablehlo.add %x, %s : tensor<?x4xf32>
    %t2 = stablehlo.add %t, %one : tensor<i64>
    %c2 = stablehlo.compare LT, %t2, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c2, %s2, %t2 : tensor<i1>, tensor<?x4xf32>, tensor<i64>
  }
  return %r#1 : tensor<?x4xf32>
}
"""

# The same loop in the counting form.
COUNTING_WHILE = """
func.func @main(%x: tensor<?x4xf32>, %h: tensor<?x4xf32>, %n: tensor<i64>) -> tensor<?x4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%t = %zero, %s = %h) : tensor<i64>, tensor<?x4xf32>
  cond {
    %c = stablehlo.compare LT, %t, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s2 = stablehlo.add %x, %s : tensor<?x4xf32>
    %t2 = stablehlo.add %t, %one : tensor<i64>
    stablehlo.return %t2, %s2 : tensor<i64>, tensor<?x4xf32>
  }
  return %r#1 : tensor<?x4xf32>
}
"""


def test_iree_rejects_a_while_whose_state_dim_the_body_takes_from_outside():
    with pytest.raises(IreeError, match="unresolved target materialization"):
        compile_with_iree(FLAGGED_WHILE, "stablehlo")


def test_iree_compiles_the_counting_while():
    x, h = np.ones((2, 4), np.float32), np.full((2, 4), 10, np.float32)
    (result,) = compile_with_iree(COUNTING_WHILE, "stablehlo")(x, h, np.array(3, np.int64))
    np.testing.assert_array_equal(result, h + 3 * x)


def lstm_with_initial_states(direction: str = "forward", seed: int = 0):
    """LSTM over a run-time length T and batch B whose initial states are inputs: in the loop body
    the states' batch dim is X's, before it the initial states' own."""
    hidden, features = 5, 3
    directions = 2 if direction == "bidirectional" else 1
    rng = np.random.default_rng(seed)
    weights = [
        numpy_helper.from_array(rng.standard_normal((directions, 4 * hidden, features)).astype(np.float32) * 0.5, "W"),
        numpy_helper.from_array(rng.standard_normal((directions, 4 * hidden, hidden)).astype(np.float32) * 0.5, "R"),
        numpy_helper.from_array(rng.standard_normal((directions, 8 * hidden)).astype(np.float32) * 0.1, "Bias"),
    ]
    node = helper.make_node("LSTM", ["x", "W", "R", "Bias", "", "h0", "c0"], ["y", "h", "c"], hidden_size=hidden,
                            direction=direction)
    state = ["D", "B2", hidden]
    graph = helper.make_graph(
        [node], "lstm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["T", "B", features]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, state),
         helper.make_tensor_value_info("c0", TensorProto.FLOAT, state)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["T", directions, "B", hidden]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [directions, "B", hidden]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [directions, "B", hidden])],
        initializer=weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    arrays = [rng.standard_normal((6, 2, features)).astype(np.float32),
              rng.standard_normal((directions, 2, hidden)).astype(np.float32),
              rng.standard_normal((directions, 2, hidden)).astype(np.float32)]
    return model, arrays


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_recurrent_loop_with_state_inputs_compiles_with_iree_on_stablehlo(direction):
    model, arrays = lstm_with_initial_states(direction)
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert "stablehlo.while" in str(module)
    assert_matches(compile_with_iree(module, "stablehlo")(*arrays), expected(model, arrays))


def nms_with_a_run_time_box_count_and_no_limit():
    """NonMaxSuppression of boxes [1, n, 4] and scores [1, 1, n], n a graph input's dim, with
    max_output_boxes_per_class int64's largest (ultralytics' and torchvision's exports): the greedy
    loop's steps, and the picked boxes it carries, are as many as the boxes."""
    graph = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "limit", "iou"], ["selected"])], "nms",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, "n", 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, "n"])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])],
        [numpy_helper.from_array(np.array([2**63 - 1], np.int64), "limit"),
         numpy_helper.from_array(np.array([0.5], np.float32), "iou")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_nms_with_a_run_time_box_count_and_no_limit_compiles_with_iree_on_linalg():
    model = nms_with_a_run_time_box_count_and_no_limit()
    program = compile_with_iree(onnx_torch_mlir.compile(model, "linalg-on-tensors"), "linalg-on-tensors")
    for count in (40, 7):  # one module, two box counts
        rng = np.random.default_rng(count)
        corner = rng.uniform(0, 100, (1, count, 2))
        boxes = np.concatenate([corner, corner + rng.uniform(10, 40, (1, count, 2))], axis=2).astype(np.float32)
        arrays = [boxes, rng.uniform(0, 1, (1, 1, count)).astype(np.float32)]
        assert_matches(program(*arrays), expected(model, arrays))
