"""DFT, STFT, the windows, MelWeightMatrix, CumProd, Unique, BitCast and TensorScatter compiled
with our importer and conversion to each backend, run on the reference CPU runner (and on IREE
for a few), and compared with onnxruntime's CPU kernels (BitCast with numpy's `view`:
onnxruntime has no BitCast kernel for bool).

Each case is one node on seeded inputs. Linalg compiles the model with the dims named in the
case symbolic; TOSA and StableHLO compile it with every dim fixed. Scalars that must be literals
for the conversion (axes, dft_length, frame_step) are initializers; `static_outputs` declares a
result shape where the conversion reads a run-time scalar's effect from it.

Tolerance (fp32): rtol 1e-4, atol 1e-4. The transforms are products with cos and sin matrices
(O(N) sums) where onnxruntime runs an FFT: on signals of magnitude 1 and N <= 16 the largest
difference seen is below 1e-5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL = 1e-4, 1e-4
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64
NO_64_BIT_TOSA = "64-bit float bits take 64-bit arithmetic, which TOSA does not have (the node fails clearly)"
# Normal, negative, -0.0, infinities, a subnormal, the largest finite and the canonical NaN.
SPECIAL_FLOATS = [1.0, -2.5, -0.0, np.inf, -np.inf, 1e-40, 3.0e38, np.nan, 2.0**-126, 0.1]
DATA_DEPENDENT = "the number of distinct values is data dependent: TOSA needs static shapes"


@dataclass
class Case:
    node: onnx.NodeProto
    inputs: dict  # name -> (array, dims with symbolic names for the dynamic model)
    outputs: list  # (name, onnx element type)
    opset: int
    initializers: dict = field(default_factory=dict)
    static_outputs: dict = field(default_factory=dict)  # output name -> declared dims (both models)
    known_failures: dict = field(default_factory=dict)  # backend -> reason
    reference: Callable | None = None  # numpy, where onnxruntime has no kernel

    def model(self, static: bool) -> onnx.ModelProto:
        inputs = [
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype),
                                          list(array.shape) if static else dims)
            for name, (array, dims) in self.inputs.items()
        ]
        outputs = [helper.make_tensor_value_info(name, element, self.static_outputs.get(name))
                   for name, element in self.outputs]
        initializers = [numpy_helper.from_array(array, name) for name, array in self.initializers.items()]
        graph = helper.make_graph([self.node], "signal_op", inputs, outputs, initializer=initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], ir_version=10)

    def arrays(self) -> list:
        return [array for array, _ in self.inputs.values()]

    def expected(self) -> list:
        if self.reference is not None:
            return self.reference()
        session = onnxruntime.InferenceSession(self.model(static=True).SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        return session.run(None, {name: array for name, (array, _) in self.inputs.items()})


def _rng(seed: int):
    return np.random.default_rng(seed)


def _scalar(value, dtype=np.int64):
    return np.array(value, dtype=dtype)


def _dft(opset, shape, dynamic, length=None, axis=None, inverse=0, onesided=0, seed=0):
    """DFT of a [.., 1 or 2] signal; `length` and (opset 20) `axis` as initializers."""
    def build():
        x = _rng(seed).standard_normal(shape).astype(np.float32)
        initializers, names = {}, ["x", "", ""]
        if length is not None:
            initializers["length"], names[1] = _scalar(length), "length"
        attributes = dict(inverse=inverse, onesided=onesided)
        if opset >= 20 and axis is not None:
            initializers["axis"], names[2] = _scalar(axis), "axis"
        elif axis is not None:
            attributes["axis"] = axis
        while not names[-1]:
            names.pop()
        node = helper.make_node("DFT", names, ["y"], **attributes)
        return Case(node, {"x": (x, dynamic)}, [("y", FLOAT)], opset, initializers)

    return build


def _dft_runtime_axis():
    x = _rng(1).standard_normal((3, 5, 2)).astype(np.float32)
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"])
    return Case(node, {"x": (x, [3, 5, 2]), "axis": (_scalar(1), [])}, [("y", FLOAT)], 20,
                static_outputs={"y": [3, 5, 2]})


def _stft(complex_signal: bool, with_window: bool, onesided: int):
    def build():
        rng = _rng(2)
        x = rng.standard_normal((2, 32, 2 if complex_signal else 1)).astype(np.float32)
        inputs = {"x": (x, ["batch", 32, x.shape[2]])}
        names = ["x", "step", "", "length"]
        initializers = {"step": _scalar(6), "length": _scalar(8)}
        if with_window:
            inputs["window"] = (np.hanning(8).astype(np.float32), [8])
            names[2] = "window"
        node = helper.make_node("STFT", names, ["y"], onesided=onesided)
        return Case(node, inputs, [("y", FLOAT)], 17, initializers)

    return build


def _stft_window_past_the_end():
    """A window (10) longer than frame_length (8). ONNX's reference cuts each frame to 8 samples,
    but the STFT schema requires the window to be frame_length long: the importer refuses it."""
    x = _rng(7).standard_normal((1, 20, 1)).astype(np.float32)
    window = np.hanning(10).astype(np.float32)
    node = helper.make_node("STFT", ["x", "step", "window", "length"], ["y"])
    return Case(node, {"x": (x, [1, 20, 1]), "window": (window, [10])}, [("y", FLOAT)], 17,
                {"step": _scalar(4), "length": _scalar(8)})


def _window(op_type, periodic):
    def build():
        node = helper.make_node(op_type, ["size"], ["y"], periodic=periodic)
        return Case(node, {}, [("y", FLOAT)], 17, {"size": _scalar(12, np.int32)})

    return build


def _mel_weight_matrix(runtime_scalars: bool):
    def build():
        scalars = {"bins": _scalar(6, np.int32), "length": _scalar(32, np.int32), "rate": _scalar(16000, np.int32),
                   "low": _scalar(100.0, np.float32), "high": _scalar(7000.0, np.float32)}
        node = helper.make_node("MelWeightMatrix", list(scalars), ["y"])
        if runtime_scalars:
            return Case(node, {name: (value, []) for name, value in scalars.items()}, [("y", FLOAT)], 17,
                        static_outputs={"y": [17, 6]})
        return Case(node, {}, [("y", FLOAT)], 17, scalars)

    return build


def _cum_prod(exclusive, reverse, runtime_axis):
    def build():
        x = (_rng(3).uniform(0.5, 1.5, (3, 4, 5))).astype(np.float32)
        node = helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)
        if runtime_axis:
            return Case(node, {"x": (x, ["a", 4, 5]), "axis": (_scalar(-2), [])}, [("y", FLOAT)], 26)
        return Case(node, {"x": (x, ["a", "b", 5])}, [("y", FLOAT)], 26, {"axis": _scalar(1)})

    return build


def _unique(sorted_, axis):
    def build():
        x = _rng(4).integers(0, 3, (6, 3)).astype(np.float32)
        x[3] = x[0]
        attributes = {"sorted": sorted_} if axis is None else {"sorted": sorted_, "axis": axis}
        node = helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"], **attributes)
        outputs = [("y", FLOAT), ("indices", INT64), ("inverse", INT64), ("counts", INT64)]
        return Case(node, {"x": (x, [6, 3])}, outputs, 11,
                    known_failures={"tosa": DATA_DEPENDENT})

    return build


def _unique_with_nan():
    """NaNs are equal and sort last, as in ONNX's reference (onnxruntime drops them: numpy reference)."""
    x = np.array([2.0, np.nan, 1.0, np.nan, 2.0, -1.0], np.float32)
    node = helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"])
    outputs = [("y", FLOAT), ("indices", INT64), ("inverse", INT64), ("counts", INT64)]

    def reference():
        y, indices, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        return [y, indices, inverse, counts]

    return Case(node, {"x": (x, [6])}, outputs, 11, static_outputs={"y": [4]}, reference=reference)


