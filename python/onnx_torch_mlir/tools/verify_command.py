"""Compile a model, run it on the reference CPU runner and on onnxruntime with the same
inputs, and compare every output (shape, dtype, values within --rtol/--atol).

With --each-node, the first node (in graph order) whose result differs is named,
also when the whole program crashes or fails a run-time check: the place to look
when a whole model's output is wrong (a bisection over prefixes of the graph,
each run in a child process; see first_difference.py).

With --consumer iree, IREE compiles and runs the backend's output instead of the
reference runner.

An output a quantized path produced (it depends on a DequantizeLinear, a QLinear* op,
DynamicQuantizeLinear, MatMulInteger, ...) is compared in units of its quantization step:
one step of difference is a match, and a score vector's top class must agree
(quantization_steps.py states the rule, output_comparison.py the comparison);
--rtol/--atol given replace the step. Every mismatch says by how much.

On an x86 CPU without AVX-VNNI, onnxruntime's uint8 x int8 kernels saturate (off exact
integer arithmetic by whole steps); there the reference runs a copy of the model with its int8
weights as uint8 and zero points moved by 128 (the same real values), and a warning says so.

Exit status 0 when all outputs match, 1 otherwise.
"""

from ..errors import OnnxTorchMlirError
from ..weights_forms import WEIGHTS_FORMS
from .compile_options import (
    add_compile_arguments, add_consumer_argument, add_weights_arguments, apply_dims_from, consumer_label, prepare_model,
)

HELP = "check a model's compiled outputs against onnxruntime"


def add_arguments(parser):
    from .model_inputs import add_input_arguments
    from .run_command import add_quiet_argument

    parser.add_argument("model", help="the .onnx file")
    add_compile_arguments(parser, default_backend="linalg-on-tensors", backends_only=True)
    add_weights_arguments(parser, WEIGHTS_FORMS)
    add_consumer_argument(parser)
    add_input_arguments(parser)
    add_quiet_argument(parser)
    parser.add_argument("--rtol", type=float, default=None,
                        help="relative tolerance (default 1e-3; given, it also replaces the quantization step)")
    parser.add_argument("--atol", type=float, default=None,
                        help="absolute tolerance (default 1e-5; given, it also replaces the quantization step)")
    parser.add_argument(
        "--each-node", action="store_true", help="compare every node's results and name the first that differs"
    )


def run(args) -> int:
    from ..importer import load_model
    from ..importer.zipmap import dense_outputs
    from .model_inputs import model_inputs
    from .output_comparison import compare_output
    from .run_command import command_progress

    model = load_model(args.model)
    apply_dims_from(args, model)
    inputs = model_inputs(model, args)
    if args.each_node:
        return _run_each_node(model, inputs, args)
    with command_progress(args, model) as stage:
        stage("compile")
        prepared = prepare_model(model, args)
        stage("run")
        ours = list(prepared.run(inputs))
        stage("run onnxruntime")
        reference = dense_outputs(model, [output.name for output in model.graph.output], _run_onnxruntime(model, inputs))
        steps = _output_steps(model, inputs, reference)
        stage("compare")
        failures = 0
        names = [output.name for output in model.graph.output]
        lines = []
        for index, name in enumerate(names):
            matched, text = compare_output(reference[index], ours[index], steps.get(name), args.rtol, args.atol)
            lines.append(f"{name}: {text}")
            failures += not matched
    print("\n".join(lines))
    print(f"{len(names) - failures} of {len(names)} outputs match onnxruntime ({consumer_label(args)})")
    return 1 if failures else 0


def _output_steps(model, inputs, reference) -> dict:
    """The quantization step of each graph output on a quantized path (quantization_steps.py)."""
    from .quantization_steps import QuantizationSteps

    finder = QuantizationSteps(model)
    if not finder.quantized:
        return {}
    names = [output.name for output in model.graph.output]
    values = dict(zip(names, reference))
    extra = [name for name in finder.needed if name not in values]
    if extra:
        values.update(_run_onnxruntime(_with_named_outputs(model, extra), inputs, names + extra))
    spread = _onnxruntime_spread(model, inputs, dict(zip(names, reference)))
    return {name: (*step, spread.get(name, 0.0)) for name, step in finder.steps(values).items() if name in names}


def _onnxruntime_spread(model, inputs, optimized: dict) -> dict:
    """Per output, the largest difference between onnxruntime's optimized run and its unoptimized one."""
    import numpy as np

    unoptimized = _run_onnxruntime(model, inputs, list(optimized), optimize=False)
    spread = {}
    for name, value in optimized.items():
        value, other = np.asarray(value), np.asarray(unoptimized[name])
        if value.shape == other.shape and value.dtype.kind in "fiu" and value.size:
            difference = np.abs(value.astype(np.float64) - other.astype(np.float64))
            spread[name] = float(np.nanmax(difference)) if not np.all(np.isnan(difference)) else 0.0
    return spread


