"""The reference runner compiles a program of small static tensors at LLVM's opt level 0, and that level
computes the same bits as opt level 2 (runner.small_program_opt_level)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime import compile_for_cpu, lowering, runner
from test_runner import binary_elementwise, sample

ADD = "%r = arith.addf %x, %y : f32"


def opt_level_of(source: str) -> int:
    with lowering.runner_context():
        return runner.small_program_opt_level(lowering.parse_module(source))


def test_small_static_program_is_not_optimised():
    assert opt_level_of(binary_elementwise("f32", ADD, "2x3")) == 0


def test_program_with_a_dynamic_dim_is_optimised():
    identity = "func.func @main(%a: tensor<?x3xf32>) -> tensor<?x3xf32> { return %a : tensor<?x3xf32> }"
    assert opt_level_of(identity) == 2


def test_program_with_a_tensor_over_the_limit_is_optimised():
    rows = runner.SMALL_PROGRAM_ELEMENTS // 64 + 1
    assert opt_level_of(binary_elementwise("f32", ADD, f"{rows}x64")) == 2


def rounding_sensitive_model() -> onnx.ModelProto:
    """Reductions, a product added to a product (what a contraction to FMA would change), and
    transcendental functions, on tensors small enough for opt level 0."""
    rng = np.random.default_rng(3)
    weight = numpy_helper.from_array(rng.standard_normal((64, 32)).astype(np.float32), "weight")
    scale = numpy_helper.from_array(np.float32([1.7]), "scale")
    nodes = [
        helper.make_node("MatMul", ["x", "weight"], ["product"]),
        helper.make_node("Mul", ["product", "scale"], ["scaled"]),
        helper.make_node("Mul", ["product", "product"], ["squared"]),
        helper.make_node("Add", ["scaled", "squared"], ["sum"]),
        helper.make_node("Softmax", ["sum"], ["soft"], axis=-1),
        helper.make_node("Tanh", ["product"], ["tanh"]),
        helper.make_node("Erf", ["product"], ["erf"]),
        helper.make_node("ReduceSum", ["sum"], ["total"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "rounding", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("soft", "tanh", "erf", "total")],
        initializer=[weight, scale])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
def test_opt_level_zero_computes_opt_level_two_bits(backend, monkeypatch):
    model = rounding_sensitive_model()
    x = sample(np.float32, (8, 64), seed=5) * 4
    module = onnx_torch_mlir.compile(model, output_type=backend)
    assert runner.small_program_opt_level(module) == 0
    unoptimised = compile_for_cpu(module, input_dialect=backend, cache=False)
    monkeypatch.setattr(runner, "SMALL_PROGRAM_ELEMENTS", 0)
    assert runner.small_program_opt_level(module) == 2
    optimised = compile_for_cpu(module, input_dialect=backend, cache=False)
    for low, high in zip(unoptimised(x), optimised(x)):
        assert low.tobytes() == high.tobytes()
