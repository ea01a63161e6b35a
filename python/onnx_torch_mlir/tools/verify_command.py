"""Compile a model, run it on the reference CPU runner and on onnxruntime with the same
inputs, and compare every output (shape, dtype, values within --rtol/--atol).

With --each-node, the first node (in graph order) whose result differs is named,
also when the whole program crashes or fails a run-time check: the place to look
when a whole model's output is wrong (a bisection over prefixes of the graph,
each run in a child process; see first_difference.py).

With --consumer iree, IREE compiles and runs the backend's output instead of the
reference runner.

Exit status 0 when all outputs match, 1 otherwise.
"""

from ..errors import OnnxTorchMlirError
from .compile_options import add_compile_arguments, add_consumer_argument, consumer_label, prepare_model

HELP = "check a model's compiled outputs against onnxruntime"


def add_arguments(parser):
    from .model_inputs import add_input_arguments

    parser.add_argument("model", help="the .onnx file")
    add_compile_arguments(parser, default_backend="linalg-on-tensors", backends_only=True)
    add_consumer_argument(parser)
    add_input_arguments(parser)
    parser.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance (default 1e-3)")
    parser.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)")
    parser.add_argument(
        "--each-node", action="store_true", help="compare every node's results and name the first that differs"
    )


def run(args) -> int:
    from ..conformance.compare import mismatch
    from ..importer import load_model
    from .model_inputs import model_inputs

    model = load_model(args.model)
    inputs = model_inputs(model, args)
    if args.each_node:
        return _run_each_node(model, inputs, args)
    ours = list(prepare_model(model, args).run(inputs))
    reference = _run_onnxruntime(model, inputs)
    failures = 0
    names = [output.name for output in model.graph.output]
    for index, name in enumerate(names):
        reason = mismatch([reference[index]], [ours[index]], args.rtol, args.atol)
        print(f"{name}: {'ok' if reason is None else 'MISMATCH ' + reason.removeprefix('output 0: ')}")
        failures += reason is not None
    print(f"{len(names) - failures} of {len(names)} outputs match onnxruntime ({consumer_label(args)})")
    return 1 if failures else 0


def _run_each_node(model, inputs, args) -> int:
    """Bisect over prefixes of the graph for the first node whose result differs (first_difference)."""
    import sys

    from ..importer.shape_inference import infer_types
    from .first_difference import every_node_result, find_first_difference, with_outputs

    results = every_node_result(model, infer_types(model, args.model))
    values = _run_onnxruntime(with_outputs(model, results), inputs)
    reference = {result.name: value for result, value in zip(results, values)}

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


def _run_onnxruntime(model, inputs):
    try:
        import onnxruntime
    except ImportError:
        raise OnnxTorchMlirError("verify needs onnxruntime: pip install 'onnx-torch-mlir[verify]'") from None
    from ..conformance.cases import graph_input_names
    from ..isolation import interruptible

    try:
        session = onnxruntime.InferenceSession(_for_onnxruntime(model), providers=["CPUExecutionProvider"])
        with interruptible():
            return session.run(None, dict(zip(graph_input_names(model), inputs)))
    except Exception as error:  # onnxruntime's own errors
        raise OnnxTorchMlirError(f"onnxruntime cannot run the model: {str(error).strip().splitlines()[0]}") from None


# The newest IR version the pinned onnxruntime (1.31) loads. Newer IR versions add
# nothing a tensor program here uses, so a copy of the model is relabelled for it.
ONNXRUNTIME_MAX_IR_VERSION = 13


def _for_onnxruntime(model) -> bytes:
    if model.ir_version <= ONNXRUNTIME_MAX_IR_VERSION:
        return model.SerializeToString()
    relabelled = type(model)()
    relabelled.CopyFrom(model)
    relabelled.ir_version = ONNXRUNTIME_MAX_IR_VERSION
    return relabelled.SerializeToString()
