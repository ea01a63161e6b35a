"""Bump the torch-mlir wheel (the project's one MLIR-bearing pin).

    .venv/bin/python tools/bump_pins.py 20261101

Installs torch-mlir==VERSION into the running interpreter's environment, reads
the LLVM version its torch-mlir-opt reports, and rewrites pyproject.toml and
externals/mlir-wheels.toml to match. Then run `make test` and `make conformance`:
a bump is a deliberate, tested step.
"""

import re
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def main() -> int:
    if len(sys.argv) != 2 or not re.fullmatch(r"\d{8}", sys.argv[1]):
        print("usage: bump_pins.py YYYYMMDD (a torch-mlir nightly version)", file=sys.stderr)
        return 2
    version = sys.argv[1]
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"torch-mlir=={version}"], check=True)
    opt = Path(sys.executable).parent / "torch-mlir-opt"
    printed = subprocess.run([str(opt), "--version"], capture_output=True, text=True, check=True).stdout
    llvm_version = re.search(r"LLVM version (\S+)", printed).group(1)
    _replace(REPOSITORY / "pyproject.toml", r'"torch-mlir==[^"]+"', f'"torch-mlir=={version}"')
    externals = REPOSITORY / "externals" / "mlir-wheels.toml"
    _replace(externals, r'(?m)^version = "[^"]+"', f'version = "{version}"')
    _replace(externals, r'(?m)^llvm_version = "[^"]+"', f'llvm_version = "{llvm_version}"')
    print(f"torch-mlir {version} (LLVM {llvm_version}) pinned; now run `make test` and `make conformance`")
    return 0


def _replace(path: Path, pattern: str, replacement: str) -> None:
    text, count = re.subn(pattern, replacement, path.read_text())
    if count != 1:
        raise SystemExit(f"{path}: expected one match of {pattern}, found {count}")
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