def _bit_cast(array, to):
    def build():
        node = helper.make_node("BitCast", ["x"], ["y"], to=to)
        failures = {"tosa": NO_64_BIT_TOSA} if array.dtype.itemsize == 8 else {}
        numpy_type = helper.tensor_dtype_to_np_dtype(to)
        return Case(node, {"x": (array, ["n"])}, [("y", to)], 26, known_failures=failures,
                    reference=lambda: [array.view(numpy_type)])

    return build


def _tensor_scatter(mode, with_indices):
    def build():
        rng = _rng(5)
        past = rng.standard_normal((3, 2, 6, 4)).astype(np.float32)
        update = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
        inputs = {"past": (past, ["batch", 2, 6, 4]), "update": (update, ["batch", 2, 3, 4])}
        if with_indices:
            # Linear writes must fit (onnxruntime checks); circular ones wrap past the end.
            inputs["index"] = (np.array([0, 2, 5] if mode == "circular" else [0, 2, 3], np.int64), ["batch"])
        node = helper.make_node("TensorScatter", list(inputs), ["present"], mode=mode)
        return Case(node, inputs, [("present", FLOAT)], 24)

    return build


CASES = {
    "DFT17-real-dynamic": _dft(17, (2, 8, 1), ["batch", 8, 1], axis=1),
    "DFT17-complex-padded": _dft(17, (2, 6, 2), [2, 6, 2], length=9, axis=1),
    "DFT20-inverse-truncated": _dft(20, (2, 10, 2), ["batch", 10, 2], length=7, inverse=1),
    "DFT20-rfft-axis0": _dft(20, (6, 3, 1), [6, "n", 1], axis=0, onesided=1),
    "DFT20-irfft-odd": _dft(20, (2, 4, 3, 2), ["batch", 4, 3, 2], length=7, axis=1, inverse=1, onesided=1),
    "DFT20-runtime-axis": _dft_runtime_axis,
    "STFT-real-window": _stft(False, True, 1),
    "STFT-complex-twosided": _stft(True, False, 0),
    "HannWindow": _window("HannWindow", 1),
    "HammingWindow-symmetric": _window("HammingWindow", 0),
    "BlackmanWindow": _window("BlackmanWindow", 1),
    "MelWeightMatrix-literal": _mel_weight_matrix(False),
    "MelWeightMatrix-runtime": _mel_weight_matrix(True),
    "CumProd": _cum_prod(0, 0, False),
    "CumProd-exclusive-reverse-runtime-axis": _cum_prod(1, 1, True),
    "Unique-sorted": _unique(1, None),
    "Unique-unsorted-axis": _unique(0, 0),
    "Unique-sorted-axis1": _unique(1, 1),
    "Unique-nan": _unique_with_nan,
    "BitCast-uint32-int32": _bit_cast(np.array([4294967295, 2147483648, 7], np.uint32), TensorProto.INT32),
    "BitCast-bool-uint8": _bit_cast(np.array([True, False, True]), TensorProto.UINT8),
    "BitCast-float-int32": _bit_cast(np.array(SPECIAL_FLOATS, np.float32), TensorProto.INT32),
    # IREE's CPU code reads a subnormal input as 0 (denormals are flushed): its variant has none.
    "BitCast-float-int32-normal": _bit_cast(np.array([f for f in SPECIAL_FLOATS if f != 1e-40], np.float32),
                                            TensorProto.INT32),
    "BitCast-int32-float": _bit_cast(np.array(SPECIAL_FLOATS, np.float32).view(np.int32), TensorProto.FLOAT),
    "BitCast-uint32-float": _bit_cast(np.array(SPECIAL_FLOATS, np.float32).view(np.uint32), TensorProto.FLOAT),
    "BitCast-float64-int64": _bit_cast(np.array(SPECIAL_FLOATS + [1e-310], np.float64), TensorProto.INT64),
    "BitCast-int64-float64": _bit_cast(np.array(SPECIAL_FLOATS + [1e-310], np.float64).view(np.int64),
                                       TensorProto.DOUBLE),
    "BitCast-float16-int16": _bit_cast(np.array([1.0, -2.5, -0.0, np.inf, 1e-7, 65504.0, np.nan], np.float16),
                                       TensorProto.INT16),
    "BitCast-int16-float16": _bit_cast(np.array([1.0, -2.5, -0.0, np.inf, 1e-7, 65504.0], np.float16).view(np.int16),
                                       TensorProto.FLOAT16),
    "TensorScatter-linear": _tensor_scatter("linear", True),
    "TensorScatter-prefill": _tensor_scatter("linear", False),
    "TensorScatter-circular": _tensor_scatter("circular", True),
}


