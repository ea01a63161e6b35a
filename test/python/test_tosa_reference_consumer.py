"""Arm's TOSA reference model as a consumer of our TOSA (runtime/tosa_reference.py): the module
serialized to the TOSA flatbuffer by tosa-tools' tosa-opt, validated against the profiles and
extensions it needs, run on .npy files; and the forms of our TOSA output the specification asks for
(transforms/tosa/integer_powers.py, tosa_constants.py, tosa_isolated_conditionals.py), with the
numbers on the reference model, our reference runner and IREE against onnxruntime."""

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import tosa_reference

try:
    tosa_reference.tool_path("tosa_reference_model")
except tosa_reference.TosaReferenceError as error:
    pytest.skip(str(error), allow_module_level=True)

from onnx_torch_mlir.runtime.tosa_reference import TosaReferenceError, compile_with_tosa_reference  # noqa: E402
from onnx_torch_mlir.transforms.tosa.constants import tensor_constants_as_tosa_const  # noqa: E402
from onnx_torch_mlir.transforms.tosa.integer_powers import integer_powers_as_products  # noqa: E402
from onnx_torch_mlir.transforms.tosa.isolated_conditionals import isolate_conditionals  # noqa: E402

from consumers import program  # noqa: E402
from onnxruntime_reference import expected  # noqa: E402

F = TensorProto.FLOAT


def _model(nodes, inputs, outputs, initializers=(), name="graph"):
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, list(initializers)),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _tosa(model):
    """Our TOSA for `model`, with the rewrites of this change where the TOSA route will run them:
    after torch-mlir's TOSA pipeline, after isolate_while_loops (they are idempotent, so this holds
    once the route runs them too)."""
    module = onnx_torch_mlir.compile(model, output_type="tosa")
    integer_powers_as_products(module)
    isolate_conditionals(module)
    tensor_constants_as_tosa_const(module)
    return module


def _parse(text):
    """A TOSA module written by hand: the forms the rewrites change, as torch-mlir's TOSA pipeline
    leaves them (so these tests keep their "before" when the route runs the rewrites itself)."""
    from onnx_torch_mlir.runtime import lowering
    from torch_mlir import ir

    with lowering.runner_context():
        return ir.Module.parse(text)


_POW_OF_A_NEGATIVE_BASE = """
func.func @cube(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %cube = tosa.pow %x, %three : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  return %cube : tensor<2x8xf32>
}
"""

_COND_IF_READING_FROM_OUTSIDE = """
func.func @chosen(%c: tensor<i1>, %x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = "tosa.const"() <{values = dense<1.5> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.cond_if %c : tensor<i1> -> tensor<2x3xf32> {
    %t = tosa.add %x, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    tosa.yield %t : tensor<2x3xf32>
  } else {
    %e = tosa.mul %x, %x, %shift : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
    tosa.yield %e : tensor<2x3xf32>
  }
  return %y : tensor<2x3xf32>
}
"""


def _check_consumers(model, module, arrays, consumers=("tosa-reference", "reference", "iree"), rtol=1e-5, atol=1e-5):
    want = expected(model, arrays)
    for consumer in consumers:
        run = compile_with_tosa_reference(module) if consumer == "tosa-reference" else program(module, "tosa", consumer)
        got = run(*arrays)
        assert len(got) == len(want), consumer
        for value, wanted in zip(got, want):
            assert np.asarray(value).shape == wanted.shape, consumer
            np.testing.assert_allclose(value, wanted, rtol=rtol, atol=atol, err_msg=consumer)


def _powers_model():
    """GPT-2's tanh GELU (x^3), an RMS norm's x^2, x^-2, x^0 and x^0.5 of |x|, on negative bases."""
    exponents = {"three": 3.0, "two": 2.0, "minus_two": -2.0, "zero": 0.0, "five": 5.0}
    nodes, initializers = [], []
    for name, value in exponents.items():
        initializers.append(numpy_helper.from_array(np.array(value, np.float32), f"e_{name}"))
        nodes.append(helper.make_node("Pow", ["x", f"e_{name}"], [f"p_{name}"]))
    initializers.append(numpy_helper.from_array(np.array(0.5, np.float32), "e_half"))
    nodes += [helper.make_node("Abs", ["x"], ["magnitude"]), helper.make_node("Pow", ["magnitude", "e_half"], ["p_half"])]
    outputs = [helper.make_tensor_value_info(f"p_{name}", F, [2, 8]) for name in [*exponents, "half"]]
    return _model(nodes, [helper.make_tensor_value_info("x", F, [2, 8])], outputs, initializers)