def _with_named_outputs(model, names):
    import onnx

    extended = type(model)()
    extended.CopyFrom(model)
    graph_inputs = {value.name for value in model.graph.input}
    extended.graph.output.extend(onnx.ValueInfoProto(name=name) for name in names if name not in graph_inputs)
    return extended


def _run_each_node(model, inputs, args) -> int:
    """Bisect over prefixes of the graph for the first node whose result differs (first_difference)."""
    import sys

    from ..importer.shape_inference import infer_types
    from .first_difference import every_node_result, find_first_difference, with_outputs

    from ..conformance.cases import graph_input_names
    from .quantization_steps import QuantizationSteps

    results = every_node_result(model, infer_types(model, args.model))
    values = _run_onnxruntime(with_outputs(model, results), inputs)
    reference = {result.name: value for result, value in zip(results, values)}
    finder = QuantizationSteps(model)
    if finder.quantized:  # every value the rule reads is a node result or an input
        known = {**dict(zip(graph_input_names(model), inputs)), **reference}
        unoptimized = _onnxruntime_spread(with_outputs(model, results), inputs, reference)
        args.quantization_steps = {name: (*step, unoptimized.get(name, 0.0))
                                   for name, step in finder.steps(known).items() if name in reference}

    def report(text):
        print(f"verify --each-node: {text}", file=sys.stderr, flush=True)

    found = find_first_difference(model, results, reference, inputs, args, report)
    if found is None:
        print(f"all {len(results)} node results match onnxruntime ({consumer_label(args)})")
        return 0
    name, reason = found
    node = next(node for node in model.graph.node if name in node.output)
    print(f"first difference: node '{node.name}' ({node.op_type}) result '{name}': {reason}")
    return 1


def _run_onnxruntime(model, inputs, names=None, optimize=True):
    """onnxruntime's outputs (a list), or those of `names` as a dict; `optimize=False`: no graph optimizations."""
    try:
        import onnxruntime
    except ImportError:
        raise OnnxTorchMlirError("verify needs onnxruntime: pip install 'onnx-torch-mlir[verify]'") from None
    from ..conformance.cases import graph_input_names
    from ..isolation import interruptible

    try:
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4  # its errors come back as exceptions, said in one line here
        if not optimize:
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = onnxruntime.InferenceSession(_for_onnxruntime(model), options, providers=["CPUExecutionProvider"])
        with interruptible():
            values = session.run(None, dict(zip(graph_input_names(model), inputs)))
        if names is None:
            return values
        return {output.name: value for output, value in zip(session.get_outputs(), values)}
    except Exception as error:  # onnxruntime's own errors
        raise OnnxTorchMlirError(f"onnxruntime cannot run the model: {str(error).strip().splitlines()[0]}") from None


# The newest IR version the pinned onnxruntime (1.31) loads. Newer IR versions add
# nothing a tensor program here uses, so a copy of the model is relabelled for it.
ONNXRUNTIME_MAX_IR_VERSION = 13


def _for_onnxruntime(model) -> bytes:
    model = _unsaturated(model)
    if model.ir_version <= ONNXRUNTIME_MAX_IR_VERSION:
        return model.SerializeToString()
    relabelled = type(model)()
    relabelled.CopyFrom(model)
    relabelled.ir_version = ONNXRUNTIME_MAX_IR_VERSION
    return relabelled.SerializeToString()


def _unsaturated(model):
    """The model onnxruntime computes the reference from: on a CPU where its uint8 x int8 kernels
    saturate (x86 without AVX-VNNI), a copy with the int8 weights as uint8 (the same real values),
    so that a correct compile is not reported as a mismatch (unsaturated_reference.py)."""
    import warnings

    from ..errors import OnnxTorchMlirWarning
    from .unsaturated_reference import int8_weights_as_uint8, needs_rewrite, uint8_int8_saturation

    if not needs_rewrite(model) or not uint8_int8_saturation():
        return model
    copy, rewrite = int8_weights_as_uint8(model)
    if rewrite.nodes:
        counts = ", ".join(f"{count} {op_type}" for op_type, count in sorted(rewrite.nodes.items()))
        warnings.warn(f"onnxruntime's uint8 x int8 kernels saturate on this CPU (no AVX-VNNI): the reference runs "
                      f"the model with the int8 weights of {counts} as uint8 (the same real values)",
                      OnnxTorchMlirWarning, stacklevel=1)
    return copy
