"""Virtual environments for the wild corpus's converters, and running a converter script in one.

The converters (tf2onnx, skl2onnx, onnxmltools, ultralytics, diffusers, onnxslim, ...) are not part
of the project's environment: each gets its own virtual environment under the wild cache,
`cache_root()/venvs/NAME-HASH`, where HASH is a digest of the Python version and the pinned
requirements, so a changed pin makes a new environment and never edits an old one. Every package is
pinned with `==`, dependencies included (the lists below are `pip freeze` of the environment as
first resolved), so an environment made today and one made next year hold the same code.

An environment is made once: `python3.11 -m venv` into a scratch directory beside the final one,
`pip install` of the `first` group (torch, from the local CPU build), of the requirements and of
any packages to install without their dependencies, and a
rename to the final name when everything succeeded. A failed install removes the scratch directory,
so nothing half-made is ever reused. A file lock keeps two builds from making the same environment
at once. The environments are run as `venv/bin/python -m ...` or `venv/bin/python script.py`,
never through console scripts (whose shebangs name the scratch directory).

`run_script(environment, directory, function, **arguments)` writes the source of `function` (a
self-contained function: its imports inside it, no module globals) into `directory` as a script
that calls it with `arguments` (JSON), and runs it in the environment with `directory` as the
working directory. The function writes its .onnx file into that directory. A failure raises with
the script's last line of standard error.
"""

from __future__ import annotations

import fcntl
import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from wild_sources import cache_root

PYTHON = "python3.11"

# torch for the torch-based converters: the local CPU build of the one torch the project uses
# (pip finds 2.13.0+cpu in the machine's wheel directory; PyPI's 2.13.0 would pull CUDA).
TORCH = ("torch==2.13.0",)

