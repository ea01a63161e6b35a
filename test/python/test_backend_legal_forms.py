"""Backend-legal ops honoured by the conversion (issue 11 item 6, docs/custom-ops.md).

When the user keeps a Torch op that is the composite form of an ONNX op (aten.layer_norm,
aten.instance_norm, aten.selu, ...), our conversion emits that op instead of its decomposition, so
it reaches the backend as a custom op. Checked here for each such form:
- with the op backend-legal, the Torch output holds it; without, the default form is unchanged;
- the kept form computes what ONNX defines: compiled to Linalg, the kept op is a custom call that
  PyTorch's own aten op evaluates, and the result is compared with onnxruntime's;
- the seed's LayerNorm example from an ONNX model is one custom op on each backend and runs there
  with the runner's built-in implementation;
- a legal op that never appears is a warning naming the Torch ops that did.
"""

from __future__ import annotations

import importlib.util
import pathlib
import warnings

import numpy as np
import onnx
import onnxruntime
import pytest

import onnx_torch_mlir
from onnx_torch_mlir.conversion.passes import BackendLegalOpWarning
from onnx_torch_mlir.runtime import compile_for_cpu

INPUTS = pathlib.Path(__file__).parents[1] / "lit" / "custom_ops" / "Inputs"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, INPUTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FORMS = _load("legal_form_models")
# model -> the Torch op kept for it.
KEPT = {
    "instance_norm": "aten.instance_norm",
    "hard_sigmoid": "aten.hardsigmoid",
    "selu": "aten.selu",
    "celu": "aten.celu",
    "prelu": "aten.prelu",
    "fast_gelu": "aten.gelu",
    "quick_gelu": "aten.silu",
    "contrib_layer_norm": "aten.layer_norm",
    "simplified_layer_norm": "aten.rms_norm",
    "skip_layer_norm": "aten.layer_norm",
    "ms_attention": "aten.scaled_dot_product_attention",
    "ms_attention_causal": "aten.scaled_dot_product_attention",
    "resize_nearest": "aten.upsample_nearest2d",
    "resize_bilinear": "aten.upsample_bilinear2d",
    "resize_bilinear_scales": "aten.upsample_bilinear2d",
    "resize_align_corners": "aten.upsample_bilinear2d",
    "upsample": "aten.upsample_nearest2d",
    "global_average_pool": "aten.adaptive_avg_pool2d",
    "global_max_pool": "aten.adaptive_max_pool2d",
    "average_pool_3d": "aten.avg_pool3d",
}
BACKENDS = ["linalg-on-tensors", pytest.param("tosa", marks=pytest.mark.requires_path("tosa")),
            pytest.param("stablehlo", marks=pytest.mark.requires_path("stablehlo"))]
CUSTOM_OP = {
    "tosa": 'operator_name = "aten.layer_norm"',
    "stablehlo": "stablehlo.custom_call @torch.aten.layer_norm(",
    "linalg-on-tensors": "call @torch.aten.layer_norm(",
}


def _inputs(model: onnx.ModelProto) -> list:
    rng = np.random.default_rng(7)
    shapes = [[d.dim_value for d in value.type.tensor_type.shape.dim] for value in model.graph.input]
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def _onnxruntime(model: onnx.ModelProto, arrays: list) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {value.name: array for value, array in zip(model.graph.input, arrays)})


@pytest.mark.parametrize("name", sorted(KEPT))
def test_kept_form_is_emitted_only_when_legal(name):
    model, op = FORMS.MODELS[name](), KEPT[name]
    kept = str(onnx_torch_mlir.compile(model, "torch", backend_legal_ops=[op]))
    assert f"torch.{op} " in kept
    default = str(onnx_torch_mlir.compile(model, "torch"))
    assert f"torch.{op} " not in default