def _negative_and_positive():
    return np.linspace(-3, 3, 16, dtype=np.float32).reshape(2, 8) + 0.1


def test_pow_of_a_negative_base_stops_the_reference_model_without_the_rewrite():
    module = _parse(_POW_OF_A_NEGATIVE_BASE)
    with pytest.raises(TosaReferenceError, match=r"^TOSA reference model: REQUIRE\(\) fails .*ewise_binary.*\(x >= 0\)"):
        compile_with_tosa_reference(module)(_negative_and_positive())
    integer_powers_as_products(module)
    assert "tosa.pow" not in str(module)
    x = _negative_and_positive()
    np.testing.assert_allclose(compile_with_tosa_reference(module)(x)[0], x ** 3, rtol=1e-6)


def test_whole_number_powers_are_products_on_every_consumer():
    model = _powers_model()
    module = _tosa(model)
    text = str(module)
    assert text.count("tosa.pow") == 1  # only x^0.5 keeps its pow (of a base >= 0)
    assert "tosa.reciprocal" in text
    _check_consumers(model, module, [_negative_and_positive()])


def test_tensor_arith_constants_are_serialized_as_tosa_const():
    """torch-mlir's TOSA pipeline leaves a Shape's value and a ViT-like embedding an arith.constant,
    which the serializer cannot write."""
    embedding = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(1, 2, 3), "embedding")
    model = _model([helper.make_node("Shape", ["x"], ["shape"]),
                    helper.make_node("Concat", ["embedding", "x"], ["joined"], axis=1)],
                   [helper.make_tensor_value_info("x", F, [1, 2, 3])],
                   [helper.make_tensor_value_info("shape", TensorProto.INT64, [3]),
                    helper.make_tensor_value_info("joined", F, [1, 4, 3])], [embedding])
    by_hand = _parse("""
func.func @joined(%x: tensor<1x2x3xf32>) -> tensor<1x4x3xf32> {
  %embedding = arith.constant dense<2.5> : tensor<1x2x3xf32>
  %joined = tosa.concat %embedding, %x {axis = 1 : i32} : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x4x3xf32>
  return %joined : tensor<1x4x3xf32>
}
""")
    for validate in (True, False):
        with pytest.raises(TosaReferenceError, match=r"^TOSA (validate|serialize)\b.*\barith\b"):
            compile_with_tosa_reference(by_hand, validate=validate)
    tensor_constants_as_tosa_const(by_hand)
    assert compile_with_tosa_reference(by_hand)(np.ones((1, 2, 3), np.float32))[0][0, :, 0].tolist() == [2.5, 2.5, 1, 1]
    module = _tosa(model)
    assert "arith.constant" not in str(module)
    _check_consumers(model, module, [np.ones((1, 2, 3), np.float32)])


def _if_model():
    """An If whose branches give different shapes (a cond_if, not a select) and read the graph's x
    and a weight from outside."""
    weight = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    then = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", F, [2, 3])])
    otherwise = helper.make_graph([helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], "else", [],
                                  [helper.make_tensor_value_info("e", F, [4, 3])])
    return _model([helper.make_node("If", ["c"], ["chosen"], then_branch=then, else_branch=otherwise),
                   helper.make_node("ReduceSum", ["chosen"], ["y"], keepdims=0)],
                  [helper.make_tensor_value_info("c", TensorProto.BOOL, []), helper.make_tensor_value_info("x", F, [2, 3])],
                  [helper.make_tensor_value_info("y", F, [])], [weight])