# Each environment: (packages installed first, the pinned requirements[, packages installed last
# with --no-deps]). Dependencies are pinned too.
ENVIRONMENTS: dict[str, tuple[tuple[str, ...], ...]] = {
    # scikit-learn, LightGBM and XGBoost models with their converters (onnxmltools uses skl2onnx's
    # machinery for pipelines, so one environment serves both). xgboost-cpu is XGBoost's CPU-only
    # wheel (the same library, import name and model format; the xgboost wheel adds 650 MB of CUDA
    # code and NCCL).
    "sklearn": ((), (
        "scikit-learn==1.8.0", "skl2onnx==1.20.0", "onnxmltools==1.16.0", "lightgbm==4.6.0", "xgboost-cpu==3.1.3",
        "onnx==1.20.1", "numpy==2.4.6", "scipy==1.17.1", "joblib==1.6.0", "threadpoolctl==3.8.0", "cloudpickle==3.1.3",
        "protobuf==7.36.2", "ml_dtypes==0.7.0", "typing_extensions==4.16.0",
        "packaging==26.4",  # onnxmltools imports it without declaring it
    )),
    # Keras models through tf2onnx: TensorFlow 2.15 (tf.keras is Keras 2), the newest release that
    # tf2onnx 1.17 is tested with (its README: TensorFlow 2.13-2.15).
    "tf2onnx": ((), (
        "absl-py==2.5.1", "astunparse==1.6.3", "certifi==2026.10.19.post1", "cffi==2.1.1",
        "charset-normalizer==3.5.3", "cryptography==51.0.1", "flatbuffers==25.12.19", "gast==0.7.0",
        "google-auth==2.63.1", "google-auth-oauthlib==1.5.0", "google-pasta==0.2.0", "grpcio==1.85.4",
        "h5py==3.16.0", "idna==3.21", "keras==2.15.0", "libclang==18.1.1", "Markdown==3.11.3",
        "MarkupSafe==3.0.4", "ml-dtypes==0.3.2", "numpy==1.26.4", "oauthlib==4.0.1", "onnx==1.16.2",
        "opt_einsum==3.4.0", "packaging==26.4", "protobuf==4.25.9", "pyasn1==0.6.5", "pyasn1_modules==0.4.2",
        "pycparser==3.12", "requests==2.34.2", "requests-oauthlib==2.0.0", "six==1.17.0", "tensorboard==2.15.2",
        "tensorboard-data-server==0.7.2", "tensorflow-cpu==2.15.1", "tensorflow-estimator==2.15.0",
        "tensorflow-io-gcs-filesystem==0.37.1", "termcolor==3.3.0", "tf2onnx==1.17.0",
        "typing_extensions==4.16.0", "urllib3==2.8.0", "Werkzeug==3.1.9", "wrapt==1.14.2",
    )),
    # Graph tools run on torch exports: onnxslim, onnxsim, onnxconverter-common's float16 pass.
    "onnxslim": ((), (
        "onnxslim==0.1.98", "onnx==1.20.1", "colorama==0.4.6", "ml_dtypes==0.7.0", "mpmath==1.3.0", "numpy==2.4.6",
        "packaging==26.4", "protobuf==7.36.2", "sympy==1.14.0", "typing_extensions==4.16.0",
    )),
    # onnxsim 0.4.36, the onnx-simplifier release users have run for years (0.8 is another program);
    # it pip-installs onnxruntime when it is imported without one, so onnxruntime is pinned here.
    "onnxsim": ((), (
        "onnxsim==0.4.36", "onnx==1.17.0", "onnxruntime==1.31.1", "rich==15.0.0", "markdown-it-py==4.3.0",
        "mdurl==0.1.2", "Pygments==2.21.0", "numpy==2.4.6", "protobuf==7.36.2", "flatbuffers==25.12.19",
        "packaging==26.4", "sympy==1.14.0", "mpmath==1.3.0",
    )),
    "onnxconverter-common": ((), (
        "onnxconverter-common==1.16.0", "onnx==1.20.1", "ml_dtypes==0.7.0", "numpy==2.4.6", "packaging==26.4",
        "protobuf==7.36.2", "typing_extensions==4.16.0",
    )),
    # diffusers' UNet2DConditionModel and AutoencoderKL from configs, exported with torch.onnx
    # (TorchScript exporter; onnx and onnxscript at the project's versions).
    "diffusers": (TORCH, (
        "anyio==4.16.0", "certifi==2026.10.19.post1", "charset-normalizer==3.5.3", "click==8.5.1",
        "diffusers==0.42.1", "filelock==4.3.2", "fsspec==2026.9.0", "h11==0.16.0", "hf-xet==1.8.0",
        "httpcore2==2.17.0", "httpx2==2.17.0", "huggingface_hub==2.4.0", "idna==3.21",
        "importlib_metadata==10.2.0", "Jinja2==3.1.6", "lazy-importer==0.1.0", "MarkupSafe==3.0.4",
        "ml_dtypes==0.7.0", "mpmath==1.3.0", "networkx==3.6.1", "numpy==2.4.6", "onnx==1.20.1",
        "onnx-ir==1.1.0", "onnxscript==0.7.2", "packaging==26.4", "pillow==13.0.0", "protobuf==7.36.2",
        "PyYAML==6.0.4", "regex==2026.12.2", "requests==2.34.2", "safetensors==0.8.0", "sympy==1.14.0",
        "tqdm==4.70.1", "truststore==0.10.5", "typing_extensions==4.16.0", "urllib3==2.8.0", "zipp==4.1.2",
    )),
    # ultralytics, installed without its dependencies: they name torchvision (PyPI's build needs the
    # CUDA torch libraries and does not load next to the CPU torch) and opencv-python (GUI libraries);
    # what its ONNX export imports is here instead, with opencv-python-headless, and onnx, onnxruntime
    # and onnxslim at the versions its export checks for (so it never pip-installs them itself).
    # converted.py gives it a stand-in torchvision (see _TORCHVISION_STANDIN).
    "ultralytics": (TORCH, (
        "certifi==2026.10.19.post1", "charset-normalizer==3.5.3", "colorama==0.4.6", "contourpy==1.3.3",
        "cycler==0.12.1", "filelock==4.3.2", "flatbuffers==25.12.19", "fonttools==4.69.1", "fsspec==2026.9.0",
        "idna==3.21", "Jinja2==3.1.6", "kiwisolver==1.5.1", "MarkupSafe==3.0.4", "matplotlib==3.11.2",
        "ml_dtypes==0.7.0", "mpmath==1.3.0", "networkx==3.6.1", "numpy==2.4.6", "onnx==1.20.1",
        "onnxruntime==1.31.1", "onnxslim==0.1.98", "opencv-python-headless==5.1.0.95", "packaging==26.4",
        "pillow==13.0.0", "protobuf==7.36.2", "psutil==7.2.2", "pyparsing==3.3.3", "python-dateutil==4.0.0",
        "PyYAML==6.0.4", "requests==2.34.2", "sympy==1.14.0", "typing_extensions==4.16.0", "tzdata==2026.6",
        "ultralytics-thop==2.2.3", "urllib3==2.8.0",
    ), ("ultralytics==8.4.190",)),
}


