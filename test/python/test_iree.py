"""IREE as a second consumer: every backend's output compiled and run by IREE, checked against onnxruntime.

A case that fails because of our IR (not because of this consumer) is an xfail(strict=True) whose
reason quotes IREE's first error line, so it turns into a failure the day the IR is fixed.
Test ids name the backend, so conftest.py skips the cases of a switched-off backend.
"""

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import compile_for_cpu, reinterpret_results
from onnx_torch_mlir.runtime.backend import declared_output_dtypes
from onnx_torch_mlir.runtime.iree import IreeError, IreeProgram, compile_with_iree

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL = 1e-4, 1e-5
_rng = np.random.default_rng(1234)


def _model(name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(*spec) for spec in inputs],
        [helper.make_tensor_value_info(*spec) for spec in outputs],
        initializer=[numpy_helper.from_array(array, key) for key, array in initializers],
    )
    # IR version 10: what the pinned onnxruntime reads.
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def _weights(*shape):
    return (_rng.standard_normal(shape) * 0.5).astype(np.float32)


def _mlp():
    model = _model(
        "mlp",
        [
            helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
            helper.make_node("Relu", ["h"], ["r"]),
            helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], alpha=0.5, beta=2.0),
        ],
        [("x", TensorProto.FLOAT, [3, 8])],
        [("y", TensorProto.FLOAT, [3, 4])],
        [("w1", _weights(16, 8)), ("b1", _weights(16)), ("w2", _weights(16, 4)), ("b2", _weights(4))],
    )
    return model, [[_weights(3, 8)]]


def _conv():
    model = _model(
        "conv",
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 1]),
            helper.make_node("Relu", ["c"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, [1, 2, 8, 7])],
        [("y", TensorProto.FLOAT, [1, 3, 4, 7])],
        [("w", _weights(3, 2, 3, 3)), ("b", _weights(3))],
    )
    return model, [[_weights(1, 2, 8, 7)]]


def _integers_and_booleans():
    """int64 and bool in and out, plus an int32 0-d result."""
    model = _model(
        "integers_and_booleans",
        [
            helper.make_node("Mul", ["k", "k"], ["squares"]),
            helper.make_node("ArgMax", ["x"], ["argmax"], axis=1, keepdims=0),
            helper.make_node("Greater", ["x", "zero"], ["positive"]),
            helper.make_node("Xor", ["positive", "mask"], ["flipped"]),
            helper.make_node("Cast", ["flipped"], ["flipped_int"], to=TensorProto.INT32),
            helper.make_node("ReduceSum", ["flipped_int"], ["count"], keepdims=0),
        ],
        [("x", TensorProto.FLOAT, [2, 5]), ("k", TensorProto.INT64, [2, 5]), ("mask", TensorProto.BOOL, [2, 5])],
        [
            ("squares", TensorProto.INT64, [2, 5]),
            ("argmax", TensorProto.INT64, [2]),
            ("flipped", TensorProto.BOOL, [2, 5]),
            ("count", TensorProto.INT32, []),
        ],
        [("zero", np.zeros((), np.float32))],
    )
    k = _rng.integers(-3_000_000_000, 3_000_000_000, size=(2, 5))  # squares beyond 32 bits
    return model, [[_weights(2, 5), k.astype(np.int64), _rng.random((2, 5)) < 0.5]]


def _dynamic_batch():
    model = _model(
        "dynamic_batch",
        [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Add", ["m", "b"], ["a"]),
            helper.make_node("Tanh", ["a"], ["y"]),
        ],
        [("x", TensorProto.FLOAT, ["batch", 4])],
        [("y", TensorProto.FLOAT, ["batch", 3])],
        [("w", _weights(4, 3)), ("b", _weights(3))],
    )
    return model, [[_weights(2, 4)], [_weights(5, 4)]]


def _two_outputs():
    model = _model(
        "two_outputs",
        [
            helper.make_node("Sigmoid", ["x"], ["s"]),
            helper.make_node("ReduceMean", ["x"], ["mean"], keepdims=0),
        ],
        [("x", TensorProto.FLOAT, [4, 6])],
        [("s", TensorProto.FLOAT, [4, 6]), ("mean", TensorProto.FLOAT, [])],
    )
    return model, [[_weights(4, 6)]]


MODELS = {
    "mlp": _mlp,
    "conv": _conv,
    "integers_and_booleans": _integers_and_booleans,
    "dynamic_batch": _dynamic_batch,
    "two_outputs": _two_outputs,
}

# Where our IR is what IREE rejects: (case) -> (the start of IREE's first error line, why).
# (None at the moment: the dynamic-batch StableHLO that IREE refused, a broadcast without expansion
# hints, now carries them; transforms/stablehlo/dynamic.py.)
KNOWN_FAILURES: dict = {}