def test_cond_if_branches_are_isolated_from_above():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import tosa_validation

    by_hand = _parse(_COND_IF_READING_FROM_OUTSIDE)
    assert "isolated from above" in (tosa_validation.validation_error(by_hand) or "")
    isolate_conditionals(by_hand)
    assert tosa_validation.validation_error(by_hand) is None
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    for condition, want in ((True, x + 1.5), (False, x * x)):
        for run in (compile_with_tosa_reference(by_hand), program(by_hand, "tosa", "reference")):
            np.testing.assert_allclose(run(np.array(condition), x)[0], want, rtol=1e-6)
    model = _if_model()
    module = _tosa(model)
    assert tosa_validation.validation_error(module) is None
    for condition in (True, False):
        _check_consumers(model, module, [np.array(condition), x], consumers=("reference", "iree"))
    # Serialized now; the reference model then holds the If to the specification, whose branches
    # give the op's own shape: this If's branches give two shapes.
    with pytest.raises(TosaReferenceError, match=r"^TOSA reference model: ERROR_IF\(\) fails .*then_block_output"):
        compile_with_tosa_reference(module)(np.array(True), x)


def test_every_graph_input_and_output_is_kept():
    """An unused input, an input returned as it is, a value returned twice, an int64 output."""
    model = _model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Identity", ["y"], ["y_again"]),
                    helper.make_node("Add", ["ids", "ids"], ["twice"])],
                   [helper.make_tensor_value_info("unused", F, [4]), helper.make_tensor_value_info("x", F, [2, 3]),
                    helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
                   [helper.make_tensor_value_info("y", F, [2, 3]), helper.make_tensor_value_info("x", F, [2, 3]),
                    helper.make_tensor_value_info("y_again", F, [2, 3]),
                    helper.make_tensor_value_info("twice", TensorProto.INT64, [3])])
    arrays = [np.zeros(4, np.float32), np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3),
              np.array([1, -2, 2**40], np.int64)]
    _check_consumers(model, _tosa(model), arrays, consumers=("tosa-reference",))


def test_required_target_and_validation_errors():
    # an integer Pow runs in float64 on purpose (exact), which TOSA cannot hold (transforms/tosa/float64.py)
    model = _model([helper.make_node("Pow", ["x", "e"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.INT32, [2]), helper.make_tensor_value_info("e", TensorProto.INT32, [2])],
                   [helper.make_tensor_value_info("y", TensorProto.INT32, [2])])
    with pytest.raises(TosaReferenceError, match=r"^TOSA validate \(specification_version=1.0 profiles=pro_int level=none\): "
                                                 r".*'f64' is not legal"):
        compile_with_tosa_reference(_tosa(model))
    module = _tosa(_if_model())
    assert tosa_reference.required_target(module) == "specification_version=1.0 profiles=pro_fp extensions=controlflow level=none"
    ids = _model([helper.make_node("Add", ["ids", "ids"], ["y"])], [helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
                 [helper.make_tensor_value_info("y", TensorProto.INT64, [3])])
    assert tosa_reference.required_target(_tosa(ids)) == \
        "specification_version=1.1.draft profiles=pro_fp extensions=int64 level=none"


def test_dynamic_dims_are_refused_with_the_dim_hint():
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [helper.make_tensor_value_info("x", F, ["batch", 3])],
                   [helper.make_tensor_value_info("y", F, ["batch", 3])])
    with pytest.raises(TosaReferenceError, match=r"^TOSA serialize: .*dynamic dims.*--dim NAME=SIZE"):
        compile_with_tosa_reference(_tosa(model))
    module = onnx_torch_mlir.compile(model, output_type="tosa", dims={"batch": 2})
    _check_consumers(model, module, [np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)], consumers=("tosa-reference",))


def test_the_zoo_harness_has_the_consumer_for_tosa_only():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
    import zoo_report
    import zoo_worker

    assert "tosa-reference" in zoo_report.consumers_of("tosa")
    assert "tosa-reference" not in zoo_report.consumers_of("linalg-on-tensors")
    assert "tosa-reference" not in zoo_report.consumers_of("stablehlo")
    make_program, unavailable = zoo_worker._load_consumer("tosa-reference", "tosa")
    assert unavailable is None and make_program is compile_with_tosa_reference