def _params(names, backends):
    for name in names:
        for backend in backends:
            reason = CASES[name]().known_failures.get(backend)
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(name, backend, id=f"{name}-{backend}", marks=marks)


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for ours, theirs in zip(outputs, expected):
        ours = np.asarray(ours)
        assert ours.shape == theirs.shape
        if theirs.dtype.kind == "f":
            np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
        else:
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name, backend", list(_params(CASES, BACKENDS)))
def test_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    _assert_matches(runtime.run(module, case.arrays(), input_dialect=backend), case.expected())


IREE_CASES = ["DFT20-irfft-odd", "STFT-real-window", "CumProd-exclusive-reverse-runtime-axis", "Unique-sorted",
              "TensorScatter-circular", "BitCast-float-int32-normal", "BitCast-int32-float"]


@pytest.mark.parametrize("name, backend", list(_params(IREE_CASES, ("linalg-on-tensors",))))
def test_iree_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=False), backend)
    _assert_matches(compile_with_iree(module, backend)(*case.arrays()), case.expected())


def test_a_window_longer_than_frame_length_is_refused_naming_the_node():
    import onnx_torch_mlir
    from onnx_torch_mlir.errors import OnnxTorchMlirError

    with pytest.raises(OnnxTorchMlirError, match=r"node 'STFT:y' \(STFT\).*window must match the frame_length"):
        onnx_torch_mlir.compile(_stft_window_past_the_end().model(static=True), output_type="linalg-on-tensors")


def test_dft_matches_numpy_fft_on_a_long_signal():
    """rfft of 64 samples: the products keep fp32 accuracy against numpy's float64 FFT."""
    x = _rng(6).standard_normal((1, 64, 1)).astype(np.float32)
    case = Case(helper.make_node("DFT", ["x"], ["y"], onesided=1), {"x": (x, [1, 64, 1])}, [("y", FLOAT)], 20)
    (ours,) = runtime.run(onnx_torch_mlir.compile(case.model(static=True), "linalg-on-tensors"), [x])
    spectrum = np.fft.rfft(x[0, :, 0].astype(np.float64))
    np.testing.assert_allclose(ours[0, :, 0], spectrum.real, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours[0, :, 1], spectrum.imag, rtol=1e-4, atol=1e-4)
