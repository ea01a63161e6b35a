"""The reference runner passes large weights to the program instead of compiling them in
(runtime/weights.py): same results, on every backend, and nothing hoisted it cannot reach."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import compile_for_cpu


def _matmul_model(size: int) -> tuple[onnx.ModelProto, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((size, size)).astype(np.float32)
    bias = rng.standard_normal((size,)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, size])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), weight, bias


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "tosa", "stablehlo"])
def test_a_large_weight_is_passed_as_an_argument_and_the_results_match(backend):
    model, weight, bias = _matmul_model(256)  # a 256 KiB weight and a 1 KiB bias
    module = onnx_torch_mlir.compile(model, output_type=backend)
    before = str(module)
    program = compile_for_cpu(module, input_dialect=backend)
    assert program.weights_passed_as_arguments == 1
    assert str(module) == before  # the caller's module is untouched
    x = np.random.default_rng(1).standard_normal((2, 256)).astype(np.float32)
    (result,) = program(x)
    np.testing.assert_allclose(result, x @ weight + bias, rtol=1e-4, atol=1e-4)
    (again,) = program(x)  # the weight is read, never written
    np.testing.assert_array_equal(again, result)


def test_a_program_from_text_keeps_its_constants_compiled_in():
    model, weight, bias = _matmul_model(128)
    text = str(onnx_torch_mlir.compile(model, output_type="linalg-on-tensors"))
    program = compile_for_cpu(text)
    assert program.weights_passed_as_arguments == 0
    x = np.ones((2, 128), np.float32)
    np.testing.assert_allclose(program(x)[0], x @ weight + bias, rtol=1e-4, atol=1e-4)
