"""The zoo harness's child processes: one compiles a model, one runs a compiled module on a consumer.

Consumers: our reference runner, IREE, XLA (StableHLO only; it runs the module as
`compile --entry-name main --weights inline` writes it, which the compile child writes beside the
module with --xla-output), Arm's TOSA reference model (TOSA only; the module serialized to the
TOSA flatbuffer with tosa-tools' tosa-opt) and Vela (TOSA only: the run child compiles the model
again with `quantized_io="int8"`, the form an NPU takes, and records where Vela placed its operators;
nothing runs).

    python zoo_worker.py compile --model M.onnx --configuration ours --backend tosa --output m.mlirbc --record r.json
    python zoo_worker.py run --module m.mlirbc --model M.onnx --backend tosa --consumer iree \\
        --reference reference.npz --rtol 1e-3 --atol 1e-4 --record r.json

Each writes a JSON record (outcome, stage, first error line, times) and exits 0, whatever the model
did: an exception is an outcome. Only a crash (a signal, an abort inside MLIR) or a hang leaves no
record; the parent classifies those from the exit status. Peak memory is measured by the parent
(wait4's rusage covers this process and anything it ran, e.g. iree-compile).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_zoo import first_error_line  # noqa: E402

CONFIGURATIONS = {
    "ours": {},
    "ours-dims": {},  # and `dims`/`input_shapes`: every dynamic dim fixed at the size the model is tested at
    "torch-mlir": {"importer": "torch-mlir", "converter": "torch-mlir"},
}
CONSUMERS = ("reference", "iree", "xla", "tosa-reference", "vela")


def compile_model(args) -> dict:
    """Our (or torch-mlir's) compile of the model to the backend; the module is written as bytecode."""
    import onnx_torch_mlir
    from onnx_torch_mlir.mlir_passes import data_dependent_results

    record = {"stage": "compile"}
    started = time.perf_counter()
    try:
        options = configuration_options(args, record)
        module = onnx_torch_mlir.compile(args.model, output_type=args.backend, **options)
        record["compile_seconds"] = round(time.perf_counter() - started, 3)
        with open(args.output, "wb") as output:
            module.operation.write_bytecode(output)
        static_form = module
        if args.backend in ("tosa", "stablehlo") and data_dependent_results(module):
            # XLA and a TOSA flatbuffer take static shapes: they run the padded outputs and their counts.
            static_form = onnx_torch_mlir.compile(args.model, output_type=args.backend,
                                                  data_dependent_outputs="padded-with-counts", **options)
            with open(padded_module_path(args.output), "wb") as output:
                static_form.operation.write_bytecode(output)
        if args.xla_output:
            record["xla_form_error"] = write_xla_form(static_form, args.xla_output)
    except Exception as error:  # any failure to compile is this cell's outcome
        record.update(outcome="compile error", error=first_error_line(error))
        record["compile_seconds"] = round(time.perf_counter() - started, 3)
        return record
    record["outcome"] = "compiled"
    return record


def padded_module_path(module_path) -> Path:
    """Where the compile child writes the module's `data_dependent_outputs="padded-with-counts"` form."""
    module_path = Path(module_path)
    return module_path.with_name(module_path.stem + "-padded" + module_path.suffix)


def configuration_options(args, record: dict) -> dict:
    """The keyword arguments of `compile` for `args.configuration` (ours-dims: the dims at the test sizes;
    and the selector inputs' test values), each also written into `record`."""
    options = dict(CONFIGURATIONS[args.configuration])
    if args.configuration == "ours-dims":
        options["dims"], options["input_shapes"] = test_size_dims(args.model, args.reference)
        record["dims"], record["input_shapes"] = options["dims"], options["input_shapes"]
    if args.selector_input:
        options["input_values"] = test_input_values(args.model, args.reference, args.selector_input)
        record["input_values"] = options["input_values"]
    return options


def _timed(record: dict, seconds_key: str, failure: str, action, prefix: str = ""):
    """(True, `action()`) with its seconds in `record[seconds_key]`; (False, None) when it raises, the
    record then holding outcome `failure` and the error's first line after `prefix`."""
    started = time.perf_counter()
    try:
        value = action()
    except Exception as error:
        record.update(outcome=failure, error=prefix + first_error_line(error))
        return False, None
    finally:
        record[seconds_key] = round(time.perf_counter() - started, 3)
    return True, value


def place_with_vela(args, record: dict, enter) -> dict:
    """Consumer vela: compile the model with `quantized_io="int8"` (stage compile; ours), hand it to Vela for
    ethos-u85-256 (stage consumer compile); pass when Vela places every operator on the NPU."""
    import onnx_torch_mlir
    from onnx_torch_mlir.runtime.vela import compile_with_vela

    enter("compile")
    # ours: the int8-io compile is this cell's outcome
    compiled, module = _timed(record, "compile_seconds", "compile error", lambda: onnx_torch_mlir.compile(
        args.model, output_type=args.backend, quantized_io="int8", **configuration_options(args, {})),
        "quantized_io=int8: ")
    if not compiled:
        return record
    enter("consumer compile")
    # Vela's refusal (or the serializer's) is this cell's outcome
    placed, placement = _timed(record, "consumer_compile_seconds", "compile error", lambda: compile_with_vela(module))
    if not placed:
        return record
    record.update(npu_operators=placement.npu_operators, cpu_operators=placement.cpu_operators)
    if placement.every_operator_on_the_npu:
        record["outcome"] = "pass"
    else:
        record.update(outcome="compile error", error=f"Vela ({placement.accelerator}): {placement.summary()}")
    return record


def write_xla_form(module, path: str) -> str | None:
    """Write `module` as `compile --entry-name main --weights inline` gives it, for XLA; None, or the
    first error line when it cannot be written (torch-mlir's importer's weights cannot be inlined)."""
    from onnx_torch_mlir.compiler import hand_over

    try:
        hand_over(module, "main", "inline")
    except Exception as error:
        return first_error_line(error)
    with open(path, "wb") as output:
        module.operation.write_bytecode(output)
    return None


def _fixed(dim) -> bool:
    """Whether a declared dim is a size (a dim_value <= 0 is dynamic, as paddle2onnx writes it)."""
    return dim.HasField("dim_value") and dim.dim_value > 0


def test_size_dims(model_path: str, reference_path: str) -> tuple[dict[str, int], dict[str, list[int]]]:
    """({symbolic dim name: size}, {input: shape}) for the sizes the model is tested at: what a user
    who compiles for one input shape passes as `--dim NAME=SIZE` and, for an input with a dim no
    name can fix (a name the exporter gave dims the model is run at different sizes, a merged
    decoder's `sequence_length`; a dim without a name), as `--input-shape INPUT=D0xD1`."""
    import numpy as np
    import onnx
    from onnx_torch_mlir.importer.fixed_dims import UNNAMED_DIM_PARAMS  # paddle2onnx's "?": no name

    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {initializer.name for initializer in graph.initializer}
    reference = np.load(reference_path, allow_pickle=True)  # our own cache: a string input is an object array
    sizes: dict[str, set[int]] = {}
    inputs = [value for value in graph.input if value.name not in initializers]
    shapes = [reference[f"input.{index}"].shape for index in range(len(inputs))]
    for value, shape in zip(inputs, shapes):
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if dim.dim_param and dim.dim_param not in UNNAMED_DIM_PARAMS and not _fixed(dim):
                sizes.setdefault(dim.dim_param, set()).add(int(shape[axis]))
    dims = {name: next(iter(found)) for name, found in sorted(sizes.items()) if len(found) == 1}
    input_shapes = {}
    for value, shape in zip(inputs, shapes):
        unnamed = [dim for dim in value.type.tensor_type.shape.dim if not _fixed(dim) and dim.dim_param not in dims]
        if unnamed:
            input_shapes[value.name] = [int(size) for size in shape]
    return dims, input_shapes


def _graph_inputs(model_path: str) -> list[str]:
    import onnx

    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {initializer.name for initializer in graph.initializer}
    return [value.name for value in graph.input if value.name not in initializers]


def test_input_values(model_path: str, reference_path: str, names: list[str]) -> dict[str, list]:
    """{input: its test value} for the selector inputs `names` (`--input-value`)."""
    import numpy as np

    reference = np.load(reference_path)
    inputs = _graph_inputs(model_path)
    return {name: reference[f"input.{inputs.index(name)}"].reshape(-1).tolist() for name in names}


def _load_consumer(consumer: str, backend: str):
    """A function module -> callable program for `consumer`, or the reason it is unavailable."""
    if consumer == "reference":
        from onnx_torch_mlir.runtime import compile_for_cpu

        return lambda module: compile_for_cpu(module, input_dialect=backend), None
    if consumer == "xla":
        try:
            from onnx_torch_mlir.runtime.xla import compile_with_xla

            import jax  # noqa: F401
        except Exception as error:  # jax missing: the consumer is unavailable
            return None, f"XLA cannot be used: {first_error_line(error)}"
        return compile_with_xla, None
    if consumer == "tosa-reference":
        try:
            from onnx_torch_mlir.runtime.tosa_reference import compile_with_tosa_reference, tool_path

            tool_path("tosa_reference_model")
        except Exception as error:  # tosa-tools missing: the consumer is unavailable
            return None, f"the TOSA reference model cannot be used: {first_error_line(error)}"
        return compile_with_tosa_reference, None
    try:
        from onnx_torch_mlir.runtime.iree import compile_with_iree
    except Exception as error:  # not written yet, or IREE missing: the consumer is unavailable
        return None, f"onnx_torch_mlir.runtime.iree cannot be used: {first_error_line(error)}"
    return lambda module: compile_with_iree(module, backend), None


def _as_declared(outputs: list, declared: list, backend: str) -> list:
    """Results viewed as the dtypes the model declares where only the signedness differs (Linalg
    integers are signless), and on TOSA a float32 result the model declares float64 widened to it
    (TOSA has no float64: transforms/tosa/float64.py computes it in float32, and the compile warns);
    anything else is left for the comparison to report."""
    import numpy as np

    viewed = []
    for output, dtype in zip(outputs, declared + [None] * (len(outputs) - len(declared))):
        output = np.asarray(output)
        if dtype is not None and output.dtype != dtype and output.dtype.itemsize == np.dtype(dtype).itemsize \
                and output.dtype.kind in "iub" and np.dtype(dtype).kind in "iub":
            output = output.view(dtype)
        if backend == "tosa" and dtype is not None and np.dtype(dtype) == np.float64 and output.dtype == np.float32:
            output = output.astype(np.float64)
        viewed.append(output)
    return viewed


def error_sizes(expected: list, actual: list, atol: float) -> tuple[float | None, float | None]:
    """The largest absolute error over all float outputs of matching shape, and the largest relative
    error |actual - expected| / |expected| over the elements where |expected| > atol (elsewhere a
    relative error says nothing)."""
    import numpy as np

    worst_absolute = worst_relative = None
    for want, got in zip(expected, actual):
        want, got = np.asarray(want), np.asarray(got)
        if want.shape != got.shape or want.dtype.kind not in "fc" or got.dtype.kind not in "fciub":
            continue
        want64, got64 = want.astype(np.float64), got.astype(np.float64)
        difference = np.abs(got64 - want64)
        difference = np.where(np.isnan(want64) & np.isnan(got64), 0.0, difference)
        if difference.size == 0:
            continue
        absolute = float(np.max(np.where(np.isnan(difference), np.inf, difference)))
        worst_absolute = absolute if worst_absolute is None else max(worst_absolute, absolute)
        meaningful = np.abs(want64) > atol
        if np.any(meaningful):
            relative = float(np.max(np.where(np.isnan(difference[meaningful]), np.inf,
                                             difference[meaningful] / np.abs(want64[meaningful]))))
            worst_relative = relative if worst_relative is None else max(worst_relative, relative)
    return worst_absolute, worst_relative


def run_module(args) -> dict:
    """Compile the backend module with the consumer, run it on the reference inputs, compare."""
    import numpy as np
    import onnx
    from onnx_torch_mlir.conformance.compare import mismatch
    from onnx_torch_mlir.importer.zipmap import dense_outputs
    from onnx_torch_mlir.runtime import lowering
    from onnx_torch_mlir.runtime.backend import declared_output_dtypes
    from onnx_torch_mlir.runtime.padded_results import cut_to_counts, padded_results
    from onnx_torch_mlir.runtime.string_inputs import entry_argument_shapes, strings_as_bytes
    from torch_mlir import ir

    stage_path = Path(args.record + ".stage")  # what the parent reports if this process dies

    def enter(stage: str) -> None:
        record["stage"] = stage
        stage_path.write_text(stage)

    record = {}
    if args.consumer == "vela":
        return place_with_vela(args, record, enter)
    enter("consumer compile")
    make_program, unavailable = _load_consumer(args.consumer, args.backend)
    if unavailable:
        record.update(outcome="unavailable", error=unavailable)
        return record
    # Pickled objects only where build_zoo.py saved onnxruntime's list of dicts of a ZipMap (our own cache).
    reference = np.load(args.reference, allow_pickle=True)
    inputs = [reference[f"input.{index}"] for index in range(sum(key.startswith("input.") for key in reference.files))]
    if args.selector_input:  # fixed at compile time: no longer arguments
        names = _graph_inputs(args.model)
        inputs = [array for name, array in zip(names, inputs) if name not in args.selector_input]
    expected = [reference[f"output.{index}"] for index in range(sum(key.startswith("output.") for key in reference.files))]
    header = onnx.load(args.model, load_external_data=False)
    expected = dense_outputs(header, [output.name for output in header.graph.output], expected)
    declared = declared_output_dtypes(header)

    def consumer_program():
        # Parsed in the runner's context, which has every dialect a backend's output may use (the
        # consumers parse MLIR text the same way); the module outlives the `with`.
        with lowering.runner_context():
            module = ir.Module.parse(Path(args.module).read_bytes())
            padded = padded_results(module)  # the padded-with-counts form: cut its outputs again
            shapes = entry_argument_shapes(module)  # string inputs are held as bytes of the last dim's width
        return make_program(module), padded, shapes

    made, made_program = _timed(record, "consumer_compile_seconds", "compile error", consumer_program)
    if not made:
        return record
    program, padded, shapes = made_program
    enter("run")
    ran, outputs = _timed(record, "run_seconds", "run-time error",
                          lambda: _as_declared(cut_to_counts(padded, list(program(*strings_as_bytes(inputs, shapes)))),
                                               declared, args.backend))
    if not ran:
        return record
    enter("compare")
    reason = mismatch(expected, outputs, args.rtol, args.atol)
    absolute, relative = error_sizes(expected, outputs, args.atol)
    record.update(max_abs_error=absolute, max_rel_error=relative)
    if reason:
        record.update(outcome="wrong numbers", error=reason)
    else:
        record["outcome"] = "pass"
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    compile_parser = commands.add_parser("compile")
    compile_parser.add_argument("--model", required=True)
    compile_parser.add_argument("--configuration", choices=sorted(CONFIGURATIONS), required=True)
    compile_parser.add_argument("--backend", required=True)
    compile_parser.add_argument("--output", required=True)
    compile_parser.add_argument("--record", required=True)
    compile_parser.add_argument("--reference", help="the inputs (configuration ours-dims fixes the dims at their sizes)")
    compile_parser.add_argument("--selector-input", action="append", default=[],
                                help="an input fixed at its test value (--input-value; repeatable)")
    compile_parser.add_argument("--xla-output", help="also write the module as XLA takes it (entry @main, weights inline)")
    run_parser = commands.add_parser("run")
    run_parser.add_argument("--module", required=True)
    run_parser.add_argument("--model", required=True)
    run_parser.add_argument("--backend", required=True)
    run_parser.add_argument("--consumer", choices=CONSUMERS, required=True)
    run_parser.add_argument("--reference", required=True)
    run_parser.add_argument("--selector-input", action="append", default=[],
                            help="an input the compile fixed at its value: not passed to the program")
    run_parser.add_argument("--rtol", type=float, required=True)
    run_parser.add_argument("--atol", type=float, required=True)
    run_parser.add_argument("--record", required=True)
    run_parser.add_argument("--configuration", choices=sorted(CONFIGURATIONS), default="ours",
                            help="how the module was compiled (consumer vela compiles the model again so)")
    args = parser.parse_args(argv)
    record = compile_model(args) if args.command == "compile" else run_module(args)
    if record.get("error"):
        # Locations name the model file by its path in the cache: the file name is enough, and keeps
        # the generated tables free of machine-specific paths.
        error = record["error"]
        for directory in {str(Path(args.model).resolve().parent), str(Path(args.model).parent), str(Path(args.record).parent)}:
            error = error.replace(directory + "/", "")
        record["error"] = re.sub(r"\s+", " ", error).strip()
    Path(args.record).write_text(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
