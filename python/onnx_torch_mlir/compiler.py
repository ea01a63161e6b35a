"""`compile`: an ONNX model to the Torch backend contract or to a backend dialect."""

from torch_mlir import ir

from . import config, timing
from .errors import ConversionError, DynamicDimsError, PipelineError
from .importer.loading import load_model
from .isolation import begin_step
from .mlir_context import make_context
from .pipelines import check_output_type, lower_torch_to_backend, route_option

IMPORTERS = ("ours", "torch-mlir")
CONVERTERS = ("ours", "torch-mlir")


def compile(
    model,
    output_type: str = "torch",
    *,
    backend_legal_ops=(),
    custom_op_encoding: str = "operands",
    keep_onnx_ops=(),
    importer: str = "ours",
    converter: str = "ours",
    context: ir.Context | None = None,
    dims=None,
    input_shapes=None,
    input_values=None,
    isolated: bool = False,
    entry_name: str | None = None,
    weights: str = "resources",
    weights_file=None,
    weights_min_bytes: int | None = None,
    conv_layout: str | None = None,
    conv_form: str | None = None,
    quantized_io: str | None = None,
    data_dependent_outputs: str | None = None,
    string_bytes: int | None = None,
) -> ir.Module:
    """Compile `model` (a path, bytes or onnx.ModelProto) to an MLIR module.

    output_type: "torch" (torch-mlir's backend contract), "linalg-on-tensors" (or "linalg"),
    "tosa" or "stablehlo". `importer` and `converter` choose whose ONNX importer
    and ONNX-to-Torch conversion run; "torch-mlir" selects the peer's.

    `backend_legal_ops` ("aten.layer_norm", ...) stay undecomposed through the
    Torch pipeline and become each backend's custom op; `keep_onnx_ops`
    ("NonMaxSuppression", ...) bypass the conversion and become custom ops of
    domain "onnx"; `custom_op_encoding` is "operands" or "attributes". The
    contract is docs/custom-ops.md.

    `dims` fixes symbolic dims at compile time: {"batch": 1} or ["batch=1"] (the command
    line's `--dim NAME=SIZE`), for forms a backend takes only with static sizes; `input_shapes`
    fixes whole input shapes: {"mask": (1, 12)} or ["mask=1x12"] (`--input-shape`), for dims
    without a name or with a name shared by dims of different sizes. `input_values` fixes inputs to a
    value, {"sr": 16000} or ["sr=16000"] (`--input-value`): each becomes a constant and is no longer an
    argument of the program, so an If on it is decided (importer/input_values.py). `string_bytes`
    (default 256, `--string-bytes`): a string input is held as its strings' UTF-8 bytes zero-padded to
    this width, a uint8 argument with one more dim (importer/string_bytes.py).

    `entry_name` names the entry function (default: the ONNX graph's name); XLA runs `main`.
    `weights` is "resources" (the default: `dense_resource` blobs, kept out of the printed IR),
    "inline" (literal `dense<...>` constants, which XLA and StableHLO's portable artifacts need),
    "arguments" (trailing arguments of the entry function, named after the ONNX initializers; the
    weights go to the safetensors file `weights_file`) or "parameters" (IREE parameters the module
    reads from the IREE parameter archive `weights_file`, scope "model"); transforms/output_form.py
    says why consumers differ, transforms/external_weights.py what the last two write. Those two take
    out the constants of at least `weights_min_bytes` bytes (default 1024).

    `conv_layout` (Linalg, StableHLO): "channels-last" (the default: 2-D convolutions and pools on NHWC
    images, the form IREE runs fast) or "as-imported" (torch-mlir's NCHW); pipelines.ROUTE_OPTIONS.
    `conv_form` (Linalg, StableHLO): "matrix-products" (the default: each static channels-last 2-D
    convolution as its image patches times the filter matrix, transforms/linalg/convolution_matrices.py)
    or "direct".
    `quantized_io` (TOSA, QDQ models): "float" (the default: the graph quantizes its float input and
    dequantizes its output, in float) or "int8" (an input read only by a QuantizeLinear to int8 is
    that int8 tensor, an output that is a DequantizeLinear of int8 is the int8 tensor: no float op
    left for an NPU compiler such as Vela; transforms/tosa/quantized_regions/).
    `data_dependent_outputs` (TOSA, StableHLO): "cut" (the default: an output whose rows the data
    decides, NonZero's, Compress's, NonMaxSuppression's, has a dynamic dim holding its run-time
    count) or "padded-with-counts" (each such output padded to the most rows it can have, and its
    count a 0-d int64 result after the model's outputs; the entry function's
    `onnx_torch_mlir.padded_results` says which: static shapes, what XLA and a TOSA flatbuffer need;
    runtime/padded_results.py cuts the outputs again; transforms/torch/dynamic_rows.py).

    `isolated=True` compiles in a forked child process (onnx_torch_mlir.isolation): a crash
    inside MLIR or torch-mlir raises InternalCompilerError (naming the pipeline step and a
    reproducer file) instead of ending this process; the module comes back as bytecode.
    """
    output_type = config.canonical_output_type(output_type)
    if isolated:
        from .isolation import compile_isolated

        return compile_isolated(
            model, output_type, context=context, backend_legal_ops=backend_legal_ops,
            custom_op_encoding=custom_op_encoding, keep_onnx_ops=keep_onnx_ops, importer=importer,
            converter=converter, dims=dims, input_shapes=input_shapes, input_values=input_values, entry_name=entry_name, weights=weights,
            weights_file=weights_file, weights_min_bytes=weights_min_bytes,
            conv_layout=conv_layout, conv_form=conv_form, quantized_io=quantized_io,
            data_dependent_outputs=data_dependent_outputs, string_bytes=string_bytes,
        )
    from .transforms.torch.custom_ops import ENCODINGS, normalize_backend_legal_ops

    check_output_type(output_type)
    config.require_output_type(output_type)
    if custom_op_encoding not in ENCODINGS:
        raise PipelineError(
            f"unknown custom-op encoding '{custom_op_encoding}': expected one of {', '.join(ENCODINGS)}"
        )
    from .weights_forms import WEIGHTS_FORMS

    if weights not in WEIGHTS_FORMS:
        raise PipelineError(f"unknown weights form '{weights}': expected one of {', '.join(WEIGHTS_FORMS)}")
    check_weights_file(weights, weights_file)
    route_options = {name: value for name, value in (("conv_layout", conv_layout), ("conv_form", conv_form),
                                                     ("quantized_io", quantized_io),
                                                     ("data_dependent_outputs", data_dependent_outputs))
                     if value}
    for name in route_options:
        route_option(route_options, name)
    legal = normalize_backend_legal_ops(backend_legal_ops)
    context = context or make_context()
    with timing.stage("import"):
        module = import_model(model, importer, context, dims, input_shapes, input_values, string_bytes)
    if keep_onnx_ops:
        if converter != "ours":
            raise PipelineError("keep_onnx_ops needs our conversion (converter='ours')")
        from .transforms.torch.custom_ops_onnx import keep_onnx_ops as keep

        keep(module, keep_onnx_ops)
    with timing.stage("conversion"):  # torch-mlir's simplification inside it is its own stage
        try:
            convert_to_torch(module, converter, legal, target=output_type)
        except ConversionError as error:
            raise with_open_dims_line(error, model, dims, input_shapes) from None
    with timing.stage("backend pipeline"):
        try:
            lower_torch_to_backend(module, output_type, backend_legal_ops=legal,
                                   custom_op_encoding=custom_op_encoding, options=route_options)
        except DynamicDimsError as error:
            raise with_open_dims(error, model, dims, input_shapes) from None
    hand_over(module, entry_name, weights, weights_file, weights_min_bytes)
    return module


