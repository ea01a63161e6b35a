"""externals/mlir-wheels.toml, pyproject.toml and the installed wheels agree."""

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.specifiers import SpecifierSet

REPOSITORY = Path(__file__).resolve().parents[2]


def _externals():
    return tomllib.loads((REPOSITORY / "externals" / "mlir-wheels.toml").read_text())


def _pyproject_pin(distribution: str) -> str:
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"]:
        name, _, version = requirement.partition("==")
        if name.strip().lower().replace("_", "-") == distribution:
            return version.strip()
    raise AssertionError(f"{distribution} is not pinned with == in pyproject.toml")


def test_torch_mlir_pin_matches_pyproject():
    assert _externals()["torch-mlir"]["version"] == _pyproject_pin("torch-mlir")


def test_torch_mlir_pin_matches_installed_wheel():
    assert importlib.metadata.version("torch-mlir") == _externals()["torch-mlir"]["version"]


def test_llvm_version_matches_the_installed_wheel():
    opt = shutil.which("torch-mlir-opt", path=str(Path(sys.executable).parent))
    assert opt, "torch-mlir-opt is not installed beside the interpreter"
    printed = subprocess.run([opt, "--version"], capture_output=True, text=True, check=True).stdout
    reported = re.search(r"LLVM version (\S+)", printed).group(1)
    assert reported == _externals()["torch-mlir"]["llvm_version"]


def test_every_dependency_is_pinned_exactly_and_installed():
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["test"]
    for requirement in requirements:
        name, separator, version = requirement.partition("==")
        assert separator, f"{requirement} is not pinned exactly"
        installed = importlib.metadata.version(name.strip())
        # PEP 440: "==2.13.0" admits the local build "2.13.0+cpu".
        assert SpecifierSet(f"=={version.strip()}").contains(installed), f"{requirement}: {installed} installed"