def _cases():
    for model_name in MODELS:
        for backend in BACKENDS:
            known = KNOWN_FAILURES.get((model_name, backend))
            marks = [pytest.mark.xfail(strict=True, raises=IreeError, reason=" -- ".join(known))] if known else []
            yield pytest.param(model_name, backend, marks=marks, id=f"{model_name}-{backend}")


def _onnxruntime(model, inputs):
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [value.name for value in model.graph.input]
    return session.run(None, dict(zip(names, inputs)))


@pytest.mark.parametrize("model_name, backend", list(_cases()))
def test_iree_runs_every_backend_like_onnxruntime(model_name, backend):
    model, input_sets = MODELS[model_name]()
    module = onnx_torch_mlir.compile(model, output_type=backend)
    printed = str(module)
    try:
        program = compile_with_iree(module, backend)
    except IreeError as error:
        known = KNOWN_FAILURES.get((model_name, backend))
        # A known failure must fail the recorded way (anything else is an AssertionError, not an xfail).
        assert known and str(error).startswith(known[0]), str(error)
        raise
    assert str(module) == printed, "compiling with IREE changed the caller's module"
    assert isinstance(program, IreeProgram) and program.entry == model_name
    declared = declared_output_dtypes(model)
    for inputs in input_sets:
        expected = _onnxruntime(model, inputs)
        outputs = reinterpret_results(program(*inputs), declared)
        assert len(outputs) == len(expected)
        for index, (got, want) in enumerate(zip(outputs, expected)):
            assert got.dtype == want.dtype and got.shape == want.shape, (index, got.dtype, got.shape, want.shape)
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {index}")


def test_results_come_back_with_the_reference_runners_dtypes():
    model, [inputs] = _integers_and_booleans()
    module = onnx_torch_mlir.compile(model, output_type="linalg-on-tensors")
    ours = compile_for_cpu(module, input_dialect="linalg-on-tensors")(*inputs)
    theirs = compile_with_iree(module, "linalg-on-tensors")(*inputs)
    assert [a.dtype for a in theirs] == [a.dtype for a in ours] == [np.int64, np.int64, np.bool_, np.int32]
    for mine, reference in zip(theirs, ours):
        np.testing.assert_array_equal(mine, reference)


def test_signless_integers_take_either_signedness_and_reinterpret_on_request():
    program = compile_with_iree(
        "func.func @double(%a: tensor<3xi8>) -> tensor<3xi8> {\n"
        "  %0 = arith.addi %a, %a : tensor<3xi8>\n"
        "  return %0 : tensor<3xi8>\n"
        "}",
        "linalg-on-tensors",
    )
    unsigned = np.array([100, 3, 127], np.uint8)
    [signed_result] = program(unsigned)
    assert signed_result.dtype == np.int8 and signed_result.tolist() == [-56, 6, -2]
    [unsigned_result] = program(unsigned, result_dtypes=[np.uint8])
    assert unsigned_result.dtype == np.uint8 and unsigned_result.tolist() == [200, 6, 254]


def test_f16_bf16_and_f64_keep_their_types():
    import ml_dtypes

    program = compile_with_iree(
        "func.func @f(%a: tensor<2xf16>, %b: tensor<2xbf16>, %c: tensor<2xf64>)"
        " -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xf64>) {\n"
        "  %0 = arith.mulf %a, %a : tensor<2xf16>\n"
        "  %1 = arith.mulf %b, %b : tensor<2xbf16>\n"
        "  %2 = arith.mulf %c, %c : tensor<2xf64>\n"
        "  return %0, %1, %2 : tensor<2xf16>, tensor<2xbf16>, tensor<2xf64>\n"
        "}",
        "linalg-on-tensors",
    )
    a, b, c = np.array([1.5, -3], np.float16), np.array([0.5, 12], ml_dtypes.bfloat16), np.array([1 / 3, 7], np.float64)
    half, brain, double = program(a, b, c)
    assert half.dtype == np.float16 and half.tolist() == [2.25, 9.0]
    assert brain.dtype == ml_dtypes.bfloat16 and brain.astype(np.float32).tolist() == [0.25, 144.0]
    # IREE demotes f64 to f32 by default; the consumer switches that off.
    assert double.dtype == np.float64 and double[0] == (1 / 3) * (1 / 3)


def test_text_and_an_explicit_entry():
    program = compile_with_iree(
        "func.func @first(%a: tensor<i32>) -> tensor<i32> { return %a : tensor<i32> }\n"
        "func.func @second(%a: tensor<i32>) -> tensor<i32> {\n"
        "  %0 = arith.muli %a, %a : tensor<i32>\n"
        "  return %0 : tensor<i32>\n"
        "}",
        "linalg-on-tensors",
        entry="second",
    )
    [result] = program(np.array(-7, np.int32))
    assert result.shape == () and result.dtype == np.int32 and int(result) == 49


# --- errors: one line, naming the stage ---

_DOUBLE = "func.func @double(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = arith.addf %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}"