def with_open_dims(error: DynamicDimsError, model, dims, input_shapes) -> DynamicDimsError:
    """`error` with its generic hint replaced by the graph inputs' dims still dynamic after `dims`
    and `input_shapes` and the flags that fix them (importer/open_dims.py); as it is when no input
    dim is dynamic (the size comes from data)."""
    hint = _open_dims_hint(model, dims, input_shapes)
    return error.with_hint(hint) if hint else error


def with_open_dims_line(error: ConversionError, model, dims, input_shapes) -> ConversionError:
    """`error` with a last line naming the graph inputs' dims still dynamic and the flags that fix
    them, when one of its nodes asks for a static size: such a pattern's reason ends with the way
    out, `--dim NAME=SIZE`, which is how it is recognized here."""
    hint = _open_dims_hint(model, dims, input_shapes) if "--dim" in str(error) else None
    return ConversionError(f"{error}\n{hint}") if hint else error


def _open_dims_hint(model, dims, input_shapes) -> str | None:
    """importer.open_dims.open_dims_hint; None if the model cannot be read again (the error being
    reported matters more than the hint)."""
    from .errors import OnnxTorchMlirError
    from .importer.open_dims import open_dims_hint

    try:
        return open_dims_hint(model, dims, input_shapes)
    except OnnxTorchMlirError:
        return None


