"""LSTM, GRU and RNN compiled with our importer and conversion, run on the reference CPU runner (and
on IREE for a few), compared with onnxruntime's CPU kernels.

Each case is one node on seeded inputs. Linalg compiles the model twice: with symbolic sequence
and batch dims (the time loop is a `torch.prim.Loop`, lowered to `scf.for`) and with static dims
(the loop is unrolled); TOSA and StableHLO compile it with static dims (they have no loop).
Two torch modules (nn.LSTM, nn.GRU) exported by torch.onnx.export are compiled whole. Double and
half GRUs are compared with ONNX's reference evaluator (onnxruntime's CPU GRU takes float only).

Tolerance (fp32): rtol 1e-4, atol 1e-5; the largest difference seen is below 2e-6.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

RTOL, ATOL = 1e-4, 1e-5
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6


@dataclass
class Case:
    op_type: str
    direction: str = "forward"
    layout: int = 0
    attributes: dict = field(default_factory=dict)
    optional: tuple = ("B", "initial_h", "initial_c")  # optional inputs given
    lengths: list | None = None
    outputs: tuple = ("Y", "Y_h", "Y_c")
    opset: int = 17
    seed: int = 0
    seq: int = SEQ

    @property
    def directions(self) -> int:
        return 2 if self.direction == "bidirectional" else 1

    def arrays(self) -> dict:
        """Input name -> (array, dims with the sequence and batch dims symbolic)."""
        rng = np.random.default_rng(self.seed)
        gates, d = GATES[self.op_type], self.directions
        normal = lambda *shape: (rng.standard_normal(shape) * 0.5).astype(np.float32)  # noqa: E731
        seq_batch = ["batch", "seq"] if self.layout else ["seq", "batch"]
        x_shape = [BATCH, self.seq, INPUT] if self.layout else [self.seq, BATCH, INPUT]
        arrays = {
            "X": (normal(*x_shape), seq_batch + [INPUT]),
            "W": (normal(d, gates * HIDDEN, INPUT), [d, gates * HIDDEN, INPUT]),
            "R": (normal(d, gates * HIDDEN, HIDDEN), [d, gates * HIDDEN, HIDDEN]),
        }
        if "B" in self.optional:
            arrays["B"] = (normal(d, 2 * gates * HIDDEN), [d, 2 * gates * HIDDEN])
        if self.lengths is not None:
            arrays["sequence_lens"] = (np.array(self.lengths, np.int32), ["batch"])
        state_shape = [BATCH, d, HIDDEN] if self.layout else [d, BATCH, HIDDEN]
        state_dims = ["batch", d, HIDDEN] if self.layout else [d, "batch", HIDDEN]
        if "initial_h" in self.optional:
            arrays["initial_h"] = (normal(*state_shape), state_dims)
        if "initial_c" in self.optional and self.op_type == "LSTM":
            arrays["initial_c"] = (normal(*state_shape), state_dims)
        if "P" in self.optional:
            arrays["P"] = (normal(d, 3 * HIDDEN), [d, 3 * HIDDEN])
        return arrays

    def model(self, static: bool, arrays: dict | None = None) -> onnx.ModelProto:
        """The one-node model; `arrays` (name -> array) replaces the case's inputs, static only."""
        arrays = self.arrays() if arrays is None else {name: (array, None) for name, array in arrays.items()}
        order = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
        if self.op_type != "LSTM":
            order = order[:6]
        last = max(i for i, name in enumerate(order) if name in arrays)
        node_inputs = [name if name in arrays else "" for name in order[: last + 1]]
        outputs = [name for name in ("Y", "Y_h", "Y_c") if name in self.outputs]
        if self.op_type != "LSTM":
            outputs = [name for name in outputs if name != "Y_c"]
        node_outputs = [name if name in outputs else "" for name in ("Y", "Y_h", "Y_c")[: 3 if self.op_type == "LSTM" else 2]]
        while node_outputs and not node_outputs[-1]:
            node_outputs.pop()
        node = helper.make_node(
            self.op_type, node_inputs, node_outputs, name="rnn", hidden_size=HIDDEN, direction=self.direction,
            **({"layout": self.layout} if self.layout else {}), **self.attributes,
        )
        element = {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32}
        inputs = [
            helper.make_tensor_value_info(name, element[array.dtype.type], list(array.shape) if static else dims)
            for name, (array, dims) in arrays.items()
        ]
        graph = helper.make_graph(
            [node], "recurrent", inputs, [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], ir_version=8)
        return onnx.shape_inference.infer_shapes(model)

    def inputs(self) -> list:
        return [array for array, _ in self.arrays().values()]

    def expected(self) -> list:
        """onnxruntime's outputs. Its CPU kernels take layout 0 only, and have no GRU-3 or RNN-1
        kernel: a layout-1 case runs as layout 0 on transposed inputs, its outputs transposed
        back; an opset below 7 runs at 7 (same semantics: 7 only dropped `output_sequence`)."""
        arrays = {name: array for name, (array, _) in self.arrays().items()}
        reference = replace(self, layout=0, opset=max(self.opset, 7))
        if self.layout:
            for name in ("X", "initial_h", "initial_c"):
                if name in arrays:
                    arrays[name] = np.ascontiguousarray(arrays[name].swapaxes(0, 1))
        session = onnxruntime.InferenceSession(
            reference.model(True, arrays).SerializeToString(), providers=["CPUExecutionProvider"]
        )
        outputs = session.run(None, arrays)
        if self.layout:  # Y [T, D, B, H] -> [B, T, D, H]; Y_h, Y_c [D, B, H] -> [B, D, H]
            outputs = [o.transpose(2, 0, 1, 3) if o.ndim == 4 else o.swapaxes(0, 1) for o in outputs]
        return outputs

