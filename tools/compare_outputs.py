"""Fingerprints of what the compiler writes, to prove that a change of structure changes no output.

    PYTHONPATH=CHECKOUT/python python tools/compare_outputs.py --write DIR [--backend B] [--models DIR] [--shard I/N]
    python tools/compare_outputs.py --compare DIR_BEFORE DIR_AFTER

`--write` compiles every case of the conformance passing lists (configuration "ours", each backend's
own list) and every `.onnx` file under `--models` (the zoo's or wild corpus's cache, as they are and
to every backend) with the checkout found first on PYTHONPATH, and writes one line per compile to
DIR/<backend>.<I>.tsv: the case, the sha256 of the module's bytecode, or the error's first line. Run it
once with the code before a change and once after (two `git worktree`s), then `--compare`: it lists
every case whose output differs and exits 1 if any does. The bytecode is the backend IR exactly; the
compile is `onnx_torch_mlir.compile(model, output_type=backend)`.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
from pathlib import Path

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
REPOSITORY = Path(__file__).resolve().parent.parent


def passing_cases(backend: str) -> list[str]:
    path = REPOSITORY / "test" / "conformance" / "passing" / "ours" / f"{backend}.txt"
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def fingerprint(model, backend: str) -> str:
    """sha256 of the compiled module's bytecode, or `error: <first line>`."""
    import onnx_torch_mlir

    try:
        module = onnx_torch_mlir.compile(model, output_type=backend)
    except Exception as error:  # an error is an output too: it must stay the same
        lines = str(error).splitlines()
        return f"error: {type(error).__name__}: {lines[0] if lines else ''}"
    stream = io.BytesIO()
    module.operation.write_bytecode(stream)
    return hashlib.sha256(stream.getvalue()).hexdigest()


def write(directory: Path, backends, models_root: Path | None, shard: tuple[int, int]) -> None:
    from onnx_torch_mlir.conformance.cases import collect_cases

    index, count = shard
    directory.mkdir(parents=True, exist_ok=True)
    cases = {case.case_id: case for case in collect_cases()}
    model_files = sorted(models_root.rglob("*.onnx")) if models_root else []
    for backend in backends:
        wanted = [case for case in passing_cases(backend) if case in cases][index::count]
        jobs = [(case_id, lambda case_id=case_id: cases[case_id].load()[0]) for case_id in wanted]
        jobs += [(str(path.relative_to(models_root)), lambda path=path: str(path)) for path in model_files]
        with open(directory / f"{backend}.{index}.tsv", "w") as out:
            for number, (name, load) in enumerate(jobs, 1):
                out.write(f"{name}\t{fingerprint(load(), backend)}\n")
                out.flush()
                if number % 200 == 0:
                    print(f"{backend}: {number}/{len(jobs)}", file=sys.stderr, flush=True)


def read(directory: Path) -> dict[tuple[str, str], str]:
    rows = {}
    for path in sorted(directory.glob("*.tsv")):
        backend = path.name.split(".")[0]
        for line in path.read_text().splitlines():
            name, _, value = line.partition("\t")
            rows[(backend, name)] = value
    return rows


def compare(before: Path, after: Path) -> int:
    old, new = read(before), read(after)
    common = sorted(set(old) & set(new))
    differing = [key for key in common if old[key] != new[key]]
    for backend, name in differing:
        print(f"{backend}\t{name}\n  before: {old[(backend, name)]}\n  after:  {new[(backend, name)]}")
    missing = sorted(set(old) ^ set(new))
    print(f"{len(common)} compiles compared, {len(differing)} differ; {len(missing)} in only one run")
    return 1 if differing or missing else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, metavar="DIR")
    mode.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--backend", action="append", choices=BACKENDS)
    parser.add_argument("--models", type=Path, help="also compile every .onnx file under this directory")
    parser.add_argument("--shard", default="0/1", help="I/N: every N-th conformance case from the I-th (a sample, "
                        "or parallel runs); the models are all compiled")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    index, count = (int(part) for part in args.shard.split("/"))
    write(args.write, args.backend or BACKENDS, args.models, (index, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
