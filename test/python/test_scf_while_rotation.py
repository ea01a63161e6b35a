"""torch-mlir's while-loop form on Linalg becomes a guarded do-while (transforms/linalg/scf_while_rotation.py):
IREE's stream conversion fails on an `scf.while` whose before region tests an `i1` argument it
does not forward (the scripted-loop-torchscript model of the zoo). The rewrite on hand-written IR,
then while-like ONNX Loops compiled to Linalg and run on the reference runner and on IREE."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from torch_mlir import ir

import onnx_torch_mlir
import onnx_torch_mlir.conversion  # noqa: F401 - before the transforms: the two import each other
from onnx_torch_mlir import runtime
from onnx_torch_mlir.mlir_context import make_context
from onnx_torch_mlir.transforms.linalg.scf_while_rotation import rotate_while_loops  # noqa: E402
from onnxruntime_reference import assert_matches, expected

# The while form `convert-torch-to-scf` writes: the condition first among the before region's
# arguments, the others forwarded in order; an inner loop of the same form in the body.
WHILE_FORM = """
func.func @f(%x: tensor<4xf32>, %c: i1, %n: i64) -> (tensor<4xf32>, i64) {
  %r:2 = scf.while (%a = %c, %t = %x, %k = %n) : (i1, tensor<4xf32>, i64) -> (tensor<4xf32>, i64) {
    scf.condition(%a) %t, %k : tensor<4xf32>, i64
  } do {
  ^bb0(%t: tensor<4xf32>, %k: i64):
    %c0 = arith.constant 0 : index
    %e = tensor.extract %t[%c0] : tensor<4xf32>
    %zero = arith.constant 0.0 : f32
    %more = arith.cmpf ogt, %e, %zero : f32
    %inner = scf.while (%b = %more, %u = %e) : (i1, f32) -> f32 {
      scf.condition(%b) %u : f32
    } do {
    ^bb0(%u: f32):
      %h = arith.negf %u : f32
      %again = arith.cmpf ogt, %h, %zero : f32
      scf.yield %again, %h : i1, f32
    }
    %z = tensor.insert %inner into %t[%c0] : tensor<4xf32>
    %one = arith.constant 1 : i64
    %k1 = arith.addi %k, %one : i64
    scf.yield %more, %z, %k1 : i1, tensor<4xf32>, i64
  }
  return %r#0, %r#1 : tensor<4xf32>, i64
}
"""

# Forms left alone: a before region that computes (the do-while form itself), and one whose
# condition is also forwarded.
OTHER_FORMS = """
func.func @g(%x: f32, %c: i1) -> (f32, i1, f32) {
  %r = scf.while (%u = %x) : (f32) -> f32 {
    %h = arith.negf %u : f32
    %zero = arith.constant 0.0 : f32
    %more = arith.cmpf ogt, %h, %zero : f32
    scf.condition(%more) %h : f32
  } do {
  ^bb0(%u: f32):
    scf.yield %u : f32
  }
  %s:2 = scf.while (%a = %c, %u = %x) : (i1, f32) -> (i1, f32) {
    scf.condition(%a) %a, %u : i1, f32
  } do {
  ^bb0(%a: i1, %u: f32):
    %h = arith.negf %u : f32
    %zero = arith.constant 0.0 : f32
    %more = arith.cmpf ogt, %h, %zero : f32
    scf.yield %more, %h : i1, f32
  }
  return %r, %s#0, %s#1 : f32, i1, f32
}
"""


def _rotated(source: str) -> tuple[int, str]:
    with make_context():
        module = ir.Module.parse(source)
        count = rotate_while_loops(module)
        assert module.operation.verify()
        return count, str(module)


def test_while_form_becomes_guarded_do_while():
    count, text = _rotated(WHILE_FORM)
    assert count == 2
    lines = [line.strip() for line in text.splitlines()]
    # The outer loop: guarded by the initial condition, its body now the before region, testing
    # the next condition; the after region only forwards; the else branch yields the initial values.
    assert lines[1].startswith("func.func @f(%arg0: tensor<4xf32>, %arg1: i1, %arg2: i64)")
    assert lines[2] == "%0:2 = scf.if %arg1 -> (tensor<4xf32>, i64) {"
    assert lines[3] == "%1:2 = scf.while (%arg3 = %arg0, %arg4 = %arg2) : (tensor<4xf32>, i64) -> (tensor<4xf32>, i64) {"
    assert "scf.condition(%2) %inserted, %4 : tensor<4xf32>, i64" in lines
    assert "^bb0(%arg3: tensor<4xf32>, %arg4: i64):" in lines
    assert "scf.yield %arg3, %arg4 : tensor<4xf32>, i64" in lines
    assert "scf.yield %1#0, %1#1 : tensor<4xf32>, i64" in lines
    assert "scf.yield %arg0, %arg2 : tensor<4xf32>, i64" in lines
    assert "return %0#0, %0#1 : tensor<4xf32>, i64" in lines
    # The inner loop the same way, on its own initial condition.
    assert "%3 = scf.if %2 -> (f32) {" in lines
    assert "scf.condition(%7) %6 : f32" in lines
    assert "scf.yield %extracted : f32" in lines  # its else branch: the initial value
    # No loop tests a before-region argument any more.
    assert not any(line.startswith("scf.condition(%arg") for line in lines)


def test_other_while_forms_are_left_alone():
    count, text = _rotated(OTHER_FORMS)
    assert count == 0
    assert "scf.if" not in text and text.count("scf.while") == 2


FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _constant(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value), name))


def halving_loop(trip_count: bool, rows):
    """What torch.jit.script exports for `while x.abs().max() >= 1: x = x * 0.5; steps += 1`: an ONNX
    Loop whose condition is carried (with the exporter's INT64_MAX trip count, or none)."""
    info = helper.make_tensor_value_info
    body = helper.make_graph(
        [_constant("half", np.float32(0.5)), helper.make_node("Mul", ["x_in", "half"], ["x_out"]),
         _constant("one", np.int64(1)), helper.make_node("Add", ["steps_in", "one"], ["steps_out"]),
         helper.make_node("Abs", ["x_out"], ["magnitude"]),
         helper.make_node("ReduceMax", ["magnitude"], ["largest"], keepdims=0),
         _constant("limit", np.float32(1.0)), helper.make_node("GreaterOrEqual", ["largest", "limit"], ["cond_out"])],
        "body",
        [info("i", INT64, []), info("cond_in", BOOL, []), info("x_in", FLOAT, [rows, 3]), info("steps_in", INT64, [])],
        [info("cond_out", BOOL, []), info("x_out", FLOAT, [rows, 3]), info("steps_out", INT64, [])],
    )
    nodes = [_constant("zero", np.int64(0)), _constant("limit0", np.float32(1.0)),
             helper.make_node("Abs", ["x"], ["magnitude0"]),
             helper.make_node("ReduceMax", ["magnitude0"], ["largest0"], keepdims=0),
             helper.make_node("GreaterOrEqual", ["largest0", "limit0"], ["cond0"]),
             helper.make_node("Loop", ["max_trips" if trip_count else "", "cond0", "x", "zero"], ["y", "steps"],
                              body=body)]
    if trip_count:
        nodes.insert(0, _constant("max_trips", np.int64(2**63 - 1)))
    graph = helper.make_graph(nodes, "halving", [info("x", FLOAT, [rows, 3])],
                              [info("y", FLOAT, [rows, 3]), info("steps", INT64, [])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


X = (np.random.default_rng(3).standard_normal((4, 3)) * 40).astype(np.float32)
SMALL = X / (2 * np.abs(X).max())  # the initial condition is false: no iteration


# Each form failed in IREE's stream conversion before the rewrite ("failed to legalize unresolved
# target materialization from ('i1') to ('!stream.resource<*>', 'index')").
@pytest.mark.parametrize("trip_count", [True, False], ids=["trip-count-and-condition", "condition-only"])
@pytest.mark.parametrize("rows", ["N", 4], ids=["dynamic", "static"])
def test_while_like_loop_matches_onnxruntime_on_both_consumers(trip_count, rows):
    model = halving_loop(trip_count, rows)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "scf.if" in str(module)  # the guarded do-while
    iree = pytest.importorskip("onnx_torch_mlir.runtime.iree")
    on_iree = iree.compile_with_iree(module, "linalg-on-tensors")
    for x in (X, SMALL):
        wanted = expected(model, [x])
        assert_matches(runtime.run(module, [x]), wanted)
        assert_matches(on_iree(x), wanted)
    assert expected(model, [SMALL])[1] == 0 and expected(model, [X])[1] > 3
