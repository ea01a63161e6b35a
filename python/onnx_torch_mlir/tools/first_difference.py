"""`verify --each-node`: the first node whose result differs from onnxruntime's.

Making every intermediate result an output and comparing them all in one run
fails as a whole when the program crashes, a run-time check fails, or a
consumer rejects it somewhere, which is exactly when the place is needed most.
So the search is a bisection over prefixes of the graph: a copy of the model
whose outputs are the results of the first k nodes (later nodes are dead code)
is compiled and run in a child process, so that a crash costs one probe, and
compared with onnxruntime. The smallest failing prefix names the node: about
log2(number of results) compiles.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
from dataclasses import dataclass

import onnx

from .output_comparison import compare_output

PROBE_TIMEOUT_SECONDS = 900
_CONTEXT = multiprocessing.get_context("spawn")


@dataclass
class Probe:
    """The outcome of running the first `count` results: None when all matched."""

    count: int
    failure: str | None


def every_node_result(model: onnx.ModelProto, typed: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The typed tensor results of the nodes, in graph order."""
    declared = {value.name: value for value in list(typed.graph.value_info) + list(typed.graph.output)}
    return [
        declared[name]
        for node in model.graph.node
        for name in node.output
        if name and name in declared and declared[name].type.HasField("tensor_type")
    ]


def with_outputs(model: onnx.ModelProto, outputs: list[onnx.ValueInfoProto]) -> onnx.ModelProto:
    """A copy of `model` whose outputs are `outputs`, without the nodes they do not need.

    Unneeded nodes are removed, not left to dead-code elimination: the run-time
    checks the backends emit keep dead code alive, and a fault there would be
    blamed on the prefix.
    """
    needed = {output.name for output in outputs}
    kept = []
    for node in reversed(model.graph.node):
        if any(name in needed for name in node.output):
            kept.append(node)
            needed.update(name for name in node.input if name)
            needed.update(_names_used_in_subgraphs(node))
    pruned = onnx.ModelProto()
    pruned.CopyFrom(model)
    del pruned.graph.node[:]
    pruned.graph.node.extend(reversed(kept))
    del pruned.graph.output[:]
    pruned.graph.output.extend(outputs)
    return pruned


def _names_used_in_subgraphs(node: onnx.NodeProto) -> set:
    names = set()
    for attribute in node.attribute:
        for graph in list(attribute.graphs) + ([attribute.g] if attribute.HasField("g") else []):
            for inner in graph.node:
                names.update(name for name in inner.input if name)
                names.update(_names_used_in_subgraphs(inner))
    return names


def find_first_difference(model, results, reference: dict, inputs, args, report, run_probe=None) -> tuple[str, str] | None:
    """(result name, reason) of the first result that differs, or None if all match.

    `reference` maps every result name to onnxruntime's value; `report(text)` gets progress;
    `run_probe(prefix model, expected values, inputs, args) -> failure or None` runs one probe
    (default: compile and run in a child process).
    """
    run_probe = run_probe or _probe_in_child

    def probe(count: int) -> Probe:
        failure = run_probe(with_outputs(model, results[:count]), [reference[r.name] for r in results[:count]], inputs, args)
        report(f"first {count} of {len(results)} results: {'ok' if failure is None else failure}")
        return Probe(count, failure)

    whole = probe(len(results))
    if whole.failure is None:
        return None
    good, bad = 0, whole
    while bad.count - good > 1:
        middle = probe((good + bad.count) // 2)
        if middle.failure is None:
            good = middle.count
        else:
            bad = middle
    return results[bad.count - 1].name, bad.failure


def _probe_in_child(model, expected, inputs, args) -> str | None:
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    with tempfile.NamedTemporaryFile(prefix="onnx-torch-mlir-probe-", suffix=".stderr") as child_stderr:
        child = _CONTEXT.Process(
            target=_probe, args=(sender, child_stderr.name, model.SerializeToString(), expected, inputs, args),
            daemon=True,
        )
        child.start()
        sender.close()
        if not receiver.poll(PROBE_TIMEOUT_SECONDS):
            child.kill()
            child.join()
            return f"no result within {PROBE_TIMEOUT_SECONDS} s"
        try:
            failure = receiver.recv()
        except EOFError:
            child.join()
            child_stderr.seek(0)
            said = [line.strip() for line in child_stderr.read().decode(errors="replace").splitlines() if line.strip()]
            return f"the compiled program crashed (exit status {child.exitcode}{': ' + said[-1] if said else ''})"
        child.join()
        return failure


def _probe(sender, stderr_path, model_bytes, expected, inputs, args) -> None:
    """In the child: compile, run and compare; sends None or the first failure's one-line reason."""
    from .cli_support import internal_error_message
    from .compile_options import prepare_model

    with open(stderr_path, "wb") as stream:  # what C code says on a crash (glibc, LLVM) goes to the parent
        os.dup2(stream.fileno(), 2)
    sys.stderr = os.fdopen(os.dup(2), "w")
    try:
        model = onnx.ModelProto.FromString(model_bytes)
        actual = list(prepare_model(model, args).run(inputs))
        names = [output.name for output in model.graph.output]
        failure = None
        steps = getattr(args, "quantization_steps", None) or {}
        for index, name in enumerate(names):
            matched, text = compare_output(expected[index], actual[index], steps.get(name), args.rtol, args.atol)
            if not matched:
                failure = f"'{name}' {text}"
                break
    except Exception as error:  # noqa: BLE001 - any failure is the probe's outcome
        text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        failure = text if "onnx_torch_mlir" in type(error).__module__ else internal_error_message(error)
    sender.send(failure)
    sender.close()
