"""The demo: a model that ships inside the onnx wheel (one of its `light` models),
imported, converted to torch-mlir's Torch dialect, lowered to each backend,
compiled for the CPU, run on ONNX's own dummy input and compared with the
expected output stored beside the model. Every step prints what it did.
"""

import os
import time

from ..errors import OnnxTorchMlirError

HELP = "compile and run a model shipped in the onnx wheel, saying what happens"
DEFAULT_MODEL = "squeezenet"


def add_arguments(parser):
    from ..conformance.cases import DATA_ROOT
    from ..pipelines import BACKENDS

    models = sorted(name[len("light_") : -len(".onnx")] for name in os.listdir(os.path.join(DATA_ROOT, "light")) if name.endswith(".onnx"))
    parser.add_argument("--model", choices=models, default=DEFAULT_MODEL, help=f"which light model (default {DEFAULT_MODEL})")
    parser.add_argument("--backend", action="append", choices=BACKENDS, help="repeatable; default: all three")


def run(args) -> int:
    import onnx

    from .. import compiler, pipelines, runtime
    from ..conformance.cases import DATA_ROOT, light_data_set
    from ..conformance.compare import mismatch
    from ..mlir_context import make_context
    from ..pipelines import BACKENDS
    from ..runtime.backend import declared_output_dtypes

    path = os.path.join(DATA_ROOT, "light", f"light_{args.model}.onnx")
    model = onnx.load(path)
    inputs, expected = light_data_set(model, path)
    opset = next(entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx"))
    print(f"model: {path}")
    print(f"       {len(model.graph.node)} nodes, opset {opset}, input {inputs[0].dtype}{list(inputs[0].shape)}")
    failures = 0
    for backend in args.backend or BACKENDS:
        print(f"\n== {backend} ==")
        module = _import_and_convert(model, compiler, make_context)
        _step(f"lower Torch -> {backend} (torch-mlir's backend pipeline)", pipelines.lower_torch_to_backend, module, backend)
        program = _step("compile for the CPU (reference runner, MLIR ExecutionEngine)", runtime.compile_for_cpu, module, input_dialect=backend)
        outputs = _step("run on ONNX's dummy input", program, *inputs)
        outputs = runtime.reinterpret_results(outputs, declared_output_dtypes(model))
        reason = mismatch(expected, outputs, 1e-3, 1e-5)
        verdict = "MATCH" if reason is None else f"MISMATCH: {reason}"
        print(f"  compare with the expected output in the onnx wheel (rtol 1e-3, atol 1e-5): {verdict}")
        failures += reason is not None
    return 1 if failures else 0


def _import_and_convert(model, compiler, make_context):
    """Ours end to end; if our conversion cannot yet handle the model, say so and use torch-mlir's."""
    for importer, converter in (("ours", "ours"), ("ours", "torch-mlir")):
        context = make_context()
        module = _step(f"import ({importer} importer, torch-ONNX form)", compiler.import_model, model, importer, context)
        try:
            _step(f"convert ONNX -> Torch backend contract ({converter} conversion)", compiler.convert_to_torch, module, converter)
            return module
        except OnnxTorchMlirError as error:
            if converter != "ours":
                raise
            print(f"  our conversion cannot convert this model yet: {str(error).splitlines()[0]}")
            print("  falling back to torch-mlir's ONNX-to-Torch conversion for the Torch step")
    raise AssertionError("unreachable")


def _step(description, action, *args, **kwargs):
    started = time.perf_counter()
    try:
        result = action(*args, **kwargs)
    except OnnxTorchMlirError:
        print(f"  {description}: FAILED")
        raise
    print(f"  {description}: {time.perf_counter() - started:.2f} s")
    return result
