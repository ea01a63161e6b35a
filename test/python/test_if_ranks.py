"""An If whose run-time condition picks between ranks takes the one rank the rest of the graph can.

TorchScript's `x.squeeze(-1)` on a dynamic size is `If(Shape(x)[-1] == 1, Squeeze(x, -1), x)`:
ranks 2 and 3, decided at run time. A Gemm downstream takes rank 2 only, so the then branch is
the only one a valid run takes (Silero VAD: an LSTMCell after such a squeeze). The importer gives
the If's output that rank (`importer/if_ranks.py`), the conversion inlines that branch after a
run-time check of the condition, and a run that would need the other branch fails the check on
Linalg and StableHLO (a `cf.assert` there, which both consumers run); TOSA cannot check it and
refuses. An If whose two ranks both suit the graph still fails with the way out.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.importer.shape_inference import infer_types
from onnx_torch_mlir.runtime.iree import compile_with_iree

WEIGHT = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


def _ints(name: str, values) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64), name))


def _squeeze_if(x: str, out: str, prefix: str, negated: bool = False) -> list:
    """`out = x.squeeze(-1)` as TorchScript exports it on a dynamic size (`negated`: the condition is
    `size != 1`, the branches swapped)."""
    then_branch = helper.make_graph(
        [_ints(prefix + "axis", [-1]), helper.make_node("Squeeze", [x, prefix + "axis"], [prefix + "squeezed"])],
        prefix + "then", [], [helper.make_tensor_value_info(prefix + "squeezed", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", [x], [prefix + "kept"])],
        prefix + "else", [], [helper.make_tensor_value_info(prefix + "kept", TensorProto.FLOAT, None)],
    )
    return [
        _ints(prefix + "last", [-1]), _ints(prefix + "one", [1]),
        helper.make_node("Shape", [x], [prefix + "dims"]),
        helper.make_node("Gather", [prefix + "dims", prefix + "last"], [prefix + "size"]),
        helper.make_node("Equal", [prefix + "size", prefix + "one"], [prefix + "same"]),
        helper.make_node("Not" if negated else "Identity", [prefix + "same"], [prefix + "cond"]),
        helper.make_node("If", [prefix + "cond"], [out], then_branch=else_branch if negated else then_branch,
                         else_branch=then_branch if negated else else_branch),
    ]


def _model(after: str = "Gemm", negated: bool = False) -> onnx.ModelProto:
    weight = numpy_helper.from_array(WEIGHT, "w")
    tail = helper.make_node("Gemm", ["chosen", "w"], ["z"]) if after == "Gemm" else helper.make_node("Relu", ["chosen"], ["z"])
    graph = helper.make_graph(
        _squeeze_if("x", "chosen", "", negated) + [tail], "if_ranks",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, "t"])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], initializer=[weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _nested_model() -> onnx.ModelProto:
    """Silero's form: the squeeze If and its Gemm inside both branches of an If on an input."""
    branches = []
    for name, scale in (("sixteen", 1.0), ("eight", -1.0)):
        nodes = _squeeze_if("x", name + "_chosen", name + "_") + [
            helper.make_node("Gemm", [name + "_chosen", "w"], [name + "_z"], alpha=scale)]
        branches.append(helper.make_graph(
            nodes, name, [], [helper.make_tensor_value_info(name + "_z", TensorProto.FLOAT, None)]))
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["z"], then_branch=branches[0], else_branch=branches[1])], "nested",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, "t"]),
         helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(WEIGHT, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _expected(model: onnx.ModelProto, feeds: dict) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _x(t: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((2, 4, t)).astype(np.float32)


def test_the_if_gets_the_rank_its_consumer_takes():
    typed = infer_types(_model(), "if_ranks")
    declared = {value.name: value.type.tensor_type.shape for value in typed.graph.value_info}
    assert len(declared["chosen"].dim) == 2
    assert [node.op_type for node in typed.graph.node].count("If") == 1  # the If stays: checked at run time


@pytest.mark.parametrize("negated", [False, True])
def test_linalg_runs_the_branch_and_checks_the_condition(negated):
    model = _model(negated=negated)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    outputs = runtime.run(module, [_x(1)])
    np.testing.assert_allclose(np.asarray(outputs[0]), _expected(model, {"x": _x(1)})[0], rtol=1e-6, atol=1e-6)
    untaken = "then_branch" if negated else "else_branch"
    with pytest.raises(Exception, match=f"the condition selects {untaken}"):
        runtime.run(module, [_x(3)])  # onnxruntime fails too: its Gemm gets rank 3


def test_iree_runs_the_branch():
    outputs = compile_with_iree(onnx_torch_mlir.compile(_model(), "linalg-on-tensors"), "linalg-on-tensors")(_x(1))
    np.testing.assert_allclose(np.asarray(outputs[0]), _expected(_model(), {"x": _x(1)})[0], rtol=1e-6, atol=1e-6)


def test_nested_in_an_if_on_an_input():
    module = onnx_torch_mlir.compile(_nested_model(), "linalg-on-tensors")
    for flag in (True, False):
        feeds = {"x": _x(1), "flag": np.array(flag)}
        outputs = runtime.run(module, [feeds["x"], feeds["flag"]])
        np.testing.assert_allclose(np.asarray(outputs[0]), _expected(_nested_model(), feeds)[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("negated", [False, True])
def test_stablehlo_runs_the_branch_and_checks_the_condition(negated):
    """StableHLO has no assertion op: the check reaches both consumers as a `cf.assert`
    (transforms/stablehlo/run_time_checks.py), and the Squeeze of the run-time size is lowered (after
    its own check that the size is 1, which the If's check implies)."""
    model = _model(negated=negated)
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert str(module).count("cf.assert") == 2
    expected = _expected(model, {"x": _x(1)})[0]
    untaken = "then_branch" if negated else "else_branch"
    iree_program = compile_with_iree(module, "stablehlo")
    for run in (lambda x: runtime.run(module, [x], input_dialect="stablehlo"), iree_program):
        np.testing.assert_allclose(np.asarray(run(_x(1))[0]), expected, rtol=1e-6, atol=1e-6)
        with pytest.raises(Exception, match=f"the condition selects {untaken}"):
            run(_x(3))


def test_tosa_refuses():
    with pytest.raises(OnnxTorchMlirError, match="linalg-on-tensors and stablehlo can; fixing the dynamic dims"):
        onnx_torch_mlir.compile(_model(), "tosa")


def test_fixing_the_dim_decides_the_if_on_every_backend():
    module = onnx_torch_mlir.compile(_model(), "stablehlo", dims={"t": 1})
    outputs = runtime.run(module, [_x(1)], input_dialect="stablehlo")
    np.testing.assert_allclose(np.asarray(outputs[0]), _expected(_model(), {"x": _x(1)})[0], rtol=1e-6, atol=1e-6)


def test_both_ranks_valid_is_still_refused():
    with pytest.raises(OnnxTorchMlirError, match="different ranks"):
        onnx_torch_mlir.compile(_model(after="Relu"), "linalg-on-tensors")