def _aten(op: str):
    """A custom-op implementation (attributes encoding) that is PyTorch's own `op`."""
    torch = pytest.importorskip("torch", reason="PyTorch evaluates the kept op (a test-only dependency)")
    _, name, *overload = op.split(".")
    function = getattr(getattr(torch.ops.aten, name), overload[0] if overload else "default")

    def run(*arguments):
        positional, keywords = [], {}
        for schema, value in zip(function._schema.arguments, arguments):
            value = torch.from_numpy(np.ascontiguousarray(value)) if isinstance(value, np.ndarray) else value
            if schema.kwarg_only:
                keywords[schema.name] = value
            else:
                positional.append(value)
        result = function(*positional, **keywords)
        return tuple(r.numpy() for r in result) if isinstance(result, (tuple, list)) else result.numpy()

    return run


@pytest.mark.parametrize("name", sorted(KEPT))
def test_kept_form_computes_what_onnx_defines(name):
    """The kept op as a Linalg custom call, evaluated by PyTorch's own aten op, against onnxruntime:
    our arguments mean, in torch's semantics of the op, what the ONNX node computes."""
    model, op = FORMS.MODELS[name](), KEPT[name]
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors", backend_legal_ops=[op], custom_op_encoding="attributes")
    assert f"call @torch.{op}(" in str(module)
    arrays = _inputs(model)
    actual = compile_for_cpu(module, input_dialect="linalg-on-tensors", custom_ops={f"torch.{op}": _aten(op)})(*arrays)
    for got, want in zip(actual, _onnxruntime(model, arrays)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _seed_layer_norm_model() -> onnx.ModelProto:
    """The seed's LayerNorm example (4x4 input, normalized_shape [4], weight ones, bias zeros)."""
    path = INPUTS / "layer_norm_model.py"
    spec = importlib.util.spec_from_file_location("layer_norm_model", path)
    source = path.read_text().replace("onnx.save(", "MODEL = (")
    namespace: dict = {"__name__": "layer_norm_model"}
    exec(compile(source.replace(", sys.argv[1])", ")"), str(path), "exec"), namespace)  # noqa: S102
    assert spec is not None
    return namespace["MODEL"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_layer_norm_from_onnx_is_a_custom_op_and_runs(backend):
    model = _seed_layer_norm_model()
    with warnings.catch_warnings():
        warnings.simplefilter("error", BackendLegalOpWarning)
        module = onnx_torch_mlir.compile(model, backend, backend_legal_ops=["aten.layer_norm"])
    text = str(module)
    assert text.count(CUSTOM_OP[backend]) == 1
    assert "native_layer_norm" not in text
    x = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    (out,) = compile_for_cpu(module, input_dialect=backend)(x)
    expected = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_layer_norm_with_used_statistics_keeps_native_form():
    """aten.layer_norm has one result: when Mean or InvStdDev is used, the native form stays, and the
    warning says aten.native_layer_norm is the op to keep."""
    model = _seed_layer_norm_model()
    node = model.graph.node[0]
    node.output.extend(["mean"])
    model.graph.output.append(onnx.helper.make_tensor_value_info("mean", onnx.TensorProto.FLOAT, [4, 1]))
    with pytest.warns(BackendLegalOpWarning, match=r"'aten.layer_norm' does not appear.*aten.native_layer_norm"):
        text = str(onnx_torch_mlir.compile(model, "torch", backend_legal_ops=["aten.layer_norm"]))
    assert "torch.aten.layer_norm" not in text


def test_absent_legal_op_warns_with_the_ops_that_appeared():
    model = FORMS.MODELS["selu"]()
    with pytest.warns(BackendLegalOpWarning) as record:
        onnx_torch_mlir.compile(model, "torch", backend_legal_ops=["aten.gelu"])
    (warning,) = [w for w in record if issubclass(w.category, BackendLegalOpWarning)]
    message = str(warning.message)
    assert "backend-legal op 'aten.gelu' does not appear in the module" in message
    assert message.endswith("could be kept instead: aten.elu")


def test_no_warning_when_every_legal_op_appears():
    with warnings.catch_warnings():
        warnings.simplefilter("error", BackendLegalOpWarning)
        text = str(onnx_torch_mlir.compile(FORMS.MODELS["celu"](), "torch", backend_legal_ops=["aten.celu"]))
    assert "torch.aten.celu" in text
