"""Cast from and to the narrow integer types (int4/uint4, int2/uint2) and from the unsigned
types, on every backend: every value of the source type, compared exactly with
onnx.reference.

Our importer holds 2-bit tensors in 8 bits (si8/ui8) in the torch-ONNX form, so a 2-bit
input is passed as int8/uint8 holding the exact (sign-extended) value and a 2-bit result
comes back the same way. TOSA's lowering reads every unsigned tensor as signed, so a cast
that widens one used to sign-extend it."""

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import errors, runtime
from onnx_torch_mlir.conversion import convert_onnx_to_torch_backend_contract

BACKENDS = ["linalg-on-tensors", "tosa", "stablehlo"]
NUMPY = {
    T.INT4: ml_dtypes.int4, T.UINT4: ml_dtypes.uint4, T.INT2: ml_dtypes.int2, T.UINT2: ml_dtypes.uint2,
    T.INT8: np.int8, T.UINT8: np.uint8, T.INT16: np.int16, T.UINT16: np.uint16, T.INT32: np.int32,
    T.UINT32: np.uint32, T.INT64: np.int64, T.FLOAT: np.float32, T.FLOAT16: np.float16, T.DOUBLE: np.float64,
    T.BOOL: np.bool_,
}
# How the compiled function takes and gives each type (2-bit types in 8 bits).
HELD_AS = {T.INT2: np.int8, T.UINT2: np.uint8}


def _model(source: int, target: int, count: int, opset: int = 25) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=target)], "g",
        [helper.make_tensor_value_info("x", source, [count])], [helper.make_tensor_value_info("y", target, [count])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _every_value(source: int) -> np.ndarray:
    """Every value of a narrow or 8-bit type; the interesting ones of the wider types."""
    dtype = np.dtype(NUMPY[source])
    if source == T.BOOL:
        return np.array([False, True, True, False])
    if source in (T.FLOAT, T.FLOAT16, T.DOUBLE):
        return np.array([-9.75, -8, -7.5, -3.5, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 7.9, 8, 100], dtype)
    info = ml_dtypes.iinfo(dtype) if dtype.itemsize == 1 and dtype.kind == "V" else np.iinfo(dtype)
    if info.bits <= 8:
        return np.arange(int(info.min), int(info.max) + 1).astype(dtype)
    values = [info.min, info.min + 1, -1, 0, 1, 2, 127, 128, 255, 256, 65535, 65536, info.max - 1, info.max]
    return np.array([v for v in values if info.min <= v <= info.max]).astype(dtype)


def _compare(source: int, target: int, backend: str):
    x = _every_value(source)
    model = _model(source, target, len(x))
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    want = want.astype(HELD_AS.get(target, want.dtype))
    fed = x.astype(HELD_AS[source]) if source in HELD_AS else x
    result_dtype = np.dtype(HELD_AS.get(target, NUMPY[target]))
    if result_dtype.kind not in "iu":
        result_dtype = None
    (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [fed], input_dialect=backend, result_dtypes=[result_dtype])
    if got.dtype != want.dtype:  # 4-bit results come back as ml_dtypes
        got = got.astype(want.dtype)
    wrong = np.flatnonzero(got.astype(np.float64) != want.astype(np.float64))
    assert wrong.size == 0, f"{wrong.size} wrong: {x[wrong][:4]} gave {got[wrong][:4]}, not {want[wrong][:4]}"


def _name(code: int) -> str:
    return T.DataType.Name(code)


NARROW_SOURCES = [T.INT4, T.UINT4, T.INT2, T.UINT2]
WIDE_TARGETS = [T.FLOAT, T.FLOAT16, T.DOUBLE, T.INT8, T.UINT8, T.INT16, T.INT32, T.UINT32, T.INT64, T.BOOL]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", WIDE_TARGETS, ids=_name)
@pytest.mark.parametrize("source", NARROW_SOURCES, ids=_name)
def test_cast_from_narrow_integers(source, target, backend):
    _compare(source, target, backend)


WIDENINGS = [(s, t) for s in (T.UINT8, T.UINT16, T.UINT32) for t in (T.FLOAT, T.INT32, T.INT64, T.UINT32) if s != t]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("source, target", WIDENINGS, ids=[f"{_name(s)}-{_name(t)}" for s, t in WIDENINGS])
def test_cast_widens_unsigned_without_sign_extension(source, target, backend):
    _compare(source, target, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", [T.INT2, T.UINT2], ids=_name)
@pytest.mark.parametrize("source", [T.FLOAT, T.FLOAT16, T.INT8, T.UINT8, T.INT32, T.INT64, T.BOOL, T.INT4, T.UINT4], ids=_name)
def test_cast_to_two_bit_wraps(source, target, backend):
    if source in (T.INT4, T.UINT4):
        # onnx.reference cannot cast between sub-byte types: wrap through int64 instead.
        x = _every_value(source)
        model = _model(source, target, len(x))
        want = x.astype(np.int64) & 3
        if target == T.INT2:
            want = (want ^ 2) - 2
        (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [x], input_dialect=backend,
                             result_dtypes=[HELD_AS[target]])
        np.testing.assert_array_equal(got.astype(np.int64), want)
        return
    _compare(source, target, backend)


@pytest.mark.parametrize("target", [T.INT4, T.UINT4], ids=_name)
def test_cast_to_four_bit_is_refused(target):
    with pytest.raises(errors.ConversionError, match="a cast to int4 or uint4 is not supported"):
        onnx_torch_mlir.compile(_model(T.FLOAT, target, 3), "linalg-on-tensors")


def test_castlike_to_four_bit_is_refused():
    graph = helper.make_graph(
        [helper.make_node("CastLike", ["x", "like"], ["y"])], "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [3]), helper.make_tensor_value_info("like", T.INT4, [0])],
        [helper.make_tensor_value_info("y", T.INT4, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 10
    with pytest.raises(errors.ConversionError, match="a cast to int4 or uint4 is not supported"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


@pytest.mark.parametrize("source, target", [(T.INT2, T.FLOAT), (T.FLOAT, T.UINT2)], ids=["from_int2", "to_uint2"])
def test_two_bit_in_onnx_dialect_spelling_is_refused(source, target):
    """The ONNX dialect spells 2-bit tensors i2/ui2, which have no Torch dialect type."""
    module = onnx_torch_mlir.import_onnx(_model(source, target, 3), form="onnx")
    with pytest.raises(errors.ConversionError, match="2-bit integer tensors have no Torch dialect type"):
        convert_onnx_to_torch_backend_contract(module)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("source", [T.FLOAT, T.FLOAT16, T.DOUBLE], ids=_name)
def test_cast_float_to_uint8_above_127(source, backend):
    """TOSA's float-to-i8 cast saturates at 127 (200.0 gave 127): the cast goes through int32."""
    x = np.array([0, 1.25, 127, 128, 128.5, 200.75, 254.9, 255], NUMPY[source])
    model = _model(source, T.UINT8, len(x))
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [x], input_dialect=backend, result_dtypes=[np.uint8])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("target", [T.UINT16, T.UINT64], ids=_name)
def test_cast_to_uint16_or_uint64_is_refused_on_linalg(target):
    """torch-mlir's Linalg lowering of aten.to.dtype has no uint16/uint64 and aborts the process."""
    with pytest.raises(errors.ConversionError, match=r"a cast to uint(16|64) is not supported on linalg-on-tensors"):
        onnx_torch_mlir.compile(_model(T.FLOAT, target, 3), "linalg-on-tensors")