def _key(first: tuple[str, ...], requirements: tuple[str, ...], no_deps: tuple[str, ...]) -> str:
    for requirement in (*first, *requirements, *no_deps):
        if "==" not in requirement:
            raise ValueError(f"unpinned requirement {requirement!r}: pin every package with ==")
    text = "\n".join([PYTHON, *first, "--", *sorted(requirements), *(["--no-deps", *sorted(no_deps)] if no_deps else [])])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _pip(python: Path, arguments: list[str]) -> None:
    command = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", *arguments]
    finished = subprocess.run(command, capture_output=True, text=True)
    if finished.returncode != 0:
        lines = [line for line in finished.stderr.splitlines() if line.strip() and "WARNING" not in line]
        raise RuntimeError(f"pip install {' '.join(arguments)} failed: {lines[-1] if lines else finished.returncode}")


def environment(name: str) -> Path:
    """The Python interpreter of environment `name` (see ENVIRONMENTS), made if it does not exist."""
    first, requirements, *rest = ENVIRONMENTS[name]
    no_deps = rest[0] if rest else ()
    final = cache_root() / "venvs" / f"{name}-{_key(first, requirements, no_deps)}"
    python = final / "bin" / "python"
    if python.exists():
        return python
    final.parent.mkdir(parents=True, exist_ok=True)
    with open(final.parent / f"{final.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists():  # another build made it while this one waited
            return python
        scratch = final.with_name(final.name + ".partial")
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            subprocess.run([PYTHON, "-m", "venv", str(scratch)], check=True, capture_output=True)
            if first:
                _pip(scratch / "bin" / "python", list(first))
            _pip(scratch / "bin" / "python", [*requirements, *first])  # first again: keeps pip from replacing it
            if no_deps:
                _pip(scratch / "bin" / "python", ["--no-deps", *no_deps])
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        scratch.rename(final)
    return python


def run_script(environment_name: str, directory: Path, function, timeout: int = 1800, **arguments) -> None:
    """Run `function(**arguments)` in the environment, as a script file in `directory` (the working
    directory). `function` must be self-contained; arguments must be JSON values."""
    python = environment(environment_name)
    directory = Path(directory)
    script = directory / f"{function.__name__.strip('_')}.py"
    source = textwrap.dedent(inspect.getsource(function))
    call = f"\n\nif __name__ == '__main__':\n    {function.__name__}(**json.loads({json.dumps(json.dumps(arguments))}))\n"
    script.write_text("import json\n\n" + source + call)
    variables = {
        key: value for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "VIRTUAL_ENV", "CONDA"))
    }
    variables.update({
        "PYTHONHASHSEED": "0", "CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "YOLO_OFFLINE": "1", "OMP_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    })
    finished = subprocess.run(
        [str(python), script.name], cwd=directory, env=variables, capture_output=True, text=True, timeout=timeout
    )
    if finished.returncode != 0:
        lines = [line for line in finished.stderr.splitlines() if line.strip()]
        raise RuntimeError(f"{script.name} in {environment_name} exited with {finished.returncode}: {lines[-1] if lines else ''}")


def main(argv: list[str]) -> int:
    """`python test/wild/environments.py [NAME ...]`: make the named environments (all by default)
    and print each one's path, size and `pip freeze`."""
    for name in argv or list(ENVIRONMENTS):
        python = environment(name)
        root = python.parent.parent
        size = sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())
        frozen = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True).stdout.split()
        print(f"{name}: {root} ({size / 2**20:.0f} MiB)\n  " + " ".join(frozen), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
