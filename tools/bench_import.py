"""Importer benchmark: ours against torch-mlir's importer, wall time and peak memory side by side.

Each import runs in a fresh process that measures its own wall time (the
import call only, libraries already loaded) and peak resident memory
(VmHWM, the whole process). torch-mlir's importer runs the way its own
command-line tool does (`torch_mlir.tools.import_onnx`: load with external
data, shape inference in memory or, past 2 GB, through files, then import).
Neither writes output unless --write-bytecode is given.

Models: a few real architectures from the onnx wheel, a generated model with
embedded weights, and a generated model over 2 GB with external data.
Generated models are kept in --work-dir (default: a directory under /tmp)
so later runs reuse them.

    python tools/bench_import.py [--work-dir DIR] [--big-gib 2.25] [--skip-big]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

ONNX_DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
WHEEL_MODELS = ("light/light_densenet121.onnx", "light/light_resnet50.onnx", "light/light_inception_v2.onnx")

CHILD = textwrap.dedent(
    """
    import json, sys, time
    def peak_mib():
        # VmHWM restarts at exec; ru_maxrss would carry the parent's peak over.
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024
    importer, path, write = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    from onnx_torch_mlir.mlir_context import make_context
    if importer == "ours":
        from onnx_torch_mlir import import_onnx
        def run():
            return import_onnx(path, form="torch-onnx", context=make_context())
    else:
        import os, onnx
        from torch_mlir.extras import onnx_importer
        from torch_mlir.tools.import_onnx.__main__ import load_onnx_model, parse_arguments
        def load():
            try:
                return load_onnx_model(parse_arguments([path, "--data-prop"]))
            except Exception as error:
                # Past 2 GB its in-memory attempt raises EncodeError, which the tool does not
                # catch (it falls back to files on ValueError only): take its file-based path.
                print(f"note: torch-mlir's tool fails ({type(error).__name__}); measured on its file-based path", file=sys.stderr)
                inferred = path + ".inferred.onnx"
                onnx.shape_inference.infer_shapes_path(path, inferred, data_prop=True)
                model = onnx.load(inferred, load_external_data=False)
                onnx.load_external_data_for_model(model, os.path.dirname(path))
                os.unlink(inferred)
                return model
        def run():
            model = load()
            info = onnx_importer.ModelInfo(model)
            module = info.create_module(context=make_context())
            onnx_importer.NodeImporter.define_function(info.main_graph, module.operation).import_all()
            return module
    baseline = peak_mib()
    started = time.perf_counter()
    module = run()
    if write:
        with open(path + "." + importer + ".mlirbc", "wb") as stream:
            module.operation.write_bytecode(stream)
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak_mib": peak_mib(), "baseline_mib": baseline}))
    """
)


def matmul_chain(path: Path, width: int, layers: int, external: bool) -> Path:
    """y = x @ W0 @ W1 ... with `layers` float32 weights of width x width.

    With `external`, the weights go straight to `<name>.bin` a layer at a
    time, so generating a model over 2 GB never holds it in memory.
    """
    if path.exists():
        return path
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])
    nodes, initializers = [], []
    data_file = path.with_suffix(".bin")
    layer_bytes = width * width * 4
    with open(data_file, "wb") if external else open("/dev/null", "wb") as stream:
        for layer in range(layers):
            weights = (np.arange(width * width, dtype=np.float32) % 7 - 3).reshape(width, width) / width
            if external:
                stream.write(weights.tobytes())
                tensor = TensorProto(name=f"w{layer}", data_type=TensorProto.FLOAT, dims=[width, width])
                tensor.data_location = TensorProto.EXTERNAL
                for key, value in (("location", data_file.name), ("offset", layer * layer_bytes), ("length", layer_bytes)):
                    tensor.external_data.add(key=key, value=str(value))
            else:
                tensor = onnx.numpy_helper.from_array(weights, f"w{layer}")
            initializers.append(tensor)
            previous = "x" if layer == 0 else f"h{layer - 1}"
            nodes.append(helper.make_node("MatMul", [previous, f"w{layer}"], [f"h{layer}" if layer < layers - 1 else "y"], name=f"matmul{layer}"))
    model = helper.make_model(helper.make_graph(nodes, "chain", [x], [y], initializers), opset_imports=[helper.make_opsetid("", 17)])
    path.write_bytes(model.SerializeToString())
    return path


def measure(importer: str, path: Path, write: bool, repeat: int) -> dict:
    """The best time and the highest peak memory of `repeat` runs, each in a fresh process."""
    runs = []
    for _ in range(repeat):
        result = subprocess.run(
            [sys.executable, "-c", CHILD, importer, str(path), "1" if write else "0"], capture_output=True, text=True
        )
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["killed"])[-1]
            return {"error": last[:60]}
        runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
    notes = sorted({line for line in result.stderr.splitlines() if line.startswith("note: ")})
    return {"seconds": min(run["seconds"] for run in runs), "peak_mib": max(run["peak_mib"] for run in runs), "notes": notes}


def weights_bytes(path: Path) -> int:
    return path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(path.stem + ".bin"))


def cell(result: dict) -> str:
    if "error" in result:
        return f"{'failed':>9} {'':>9}"
    return f"{result['seconds']:8.2f}s {result['peak_mib']:7.0f}MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "onnx-torch-mlir-bench")
    parser.add_argument("--big-gib", type=float, default=2.25, help="size of the external-data model (default 2.25 GiB)")
    parser.add_argument("--skip-big", action="store_true", help="leave out the model over 2 GB")
    parser.add_argument("--write-bytecode", action="store_true", help="also write the module as bytecode")
    parser.add_argument("-k", "--filter", default="", help="only models whose file name contains this")
    parser.add_argument("--repeat", type=int, default=3, help="runs per model and importer; the best time is shown")
    args = parser.parse_args()
    args.work_dir.mkdir(parents=True, exist_ok=True)

    models = [ONNX_DATA / name for name in WHEEL_MODELS if (ONNX_DATA / name).exists()]
    models.append(matmul_chain(args.work_dir / "embedded_400mb.onnx", 4096, 6, external=False))
    if not args.skip_big:
        width = 8192
        layers = max(1, round(args.big_gib * 2**30 / (width * width * 4)))
        big_dir = args.work_dir / "big"
        big_dir.mkdir(exist_ok=True)
        models.append(matmul_chain(big_dir / f"external_{layers * width * width * 4 / 2**30:.2f}gib.onnx", width, layers, external=True))

    print(f"{'model':34} {'size':>9} | {'ours':^19} | {'torch-mlir':^19} | time ratio  memory ratio")
    for path in (path for path in models if args.filter in path.name):
        repeat = 1 if weights_bytes(path) > 2**30 else args.repeat
        ours = measure("ours", path, args.write_bytecode, repeat)
        theirs = measure("torch-mlir", path, args.write_bytecode, repeat)
        ratios = ""
        if "error" not in ours and "error" not in theirs:
            ratios = f"{ours['seconds'] / theirs['seconds']:9.2f}x {ours['peak_mib'] / theirs['peak_mib']:12.2f}x"
        size_mib = weights_bytes(path) / 2**20
        print(f"{path.name[:34]:34} {size_mib:7.1f}MiB | {cell(ours)} | {cell(theirs)} | {ratios}", flush=True)
        for name, result in (("ours", ours), ("torch-mlir", theirs)):
            if "error" in result:
                print(f"    {name}: {result['error']}")
            for note in result.get("notes", ()):
                print(f"    {name}: {note.removeprefix('note: ')}")
    print(f"time: the import call, best of {args.repeat} (1 over 1 GiB); memory: peak resident set of the importing process (VmHWM)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
