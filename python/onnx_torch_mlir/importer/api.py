"""`import_onnx`: an ONNX model as an MLIR module, in either spelling."""

import onnx
from torch_mlir import ir

from ..dialect.verifier import verify_module
from ..errors import ImportError_
from ..mlir_context import make_context
from ..string_forms import DEFAULT_STRING_BYTES
from .fixed_dims import (
    fix_input_shapes, fix_symbolic_dims, parse_dim_options, parse_input_shape_options, without_negative_dims,
)
from .input_values import fix_input_values, parse_input_value_options
from .functions import DEFAULT_EXPAND_OPS, expand_function_ops, inline_expansions, inline_local_functions
from .graph import GraphImporter
from .loading import open_model
from .ml_types import check_declared_results, check_torch_carriable
from .node_structure import opset_versions
from .onnx_dialect import OnnxDialectEmitter
from .progress import Progress
from .shape_inference import infer_types, skeleton
from .string_bytes import strings_as_bytes
from .torch_onnx import TorchOnnxEmitter
from .validation import (
    check_declared_types, check_node_structure, check_schema_input_types, release_contradicted_declarations,
)
from .zipmap import record_labels, zipmap_outputs_as_tensors

FORMS = {"onnx": OnnxDialectEmitter, "torch-onnx": TorchOnnxEmitter}
FUNCTION_MODES = ("inline", "call")


def import_onnx(
    model,
    form: str = "torch-onnx",
    *,
    context: ir.Context | None = None,
    base_dir=None,
    expand_ops=DEFAULT_EXPAND_OPS,
    functions: str = "inline",
    verify: bool = True,
    progress: bool | None = None,
    dims=None,
    input_shapes=None,
    input_values=None,
    string_bytes: int = DEFAULT_STRING_BYTES,
) -> ir.Module:
    """Import `model` (a path, the serialized bytes or an onnx.ModelProto) to MLIR.

    form: "onnx" (the ONNX dialect as onnx-mlir prints it) or "torch-onnx"
    (torch-mlir's `torch.operator "onnx.X"` form). `base_dir`: where external
    data lives when `model` is bytes or a proto. `expand_ops`: op types whose
    ONNX function body replaces them ("all", or a set). `functions`:
    model-local functions are "inline"d, or kept as private functions
    specialized per call signature and called ("call"). `verify`: check
    ONNX-dialect ops against the ONNX schemas. `progress`: show progress on
    stderr (default: when it is a terminal). `dims`: symbolic dims fixed to a size
    ({"batch": 1} or ["batch=1"]), as the command line's `--dim NAME=SIZE`. `input_shapes`:
    inputs' whole shapes fixed ({"mask": (1, 12)} or ["mask=1x12"]), as `--input-shape`.
    `input_values`: inputs fixed to a value and no longer arguments ({"sr": 16000} or ["sr=16000"]), as
    `--input-value` (importer/input_values.py). `string_bytes`: in the torch-ONNX form, a string
    input is its strings' UTF-8 bytes, zero-padded to this width (importer/string_bytes.py).
    """
    if form not in FORMS:
        raise ImportError_(f"unknown form '{form}': expected one of {', '.join(FORMS)}")
    if functions not in FUNCTION_MODES:
        raise ImportError_(f"unknown functions mode '{functions}': expected one of {', '.join(FUNCTION_MODES)}")
    opened = open_model(model, base_dir)
    typed, zipmap_labels = _typed_skeleton(
        opened, expand_ops, inline=functions == "inline", dims=parse_dim_options(dims),
        input_shapes=parse_input_shape_options(input_shapes), input_values=parse_input_value_options(input_values),
        string_bytes=string_bytes if form == "torch-onnx" else None,
    )
    check_declared_results(typed.graph, opset_versions(typed), opened.name)
    if form == "torch-onnx":
        check_torch_carriable(typed.graph, opset_versions(typed), opened.name)
    context = context or make_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        emitter = FORMS[form](context, opened.weights)
        tracker = Progress(len(typed.graph.node), f"importing {opened.name}", enabled=progress)
        GraphImporter(emitter, opened.name, tracker).import_main(typed, module)
        record_labels(module, zipmap_labels)
        tracker.finish()
        if form == "onnx" and verify:
            verify_module(module, opened.name)
    return module


def _check_opsets(model: onnx.ModelProto, model_name: str) -> None:
    """An opset newer than this onnx knows cannot be imported faithfully: refuse it."""
    newest = onnx.defs.onnx_opset_version()
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx") and not 1 <= opset.version <= newest:
            raise ImportError_(
                f"{model_name}: unknown opset {opset.version} for the default ONNX domain (this onnx knows 1 to {newest})"
            )


def _typed_skeleton(opened, expand_ops, inline: bool, dims=None, input_shapes=None,
                    input_values=None, string_bytes: int | None = None) -> tuple[onnx.ModelProto, dict]:
    """The model's structure with every value typed (weights stay where `opened.weights` finds them),
    and the label order of each ZipMap output compiled as its dense probabilities (zipmap.py).
    `string_bytes`: the width strings are held at as bytes (string_bytes.py); None keeps strings."""
    _check_opsets(opened.proto, opened.name)
    proto, originals = skeleton(opened.proto)
    proto = without_negative_dims(proto)
    proto = fix_symbolic_dims(proto, dims or {}, opened.name)
    proto = fix_input_shapes(proto, input_shapes or {}, opened.name)
    proto = fix_input_values(proto, input_values or {}, opened.name)
    opened.weights.originals.update(originals)
    if inline:
        proto = inline_local_functions(proto, opened.name)
    proto, zipmap_labels = zipmap_outputs_as_tensors(proto, opened.name)
    if string_bytes is not None:
        proto = strings_as_bytes(proto, string_bytes, opened.name)
    check_node_structure(proto, opened.name)
    proto = check_declared_types(proto, opened.name)
    typed = infer_types(proto, opened.name)
    released = release_contradicted_declarations(proto, typed, opened.name)
    if released is not None:
        typed = infer_types(released, opened.name)
    check_schema_input_types(typed, opened.name)
    if expand_function_ops(typed, expand_ops, opened.name):
        typed = infer_types(inline_expansions(typed, opened.name), opened.name)
    return typed, zipmap_labels
