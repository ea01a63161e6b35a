"""com.microsoft DynamicQuantizeLSTM compiled with our conversion, run on the reference CPU runner
(and IREE for one case), compared with onnxruntime's CPU kernel.

Each case is one hand-built node on seeded inputs: per-tensor and per-column scales and zero points
(onnxruntime's schema requires them), uint8 and int8 weights, the three directions, sequence_lens, initial states
present or absent, peepholes. onnxruntime quantizes X and each step's hidden state to uint8 and
multiplies in integers; its session runs on one thread, since with several it quantizes each
thread's batch rows apart. Its uint8 x int8 kernel saturates on x86 CPUs without AVX-VNNI, so the
int8 cases skip there (onnxruntime_reference.skip_if_uint8_int8_saturates); uint8 x uint8 is exact.

Tolerance: rtol 1e-4, atol 1e-5 (TOSA's cell differs from onnxruntime's in the last bits, and so
does IREE's, which fuses multiplies and adds; a flip of one quantized activation would be far
larger). On Linalg and StableHLO the reference runner is held to onnxruntime's bits
(test_bit_identical_to_onnxruntime).
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

from onnxruntime_reference import skip_if_uint8_int8_saturates

RTOL, ATOL = 1e-4, 1e-5
SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6


@dataclass(frozen=True)
class Case:
    direction: str = "forward"
    weights: str = "uint8"  # or "int8"
    per_column: bool = False
    bias: bool = True
    initial_states: bool = True
    lengths: tuple | None = None
    peepholes: bool = False
    seed: int = 0
    seq: int = SEQ
    batch: int = BATCH
    hidden: int = HIDDEN

    @property
    def directions(self) -> int:
        return 2 if self.direction == "bidirectional" else 1

    def _quantized_weights(self, rng, rows: int, name: str):
        d, columns = self.directions, 4 * self.hidden
        scale_shape = (d, columns) if self.per_column else (d,)
        scales = rng.uniform(0.002, 0.02, scale_shape).astype(np.float32)
        if self.weights == "uint8":
            weights = rng.integers(0, 256, (d, rows, columns)).astype(np.uint8)
            # onnxruntime requires per-column zero points to be one value (in both directions)
            per_direction = rng.integers(100, 156, (d,)).astype(np.uint8)
            zero = np.full(scale_shape, per_direction[0], np.uint8) if self.per_column else per_direction
        else:
            weights = rng.integers(-127, 128, (d, rows, columns)).astype(np.int8)
            zero = np.zeros(scale_shape, np.int8)  # and 0 for int8 weights
        return [numpy_helper.from_array(weights, name), numpy_helper.from_array(scales, f"{name}_scale"),
                numpy_helper.from_array(zero, f"{name}_zero_point")]

    def model_and_inputs(self) -> tuple[onnx.ModelProto, dict]:
        rng = np.random.default_rng(self.seed)
        d = self.directions
        w, w_scale, w_zero = self._quantized_weights(rng, INPUT, "W")
        r, r_scale, r_zero = self._quantized_weights(rng, self.hidden, "R")
        initializers = [w, r, w_scale, r_scale, w_zero, r_zero]
        inputs = {"X": (rng.standard_normal((self.seq, self.batch, INPUT)) * 2).astype(np.float32)}
        names = ["X", "W", "R", "", "", "", "", ""]
        if self.bias:
            initializers.append(numpy_helper.from_array((rng.standard_normal((d, 8 * self.hidden)) * 0.3).astype(np.float32), "B"))
            names[3] = "B"
        if self.lengths is not None:
            inputs["sequence_lens"] = np.array(self.lengths, np.int32)
            names[4] = "sequence_lens"
        if self.initial_states:
            inputs["initial_h"] = (rng.standard_normal((d, self.batch, self.hidden)) * 0.5).astype(np.float32)
            inputs["initial_c"] = (rng.standard_normal((d, self.batch, self.hidden)) * 0.5).astype(np.float32)
            names[5:7] = ["initial_h", "initial_c"]
        if self.peepholes:
            initializers.append(numpy_helper.from_array((rng.standard_normal((d, 3 * self.hidden)) * 0.3).astype(np.float32), "P"))
            names[7] = "P"
        names += ["W_scale", "W_zero_point", "R_scale", "R_zero_point"]
        node = helper.make_node("DynamicQuantizeLSTM", names, ["Y", "Y_h", "Y_c"], domain="com.microsoft",
                                hidden_size=self.hidden, direction=self.direction)
        elements = {"sequence_lens": TensorProto.INT32}
        graph = helper.make_graph(
            [node], "dynamic_quantize_lstm",
            [helper.make_tensor_value_info(name, elements.get(name, TensorProto.FLOAT), array.shape)
             for name, array in inputs.items()],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [self.seq, d, self.batch, self.hidden]),
             helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [d, self.batch, self.hidden]),
             helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, [d, self.batch, self.hidden])],
            initializers,
        )
        opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
        return helper.make_model(graph, opset_imports=opsets, ir_version=8), inputs


CASES = {
    "bidirectional_per_tensor": Case("bidirectional"),
    "forward_per_column_lengths": Case("forward", per_column=True, lengths=(5, 2, 4), initial_states=False),
    "reverse_without_bias": Case("reverse", bias=False),
    "forward_peepholes_one_length_zero": Case("forward", peepholes=True, lengths=(3, 0, 5), seed=1),
    "bidirectional_equal_lengths": Case("bidirectional", per_column=True, lengths=(5, 5, 5), initial_states=False,
                                        seed=2),
    "bidirectional_int8": Case("bidirectional", weights="int8", seed=3),
    "reverse_int8_per_column": Case("reverse", weights="int8", per_column=True, seed=4),
}
BACKENDS = ["linalg-on-tensors", "stablehlo", "tosa"]


def _onnxruntime(model: onnx.ModelProto, inputs: dict) -> list:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def _compare(outputs, wanted):
    assert len(outputs) == len(wanted)
    for got, want in zip(outputs, wanted):
        np.testing.assert_allclose(np.asarray(got), want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name, backend):
    case = CASES[name]
    if case.weights == "int8":
        skip_if_uint8_int8_saturates()
    model, inputs = case.model_and_inputs()
    module = onnx_torch_mlir.compile(model, backend)
    _compare(runtime.run(module, list(inputs.values()), input_dialect=backend), _onnxruntime(model, inputs))


def _onnxruntime_uses_fma3_kernels() -> bool:
    """Whether onnxruntime's MLAS computes Sigmoid and Tanh with its x86-64 FMA3 kernels here (it
    dispatches them on any CPU with AVX2 and FMA3), the ones mlas_activations.py reproduces."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split(":", 1)[1].split() for line in cpuinfo if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case.weights == "uint8"))