def test_vela_compiles_an_int8_graph_of_ours_and_refuses_a_float_one(tmp_path):
    """Vela 5.2 takes TOSA's integer profile only (docs/consumers-tosa.md)."""
    import shutil
    import subprocess

    vela = shutil.which("vela") or str(Path(sys.executable).parent / "vela")
    if not Path(vela).is_file():
        pytest.skip("ethos-u-vela is not installed")
    int8 = _model([helper.make_node("MaxPool", ["x"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
                   helper.make_node("Transpose", ["pooled"], ["y"], perm=[0, 2, 3, 1])],
                  [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 4, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 4, 4, 4])])
    floats = _model([helper.make_node("Relu", ["x"], ["y"])], [helper.make_tensor_value_info("x", F, [1, 4, 8, 8])],
                    [helper.make_tensor_value_info("y", F, [1, 4, 8, 8])])
    for name, model in (("int8", int8), ("floats", floats)):
        tosa_reference.serialize(_tosa(model), tmp_path / f"{name}.tosa")
    compiled = subprocess.run([vela, str(tmp_path / "int8.tosa"), "--accelerator-config", "ethos-u85-256",
                               "--output-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    assert "NPU operators = 2 (100.0%)" in compiled.stdout
    assert (tmp_path / "out" / "int8_vela.tflite").is_file()
    refused = subprocess.run([vela, str(tmp_path / "floats.tosa"), "--accelerator-config", "ethos-u85-256",
                              "--output-dir", str(tmp_path / "out")], capture_output=True, text=True)
    assert refused.returncode != 0 and "data type not supported" in refused.stderr


_COND_IF_IN_A_LOOP = """
func.func @nested(%c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %w = "tosa.const"() <{values = dense<1.5> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %four = "tosa.const"() <{values = dense<4> : tensor<i32>}> : () -> tensor<i32>
  %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %r:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
    %go = tosa.greater %four, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %go : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<3xf32>):
    %next = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %v = tosa.cond_if %c : tensor<i1> -> tensor<3xf32> {
      %t = tosa.add %acc, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %t2 = tosa.add %t, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      tosa.yield %t2 : tensor<3xf32>
    } else {
      %e = tosa.sub %acc, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      tosa.yield %e : tensor<3xf32>
    }
    tosa.yield %next, %v : tensor<i32>, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
}
"""


@pytest.mark.parametrize("order", ["loops first", "conditionals first"])
def test_a_cond_if_in_a_while_loop_isolated_in_either_order(order):
    """The cond_if reads the loop's carried value, the graph's x and a constant; either rewrite may run first."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import tosa_validation
    from onnx_torch_mlir.transforms.tosa.isolated_loops import isolate_while_loops

    module = _parse(_COND_IF_IN_A_LOOP)
    steps = [isolate_while_loops, isolate_conditionals]
    for step in steps if order == "loops first" else reversed(steps):
        step(module)
    assert tosa_validation.validation_error(module) is None
    x = np.array([1, -2, 3], np.float32)
    for condition, want in ((True, x + 4 * (1.5 + x)), (False, x - 4 * x)):
        for run in (compile_with_tosa_reference(module), program(module, "tosa", "reference")):
            np.testing.assert_allclose(run(np.array(condition), x)[0], want, rtol=1e-6)


def _float64_model():
    """SwiftF0's pitch decoder in small: a Cast to double, a softmax and a lookup into a float64
    table, returned as float64 (TOSA has none: transforms/tosa/float64.py)."""
    table = numpy_helper.from_array(np.linspace(3.5, 7.5, 6, dtype=np.float64) + 1e-9, "table")
    nodes = [
        helper.make_node("Cast", ["logits"], ["wide"], to=TensorProto.DOUBLE),
        helper.make_node("Softmax", ["wide"], ["weights"], axis=-1),
        helper.make_node("Mul", ["weights", "table"], ["weighted"]),
        helper.make_node("ReduceSum", ["weighted", "last"], ["log_pitch"], keepdims=0),
        helper.make_node("Exp", ["log_pitch"], ["pitch"]),
    ]
    last = numpy_helper.from_array(np.array([-1], np.int64), "last")
    return _model(nodes, [helper.make_tensor_value_info("logits", F, [2, 6])],
                  [helper.make_tensor_value_info("pitch", TensorProto.DOUBLE, [2])], [table, last])


def test_float64_is_computed_in_float32_with_a_warning():
    model = _float64_model()
    with pytest.warns(Warning, match=r"TOSA has no float64.*output 0 of @graph is float32"):
        module = onnx_torch_mlir.compile(model, output_type="tosa")
    assert "f64" not in str(module)
    logits = np.linspace(-2, 3, 12, dtype=np.float32).reshape(2, 6)
    want = expected(model, [logits])[0]
    for consumer in ("tosa-reference", "reference", "iree"):
        run = compile_with_tosa_reference(module) if consumer == "tosa-reference" else program(module, "tosa", consumer)
        got = np.asarray(run(logits)[0])
        assert got.dtype == np.float32, consumer
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=consumer)


def test_a_concatenation_of_more_tensors_than_the_level_allows_is_a_tree():
    """Level 8K lists hold at most 64 tensors (transforms/tosa/concat_lists.py): an unrolled GRU's
    119 steps in one tosa.concat made the reference model's result UNPREDICTABLE."""
    names = [f"x{index}" for index in range(130)]
    model = _model([helper.make_node("Concat", names, ["y"], axis=1)],
                   [helper.make_tensor_value_info(name, F, [2, 1]) for name in names],
                   [helper.make_tensor_value_info("y", F, [2, 130])])
    module = onnx_torch_mlir.compile(model, output_type="tosa")
    concats = [line for line in str(module).splitlines() if "tosa.concat" in line]
    assert concats and all(line.count("%arg") + line.split("=", 1)[1].count("%") <= 64 + 1 for line in concats)
    arrays = [np.full((2, 1), index, np.float32) for index in range(130)]
    _check_consumers(model, module, arrays, rtol=0, atol=0)


def _halving_loop_model():
    """torch.jit.script's `while x.abs().max() >= 1: x = x * 0.5` as the TorchScript exporter writes
    it (zoo model scripted-loop-torchscript): the body declares its carried x [batch, 3], and the
    Loop's result the exporter's unknown [Loopy_dim_0, Loopy_dim_1]."""
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
    body = helper.make_graph(
        [helper.make_node("Mul", ["x_in", "half"], ["x_out"]), helper.make_node("Abs", ["x_out"], ["magnitude_out"]),
         helper.make_node("ReduceMax", ["magnitude_out"], ["largest_out"], keepdims=0),
         helper.make_node("GreaterOrEqual", ["largest_out", "one"], ["going_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("condition", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("x_in", F, ["batch", 3])],
        [helper.make_tensor_value_info("going_out", TensorProto.BOOL, []), helper.make_tensor_value_info("x_out", F, ["batch", 3])])
    nodes = [helper.make_node("Abs", ["x"], ["magnitude"]), helper.make_node("ReduceMax", ["magnitude"], ["largest"], keepdims=0),
             helper.make_node("GreaterOrEqual", ["largest", "one"], ["going"]),
             helper.make_node("Loop", ["", "going", "x"], ["y"], body=body)]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 3])],
                  [helper.make_tensor_value_info("y", F, ["Loopy_dim_0", "Loopy_dim_1"])], [half, one])


def test_a_loop_carries_the_fixed_dims_of_its_body():
    """--dim fixes the body's declared [batch, 3] too, and the Loop's unknown declared dims do not
    make its carried value dynamic: with the batch fixed the signature is static, as the flatbuffer
    needs (it was `tensor<?x?xf32>`, refused before serialization)."""
    model = _halving_loop_model()
    module = onnx_torch_mlir.compile(model, output_type="tosa", dims={"batch": 4})
    assert "-> tensor<4x3xf32>" in str(module) and "?x" not in str(module)
    x = np.linspace(-6, 5, 12, dtype=np.float32).reshape(4, 3)
    _check_consumers(model, module, [x], rtol=0, atol=0)