def check_weights_file(weights: str, weights_file) -> None:
    """A weights file is given exactly when the form writes one."""
    from .weights_forms import EXTERNAL_FORMS, FILE_SUFFIXES

    if weights in EXTERNAL_FORMS and weights_file is None:
        raise PipelineError(f"weights='{weights}' writes the weights to a file: give weights_file "
                            f"(e.g. model{FILE_SUFFIXES[weights]})")
    if weights not in EXTERNAL_FORMS and weights_file is not None:
        raise PipelineError(f"weights='{weights}' keeps the weights in the module: weights_file is for "
                            f"{' or '.join(EXTERNAL_FORMS)}")


def hand_over(module: ir.Module, entry_name: str | None, weights: str, weights_file=None,
              weights_min_bytes: int | None = None) -> None:
    """The entry function's name and the weights' form the caller asked for (transforms/output_form.py,
    transforms/external_weights.py); an external form writes `weights_file`."""
    from .transforms import external_weights
    from .transforms.output_form import entry_function, inline_weights, rename_entry
    from .weights_forms import DEFAULT_MIN_BYTES, EXTERNAL_FORMS

    if entry_name:
        rename_entry(module, entry_name)
    if weights == "inline":
        inline_weights(module)
    if weights in EXTERNAL_FORMS:
        with timing.stage("writing weights"):
            minimum = DEFAULT_MIN_BYTES if weights_min_bytes is None else weights_min_bytes
            taken = external_weights.externalize_weights(module, weights, minimum)
            name = ir.StringAttr(entry_function(module).attributes["sym_name"]).value
            external_weights.write_weights(taken, weights, weights_file, entry_name=name)


def import_model(model, importer: str, context: ir.Context, dims=None, input_shapes=None, input_values=None,
                 string_bytes: int | None = None) -> ir.Module:
    """`model` (a path, bytes or onnx.ModelProto) in the torch-ONNX spelling, by `importer`.

    Our importer takes the path itself, so large weights are memory-mapped rather
    than read; torch-mlir's needs the whole ModelProto.
    """
    if importer not in IMPORTERS:
        raise ValueError(f"unknown importer '{importer}': expected one of {', '.join(IMPORTERS)}")
    begin_step("import")
    if importer == "torch-mlir":
        config.require("torch")
    if importer == "ours":
        from .importer import import_onnx

        width = {} if string_bytes is None else {"string_bytes": string_bytes}
        return import_onnx(model, form="torch-onnx", context=context, dims=dims, input_shapes=input_shapes,
                           input_values=input_values, **width)
    if importer == "torch-mlir":
        from .importer.fixed_dims import fix_input_shapes, fix_symbolic_dims, parse_dim_options, parse_input_shape_options
        from .importer.input_values import fix_input_values, parse_input_value_options
        from .peers import import_with_torch_mlir

        proto = fix_symbolic_dims(load_model(model), parse_dim_options(dims))
        proto = fix_input_values(fix_input_shapes(proto, parse_input_shape_options(input_shapes)),
                                 parse_input_value_options(input_values))
        return import_with_torch_mlir(proto, context)
    raise ValueError(f"unknown importer '{importer}': expected one of {', '.join(IMPORTERS)}")


def convert_to_torch(module: ir.Module, converter: str, backend_legal_ops: tuple = (), target: str = "torch") -> None:
    """torch-ONNX spelling -> torch-mlir's backend contract, in place, by `converter`.

    `target` is the output type the module is headed for: our conversion emits forms that
    backend's lowering takes (OnnxNode.target)."""
    if converter == "torch-mlir":
        config.require("torch")
    if converter == "ours":
        from .conversion import convert_onnx_to_torch_backend_contract
        from .conversion.onnx_to_torch.driver import TARGET_ATTRIBUTE

        if target != "torch":
            module.operation.attributes[TARGET_ATTRIBUTE] = ir.StringAttr.get(target, module.context)

        convert_onnx_to_torch_backend_contract(module, backend_legal_ops=backend_legal_ops)
        return
    if converter == "torch-mlir":
        from .peers import convert_with_torch_mlir

        convert_with_torch_mlir(module, backend_legal_ops)
        return
    raise ValueError(f"unknown converter '{converter}': expected one of {', '.join(CONVERTERS)}")