def _one_line(error: IreeError) -> str:
    message = str(error)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_invalid_mlir_is_an_iree_error_with_the_parser_message():
    with pytest.raises(IreeError) as caught:
        compile_with_iree(
            "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<3xf32> }", "linalg-on-tensors"
        )
    message = _one_line(caught.value)
    assert message.startswith("IREE compile: cannot parse the program:")
    assert "tensor<3xf32>" in message


def test_an_op_iree_cannot_lower_is_an_iree_compile_error():
    with pytest.raises(IreeError) as caught:
        compile_with_iree(
            "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = tosa.abs %a : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n"
            "}",
            "linalg-on-tensors",
        )
    message = _one_line(caught.value)
    assert message.startswith("IREE compile of @f (linalg-on-tensors) failed:")
    assert "'tosa.abs' op" in message and "illegal" in message


def test_a_failing_runtime_check_is_an_iree_run_error():
    program = compile_with_iree(
        "func.func @checked(%n: tensor<i64>) -> tensor<i64> {\n"
        "  %v = tensor.extract %n[] : tensor<i64>\n"
        "  %zero = arith.constant 0 : i64\n"
        "  %positive = arith.cmpi sgt, %v, %zero : i64\n"
        '  cf.assert %positive, "n must be positive"\n'
        "  return %n : tensor<i64>\n"
        "}",
        "linalg-on-tensors",
    )
    assert program(np.array(3, np.int64))[0] == 3
    with pytest.raises(IreeError) as caught:
        program(np.array(-1, np.int64))
    assert _one_line(caught.value) == "IREE run of @checked failed: FAILED_PRECONDITION; n must be positive"


@pytest.mark.parametrize(
    "inputs, fragment",
    [
        ((), "takes 1 inputs, got 0"),
        ((np.ones(2, np.float32), np.ones(2, np.float32)), "takes 1 inputs, got 2"),
        ((np.ones(3, np.float32),), "argument 0 expects tensor<2xf32>, got an array of shape (3,) and dtype float32"),
        ((np.ones(2, np.float64),), "argument 0 expects tensor<2xf32>, got an array of shape (2,) and dtype float64"),
    ],
    ids=["none", "two", "wrong-shape", "wrong-dtype"],
)
def test_wrong_inputs(inputs, fragment):
    program = compile_with_iree(_DOUBLE, "linalg-on-tensors")
    with pytest.raises(IreeError) as caught:
        program(*inputs)
    assert _one_line(caught.value) == f"IREE run of @double: {fragment}"


def test_unknown_input_dialect_and_missing_entry():
    with pytest.raises(IreeError, match=r"unknown input dialect 'mhlo'; expected one of linalg-on-tensors, tosa, stablehlo"):
        compile_with_iree(_DOUBLE, "mhlo")
    with pytest.raises(IreeError, match=r"^IREE compile: the module has no function @main_graph$"):
        compile_with_iree(_DOUBLE, "linalg-on-tensors", entry="main_graph")


def _pointwise_convolution_96_to_576():
    """MobileNetV3-Small's last block: a 1x1 convolution of 96 to 576 channels on 7x7, HardSwish and
    the global pool (either one alone after the convolution compiles)."""
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("HardSwish", ["c"], ["h"]),
             helper.make_node("GlobalAveragePool", ["h"], ["y"])]
    return _model("pointwise", nodes, [("x", TensorProto.FLOAT, [1, 96, 7, 7])],
                  [("y", TensorProto.FLOAT, [1, 576, 1, 1])], [("w", _weights(576, 96, 1, 1)), ("b", _weights(576))])


def test_recommended_flags_fall_back_to_irees_defaults_where_data_tiling_fails():
    """IREE 3.13's data tiling fails on this convolution for an AVX2 target (compiled only, not run:
    the test machine's CPU may be another); when this test fails because it compiles, delete the
    fallback of `compile_with_recommended_flags`."""
    from onnx_torch_mlir.runtime.iree import RECOMMENDED_FLAGS, compile_with_recommended_flags

    module = onnx_torch_mlir.compile(_pointwise_convolution_96_to_576(), output_type="linalg-on-tensors")
    flags_tried = []

    def compile_for_avx2(flags):
        flags_tried.append(tuple(flags))
        return compile_with_iree(module, "linalg-on-tensors", extra_flags=flags)

    program, failure = compile_with_recommended_flags(compile_for_avx2, ["--iree-llvmcpu-target-cpu=znver3"])
    assert isinstance(program, IreeProgram)
    assert failure is not None and "large vector sizes" in failure
    assert flags_tried == [(*RECOMMENDED_FLAGS, "--iree-llvmcpu-target-cpu=znver3"), ("--iree-llvmcpu-target-cpu=znver3",)]


def test_recommended_flags_come_before_the_callers():
    from onnx_torch_mlir.runtime.iree import RECOMMENDED_FLAGS, compile_with_recommended_flags

    assert compile_with_recommended_flags(tuple, ["--x"]) == ((*RECOMMENDED_FLAGS, "--x"), None)