def test_bit_identical_to_onnxruntime(name, backend):
    """The reference runner gives onnxruntime's bits: the same float operations in the same order
    (gate bias after the products, MLAS's Sigmoid and Tanh). Close is not enough here: each step
    quantizes Ht-1 at run time, so an ulp of difference can round a value to the other integer and
    the recurrence carries that step (0.27 on the wild tashkeel BiLSTM's logits before)."""
    if not _onnxruntime_uses_fma3_kernels():
        pytest.skip("onnxruntime computes Sigmoid and Tanh with other MLAS kernels on a CPU without AVX2 and FMA3 "
                    "(SSE2, ARM), whose roundings mlas_activations.py does not reproduce")
    model, inputs = CASES[name].model_and_inputs()
    module = onnx_torch_mlir.compile(model, backend)
    outputs = runtime.run(module, list(inputs.values()), input_dialect=backend)
    for got, want in zip(outputs, _onnxruntime(model, inputs), strict=True):
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_iree_matches_onnxruntime(backend):
    model, inputs = CASES["forward_per_column_lengths"].model_and_inputs()
    module = onnx_torch_mlir.compile(model, backend)
    _compare(compile_with_iree(module, backend)(*inputs.values()), _onnxruntime(model, inputs))


def test_dynamic_sequence_and_batch_run_in_a_loop():
    """Symbolic sequence and batch dims: the steps run in a `torch.prim.Loop` on Linalg."""
    model, inputs = CASES["forward_per_column_lengths"].model_and_inputs()
    symbolic = onnx.ModelProto()
    symbolic.CopyFrom(model)
    for value in symbolic.graph.input:
        dims = value.type.tensor_type.shape.dim
        if value.name == "X":
            dims[0].dim_param, dims[1].dim_param = "seq", "batch"
        elif value.name == "sequence_lens":
            dims[0].dim_param = "batch"
    module = onnx_torch_mlir.compile(symbolic, "linalg-on-tensors")
    assert "scf.for" in str(module) or "scf.while" in str(module)
    _compare(runtime.run(module, list(inputs.values())), _onnxruntime(model, inputs))


def test_per_column_int8_zero_points_must_be_zero():
    model, _ = Case("forward", weights="int8", per_column=True).model_and_inputs()
    zero = next(init for init in model.graph.initializer if init.name == "W_zero_point")
    values = numpy_helper.to_array(zero).copy()
    values[0, 1] = 3
    zero.CopyFrom(numpy_helper.from_array(values, "W_zero_point"))
    with pytest.raises(Exception, match="W_zero_point per column must be 0"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")
