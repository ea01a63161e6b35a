"""BitShift on every integer type with shift amounts in and out of range: compiled with our
importer and conversion to each backend, run on the reference CPU runner, compared with
onnx.reference at opset 28 (which defines a shift by a negative amount or one >= the bit
width: 0, or -1 for a right shift of a negative signed value) and with onnxruntime at
opset 11 (unsigned types only; it gives the same).

The shift instructions of Linalg and TOSA leave such shifts undefined (vectorized code may
happen to give 0 where scalar code keeps x, so small tensors are tested too), and TOSA and
StableHLO lowered an unsigned right shift as an arithmetic one."""

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime

BACKENDS = ["linalg-on-tensors", "tosa", "stablehlo"]
SIGNED = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]
# x and y shapes: a broadcast over a vectorizable row, and a few scalar elements.
LAYOUTS = {"broadcast": ((3, 40), (40,)), "small": ((5,), (5,))}


def _model(dtype, direction: str, opset: int, x_shape, y_shape) -> onnx.ModelProto:
    element = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    graph = helper.make_graph(
        [helper.make_node("BitShift", ["x", "y"], ["z"], direction=direction)], "g",
        [helper.make_tensor_value_info("x", element, x_shape), helper.make_tensor_value_info("y", element, y_shape)],
        [helper.make_tensor_value_info("z", element, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return onnx.shape_inference.infer_shapes(model)


def _inputs(dtype, layout: str, seed: int):
    """x over the whole range of the type; y from -2 * bits to 2 * bits (wrapped for unsigned
    types, so huge amounts too), starting out of range for the small layout."""
    x_shape, y_shape = LAYOUTS[layout]
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=x_shape, dtype=dtype, endpoint=True)
    amounts = np.arange(-2 * info.bits, 2 * info.bits + 1)
    if layout == "small":
        amounts = np.array([info.bits, -1, info.bits + 3, 1, info.bits - 1])
    y = np.resize(amounts, y_shape).astype(dtype)
    return x, y


def _ours(model, backend, x, y):
    (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [x, y], input_dialect=backend, result_dtypes=[x.dtype])
    return got


def _assert_same(got, want, x, y):
    y = np.broadcast_to(y, x.shape)
    wrong = np.flatnonzero(got != want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    assert wrong.size == 0, (
        f"{wrong.size} wrong, first: {x.reshape(-1)[wrong[0]]} shifted by {y.reshape(-1)[wrong[0]]} "
        f"gave {got.reshape(-1)[wrong[0]]}, not {want.reshape(-1)[wrong[0]]}"
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED, ids=lambda t: np.dtype(t).name)
def test_bitshift_28_matches_onnx_reference(dtype, direction, layout, backend):
    x, y = _inputs(dtype, layout, seed=len(direction))
    model = _model(dtype, direction, 28, list(x.shape), list(y.shape))
    (want,) = ReferenceEvaluator(model).run(None, {"x": x, "y": y})
    _assert_same(_ours(model, backend, x, y), want, x, y)


# onnxruntime implements BitShift-11 for uint8, uint32 and uint64.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64], ids=lambda t: np.dtype(t).name)
def test_bitshift_11_matches_onnxruntime(dtype, direction, layout, backend):
    import onnxruntime

    x, y = _inputs(dtype, layout, seed=11)
    model = _model(dtype, direction, 11, list(x.shape), list(y.shape))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x, "y": y})
    _assert_same(_ours(model, backend, x, y), want, x, y)
