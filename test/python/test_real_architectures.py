"""Small real architectures, exported from torch.nn with both ONNX exporters, with a dynamic
batch (and sequence) dimension: compiled by our whole path to Linalg, run on the reference
runner at two sizes, and checked against onnxruntime on the same inputs."""

import warnings

import numpy as np
import onnx
import pytest

torch = pytest.importorskip("torch", reason="torch is a test-only dependency (make venv installs it)")
onnxruntime = pytest.importorskip("onnxruntime")

from onnx_torch_mlir import compile as compile_model  # noqa: E402
from onnx_torch_mlir.runtime import compile_for_cpu  # noqa: E402


class MultiLayerPerceptron(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(12, 32), torch.nn.GELU(), torch.nn.Linear(32, 8), torch.nn.Softmax(dim=-1)
        )

    def forward(self, x):
        return self.layers(x)


class SmallConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1),
            torch.nn.BatchNorm2d(8),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 8, 3, stride=2),
            torch.nn.Sigmoid(),
        )
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x):
        pooled = torch.nn.functional.adaptive_avg_pool2d(self.features(x), 1)
        return self.head(torch.flatten(pooled, 1))


class TinyTransformer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(50, 16)
        self.encoder = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, tokens):
        return self.norm(self.encoder(self.embedding(tokens)))


# name -> (module, example input, dynamic axes of the input, inputs at two other sizes)
ARCHITECTURES = {
    "mlp": (MultiLayerPerceptron, lambda batch: torch.randn(batch, 12), {0: "batch"}),
    "convnet": (SmallConvNet, lambda batch: torch.randn(batch, 3, 16, 16), {0: "batch"}),
    "transformer": (TinyTransformer, lambda batch, seq=7: torch.randint(0, 50, (batch, seq)), {0: "batch", 1: "sequence"}),
}


def export(name: str, exporter: str, directory) -> onnx.ModelProto:
    module_class, make_input, dynamic_axes = ARCHITECTURES[name]
    torch.manual_seed(0)
    module = module_class().eval()
    example = make_input(2)
    path = str(directory / f"{name}_{exporter}.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exporter == "torchscript":
            torch.onnx.export(
                module, (example,), path, dynamo=False, input_names=["x"], dynamic_axes={"x": dynamic_axes}
            )
        else:
            dims = {axis: torch.export.Dim(symbol, min=2, max=64) for axis, symbol in dynamic_axes.items()}
            torch.onnx.export(module, (example,), path, dynamo=True, input_names=["x"], dynamic_shapes=(dims,), verbose=False)
    return onnx.load(path)


def onnxruntime_outputs(model: onnx.ModelProto, array: np.ndarray):
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: array})


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_compiles_and_matches_onnxruntime_at_two_sizes(name, exporter, tmp_path):
    model = export(name, exporter, tmp_path)
    module = compile_model(model, "linalg-on-tensors")
    program = compile_for_cpu(module)
    assert "?" in program.input_types[0], f"the batch dimension should stay dynamic: {program.input_types[0]}"
    make_input = ARCHITECTURES[name][1]
    torch.manual_seed(1)
    for batch in (3, 5):
        array = make_input(batch).numpy()
        expected = onnxruntime_outputs(model, array)
        actual = program(array)
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected):
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