CASES = {
    **{f"{op}-{direction}": Case(op, direction) for op in GATES for direction in ("forward", "reverse", "bidirectional")},
    **{f"{op}-layout1-bidirectional": Case(op, "bidirectional", layout=1) for op in GATES},
    "LSTM-sequence_lens-bidirectional": Case("LSTM", "bidirectional", lengths=[5, 2, 3]),
    "GRU-sequence_lens-reverse": Case("GRU", "reverse", lengths=[0, 5, 4]),
    "RNN-sequence_lens-layout1": Case("RNN", "bidirectional", layout=1, lengths=[3, 5, 1]),
    "LSTM-peepholes-clip": Case("LSTM", "bidirectional", optional=("B", "initial_h", "initial_c", "P"),
                                attributes={"clip": 0.4}),
    "LSTM-input_forget": Case("LSTM", optional=("B", "P"), attributes={"input_forget": 1}),
    "LSTM-activations": Case("LSTM", "bidirectional", attributes={
        "activations": ["HardSigmoid", "LeakyRelu", "ScaledTanh", "Sigmoid", "Elu", "Softsign"],
        "activation_alpha": [0.3, 0.05, 1.5, 0.8], "activation_beta": [0.4, 0.7]}),
    "GRU-linear_before_reset": Case("GRU", "bidirectional", attributes={"linear_before_reset": 1}),
    "GRU-linear_before_reset-no-B": Case("GRU", optional=("initial_h",), attributes={"linear_before_reset": 1}),
    "GRU-activations-clip": Case("GRU", attributes={
        "activations": ["Affine", "ThresholdedRelu"], "activation_alpha": [0.4, 0.1], "activation_beta": [0.5],
        "clip": 1.2}),
    "RNN-relu-no-optional": Case("RNN", optional=(), attributes={"activations": ["Relu"]}),
    "RNN-softplus-defaults": Case("RNN", "bidirectional", attributes={"activations": ["Softplus", "HardSigmoid"]}),
    "LSTM-only-Y_c": Case("LSTM", "reverse", outputs=("Y_c",)),
    "LSTM-opset7-no-Y": Case("LSTM", optional=("B",), outputs=("Y_h",), opset=7),
    "RNN-opset1": Case("RNN", "reverse", outputs=("Y",), opset=1),
    "RNN-long": Case("RNN", "bidirectional", lengths=[70, 3, 41], seq=70),  # static: over UNROLL_LIMIT, a loop
    "GRU-opset3": Case("GRU", "bidirectional", outputs=("Y",), opset=3, attributes={"linear_before_reset": 1}),
}
# (name, backend, static): every case on Linalg with symbolic dims (the `torch.prim.Loop`); a few
# with static dims (unrolled) on each backend: one of each op and the forms that differ the most.
STATIC_CASES = [
    "LSTM-peepholes-clip", "GRU-linear_before_reset", "RNN-sequence_lens-layout1", "LSTM-activations",
    "LSTM-sequence_lens-bidirectional",
]
# With symbolic dims on StableHLO: the tensor-only loop that becomes a `stablehlo.while`.
DYNAMIC_STABLEHLO_CASES = [
    "LSTM-sequence_lens-bidirectional", "GRU-sequence_lens-reverse", "RNN-sequence_lens-layout1", "LSTM-only-Y_c",
    "GRU-linear_before_reset",
]
RUNS = [(name, "linalg-on-tensors", False) for name in CASES] + [
    (name, backend, True) for name in STATIC_CASES for backend in ("linalg-on-tensors", "tosa", "stablehlo")
] + [(name, "stablehlo", False) for name in DYNAMIC_STABLEHLO_CASES]


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for index, (got, want) in enumerate(zip(outputs, expected)):
        assert got.shape == want.shape, (index, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {index}")


@pytest.mark.parametrize(
    "name, backend, static", RUNS, ids=[f"{n}-{b}-{'static' if s else 'dynamic'}" for n, b, s in RUNS]
)
def test_matches_onnxruntime(name, backend, static):
    case = CASES[name]
    module = onnx_torch_mlir.compile(case.model(static), backend)
    _assert_matches(runtime.run(module, case.inputs(), input_dialect=backend), case.expected())


def test_a_dynamic_length_compiles_to_a_loop_and_runs_at_other_lengths():
    case = CASES["LSTM-sequence_lens-bidirectional"]
    module = onnx_torch_mlir.compile(case.model(False), "linalg-on-tensors")
    assert "scf.for" in str(module)
    for seq, lengths in ((2, [2, 1, 2]), (9, [9, 4, 7])):
        arrays = case.arrays()
        arrays["X"] = (np.random.default_rng(seq).standard_normal((seq, BATCH, INPUT)).astype(np.float32), None)
        arrays["sequence_lens"] = (np.array(lengths, np.int32), None)
        session = onnxruntime.InferenceSession(case.model(False).SerializeToString(), providers=["CPUExecutionProvider"])
        expected = session.run(None, {name: array for name, (array, _) in arrays.items()})
        _assert_matches(runtime.run(module, [array for array, _ in arrays.values()]), expected)


def test_a_static_length_over_the_unroll_limit_is_a_loop_on_linalg():
    case = CASES["RNN-long"]
    module = onnx_torch_mlir.compile(case.model(True), "linalg-on-tensors")
    assert "scf.for" in str(module)
    _assert_matches(runtime.run(module, case.inputs()), case.expected())


def test_a_dynamic_length_fails_clearly_on_tosa():
    with pytest.raises(Exception, match="the sequence length is dynamic, and on tosa the step outputs would grow"):
        onnx_torch_mlir.compile(CASES["GRU-forward"].model(False), "tosa")


def test_a_dynamic_length_fixed_with_dims_runs_on_tosa():
    """The way out the TOSA message names: --dim fixes the length, and the layer is unrolled."""
    case = CASES["LSTM-sequence_lens-bidirectional"]
    module = onnx_torch_mlir.compile(_dynamic_length_only(case.model(True)), "tosa", dims={"T": SEQ})
    _assert_matches(runtime.run(module, case.inputs(), input_dialect="tosa"), case.expected())
    _assert_matches(compile_with_iree(module, "tosa")(*case.inputs()), case.expected())


def _dynamic_length_only(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` (static) with X's and Y's dim 0 (the sequence length) symbolic, the batch static."""
    for value in [*model.graph.input, *model.graph.output]:
        if value.name in ("X", "Y"):
            value.type.tensor_type.shape.dim[0].dim_param = "T"
    del model.graph.value_info[:]
    return model


# IREE runs the while loop over a run-time length with a static batch only: with a run-time batch
# too, its stream conversion fails on the dims the loop body reads ("failed to legalize unresolved
# target materialization from ('index') to ('!stream.resource<*>', 'index')"); the reference runner
# takes both (DYNAMIC_STABLEHLO_CASES above).
def test_a_dynamic_length_is_a_while_loop_on_stablehlo_and_runs_at_other_lengths():
    case = CASES["LSTM-sequence_lens-bidirectional"]
    model = _dynamic_length_only(case.model(True))
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert str(module).count("stablehlo.while") == 2
    for seq, lengths in ((1, [1, 0, 1]), (9, [9, 4, 7])):
        arrays = case.arrays()
        arrays["X"] = (np.random.default_rng(seq).standard_normal((seq, BATCH, INPUT)).astype(np.float32), None)
        arrays["sequence_lens"] = (np.array(lengths, np.int32), None)
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        expected = session.run(None, {name: array for name, (array, _) in arrays.items()})
        inputs = [array for array, _ in arrays.values()]
        _assert_matches(runtime.run(module, inputs, input_dialect="stablehlo"), expected)
        _assert_matches(compile_with_iree(module, "stablehlo")(*inputs), expected)


IREE_RUNS = [("LSTM-peepholes-clip", "linalg-on-tensors", False), ("GRU-linear_before_reset", "linalg-on-tensors", True),
             ("RNN-sequence_lens-layout1", "stablehlo", True)]


@pytest.mark.parametrize("name, backend, static", IREE_RUNS, ids=[f"{n}-{b}" for n, b, _ in IREE_RUNS])
def test_iree_matches_onnxruntime(name, backend, static):
    case = CASES[name]
    module = onnx_torch_mlir.compile(case.model(static), backend)
    _assert_matches(compile_with_iree(module, backend)(*case.inputs()), case.expected())


# -- torch modules exported by torch.onnx.export -------------------------------------------------


def _exported(module_type: str, dynamic_length: bool, tmp_path):
    import torch  # a test-only dependency

    torch.manual_seed(0)
    layers = 2 if module_type == "LSTM" else 1
    layer = getattr(torch.nn, module_type)(INPUT, HIDDEN, num_layers=layers, bidirectional=True)
    x = torch.randn(SEQ, BATCH, INPUT)
    path = tmp_path / f"{module_type}.onnx"
    dynamic_axes = {"x": {0: "seq"}, "y": {0: "seq"}} if dynamic_length else None
    torch.onnx.export(layer, (x,), str(path), input_names=["x"], output_names=["y"], opset_version=17,
                      dynamo=False, dynamic_axes=dynamic_axes)
    return onnx.load(str(path)), x.numpy()


@pytest.mark.parametrize("module_type", ["LSTM", "GRU"])
@pytest.mark.parametrize("dynamic_length", [False, True], ids=["static", "dynamic"])
def test_exported_torch_module_matches_onnxruntime(module_type, dynamic_length, tmp_path):
    model, x = _exported(module_type, dynamic_length, tmp_path)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})
    compiled = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert ("scf.for" in str(compiled)) == dynamic_length
    _assert_matches(runtime.run(compiled, [x]), expected)


def test_exported_lstm_with_dynamic_length_on_iree(tmp_path):
    model, x = _exported("LSTM", True, tmp_path)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    compiled = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    _assert_matches(compile_with_iree(compiled, "linalg-on-tensors")(x), session.run(None, {"x": x}))


@pytest.mark.parametrize("element, atol", [(TensorProto.DOUBLE, 1e-12), (TensorProto.FLOAT16, 2e-3)], ids=["f64", "f16"])
def test_other_float_types_match_the_onnx_reference(element, atol):
    """onnxruntime's CPU GRU takes float only: the reference is ONNX's reference evaluator."""
    from onnx.reference import ReferenceEvaluator

    dtype = helper.tensor_dtype_to_np_dtype(element)
    rng = np.random.default_rng(0)
    arrays = {"X": rng.standard_normal((SEQ, BATCH, INPUT)), "W": rng.standard_normal((1, 3 * HIDDEN, INPUT)) * 0.5,
              "R": rng.standard_normal((1, 3 * HIDDEN, HIDDEN)) * 0.5}
    arrays = {name: array.astype(dtype) for name, array in arrays.items()}
    node = helper.make_node("GRU", list(arrays), ["Y", "Y_h"], hidden_size=HIDDEN)
    graph = helper.make_graph(
        [node], "gru", [helper.make_tensor_value_info(n, element, a.shape) for n, a in arrays.items()],
        [helper.make_tensor_value_info(name, element, None) for name in ("Y", "Y_h")],
    )
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)]))
    outputs = runtime.run(onnx_torch_mlir.compile(model, "linalg-on-tensors"), list(arrays.values()))
    for got, want in zip(outputs, ReferenceEvaluator(model).run(None, arrays), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=atol)
