"""Wild corpus: files third-party converters write, run on seeded random weights.

Every file here is written by a tool other than torch.onnx on a model made in the build from a seed
(no hub, no download of weights): scikit-learn pipelines through skl2onnx, LightGBM and XGBoost
through onnxmltools, Keras models through tf2onnx, a Llama config through onnxruntime-genai's model
builder, diffusers' UNet and VAE decoder, an ultralytics YOLOv8n, and the graph tools users run on
their exports (onnx's version_converter, onnxslim, onnxsim, onnxconverter-common's float16 pass,
onnxruntime's quantizers).

Converters that the project's environment does not have run in their own virtual environments
(environments.py: pinned, made once under the wild cache). Each such builder writes what the
converter needs (training data, a source model) into the build directory and runs one of the
`_script_*` functions below there as a script in that environment; the script writes model.onnx.
The `_script_*` functions are self-contained (imports inside, no module globals) because their
source is what runs.

Inputs are what the model's user feeds: tabular rows drawn from the distribution the model was
trained on, token ids in the vocabulary, images normalized as the model expects, KV caches with a
past length above 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import environments
import zoo_control
import zoo_deployment
import zoo_models
from environments import run_script
from wild_sources import ORT_QUANTIZER, WildModel

# Tolerances of the quantized models, measured with onnxruntime 1.31.1.
# The QDQ encoder: with its extended graph optimizations onnxruntime fuses DequantizeLinear -> MatMul
# -> QuantizeLinear into QLinearMatMul, which rounds each product to uint8 where the file's float
# graph does not; its run with all optimizations differs from its run without any (the file's
# semantics, op by op) by up to 0.51 on logits that reach 5 (seeds 0-2: 0.36, 0.23, 0.51). So 0.6:
# loose (a wrong mask or a dropped bias still fails), and onnxruntime without optimizations is the
# better reference for this file.
_ENCODER_QDQ_ATOL = 0.6
# YOLOv8n's boxes are pixel coordinates up to about 850, each the difference of an anchor's centre
# and DFL distances of tens of pixels: where they cancel near zero, float round-off of the terms is
# all that is left. onnxruntime with and without its graph optimizations differs there by up to
# 0.008 (seed 0, 2x3x192x256), beyond the default atol 1e-4; 0.02 pixels still fails any wrong box.
_YOLO_BOX_ATOL = 0.02
# The dynamically quantized LSTM: onnxruntime's runs with and without optimizations agree exactly
# (DynamicQuantizeLSTM is one kernel). Another program quantizes each step's input and state to
# uint8 (steps of ~0.02) the same way but may round a value the other way after float sums in
# another order: one flip moves a gate by ~2e-3 before sigmoid/tanh and the head (|w| ~ 0.1), about
# 2e-4 on logits of order 0.1. atol 1e-3 covers a few flips; the quantization error itself is larger.
_LSTM_DYNAMIC_ATOL = 1e-3

# --------------------------------------------------------------------------------------------------
# Tabular data: what the scikit-learn, LightGBM and XGBoost models are trained on and fed.

_TABULAR_FEATURES = 8
_TABULAR_ROWS = 600


def _tabular_rows(rng: np.random.Generator, rows: int, features: int = _TABULAR_FEATURES) -> np.ndarray:
    """Rows of features with unequal offsets and spreads (what a scaler is for), float32."""
    offsets = np.linspace(-3.0, 12.0, features)
    spreads = np.linspace(0.5, 4.0, features)
    return (offsets + spreads * rng.standard_normal((rows, features))).astype(np.float32)


def _tabular_targets(x: np.ndarray, task: str) -> np.ndarray:
    """Labels (3 classes, or 2 for "binary") or a regression target, a nonlinear function of the rows."""
    z = (x - np.linspace(-3.0, 12.0, x.shape[1])) / np.linspace(0.5, 4.0, x.shape[1])
    score = np.sin(z[:, 0]) + z[:, 1] * z[:, 2] - 0.5 * z[:, 3] + 0.3 * z[:, 4] ** 2
    if task == "regression":
        return (score + 0.1 * z[:, 5]).astype(np.float32)
    if task == "binary":
        return (score > 0.3).astype(np.int64)
    return np.digitize(score, [-0.5, 0.8]).astype(np.int64)


def _write_tabular_training(directory: Path, task: str) -> None:
    x = _tabular_rows(np.random.default_rng(0), _TABULAR_ROWS)
    np.savez(directory / "training.npz", x=x, y=_tabular_targets(x, task))


def inputs_for_tabular(rng: np.random.Generator, input_name: str = "input", batch: int = 7, dtype: str = "float32", **_) -> dict:
    return {input_name: _tabular_rows(rng, batch).astype(dtype)}


# Text for the TF-IDF pipeline: sentences over a small vocabulary, the class given by which words occur.
_WORDS = ("good great fine nice excellent bad poor awful terrible worse movie film plot actor scene story "
          "music long short very not really quite the a was is and but").split()


def _sentences(rng: np.random.Generator, count: int) -> list[str]:
    return [" ".join(rng.choice(_WORDS, size=int(rng.integers(3, 12)))) for _ in range(count)]


def _write_text_training(directory: Path) -> None:
    text = _sentences(np.random.default_rng(0), 400)
    positive, negative = set(_WORDS[:5]), set(_WORDS[5:10])
    labels = [int(sum(w in positive for w in s.split()) > sum(w in negative for w in s.split())) for s in text]
    np.savez(directory / "training.npz", text=np.array(text, dtype=object), y=np.array(labels, np.int64), allow_pickle=True)


def inputs_for_text(rng: np.random.Generator, batch: int = 5, **_) -> dict:
    """A column of sentences, shape [N, 1] (skl2onnx's StringTensorType([None, 1]))."""
    return {"input": np.array(_sentences(rng, batch), dtype=object).reshape(-1, 1)}


# --------------------------------------------------------------------------------------------------
# scikit-learn through skl2onnx, LightGBM and XGBoost through onnxmltools


def _script_sklearn(kind: str, target_opset: dict, zipmap: bool, dtype: str) -> None:
    """Train model `kind` on training.npz (random_state 0) and write model.onnx with skl2onnx or
    onnxmltools, as their documentation shows."""
    import numpy as np

    data = np.load("training.npz", allow_pickle=True)
    x, y = data["x"] if "x" in data else None, data["y"]
    options = None if zipmap else {"zipmap": False}
    opsets = {("" if domain == "ai.onnx" else domain): version for domain, version in target_opset.items()}
    if kind in ("lightgbm-classifier", "lightgbm-regressor", "xgboost-classifier", "xgboost-regressor"):
        import onnxmltools
        from onnxmltools.convert.common.data_types import FloatTensorType

        if kind.startswith("lightgbm"):
            import lightgbm

            model = (lightgbm.LGBMClassifier if kind.endswith("classifier") else lightgbm.LGBMRegressor)(
                n_estimators=40, num_leaves=15, learning_rate=0.1, random_state=0, verbose=-1)
            model.fit(x, y)
            onnx_model = onnxmltools.convert_lightgbm(
                model, initial_types=[("input", FloatTensorType([None, x.shape[1]]))], target_opset=opsets[""],
                zipmap=zipmap)
        else:
            import xgboost

            model = (xgboost.XGBClassifier if kind.endswith("classifier") else xgboost.XGBRegressor)(
                n_estimators=40, max_depth=4, learning_rate=0.2, random_state=0)
            model.fit(x, y)
            onnx_model = onnxmltools.convert_xgboost(
                model, initial_types=[("input", FloatTensorType([None, x.shape[1]]))], target_opset=opsets[""])
        with open("model.onnx", "wb") as stream:
            stream.write(onnx_model.SerializeToString())
        return
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType, StringTensorType
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier, RandomForestRegressor
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if kind == "scaler-svc":
        model = make_pipeline(StandardScaler(), SVC(probability=True, random_state=0))
    elif kind == "scaler-logistic-regression":
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
    elif kind == "random-forest-classifier":
        model = RandomForestClassifier(n_estimators=12, max_depth=6, random_state=0)
    elif kind == "random-forest-regressor":
        model = RandomForestRegressor(n_estimators=12, max_depth=6, random_state=0)
    elif kind == "gradient-boosting-classifier":
        model = GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=0)
    elif kind == "tfidf-logistic-regression":
        model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression(max_iter=500))
    else:
        raise ValueError(kind)
    if kind.startswith("tfidf"):
        model.fit(list(data["text"]), y)
        initial = [("input", StringTensorType([None, 1]))]
    else:
        x = x.astype(dtype)
        model.fit(x, y)
        tensor_type = DoubleTensorType if dtype == "float64" else FloatTensorType
        initial = [("input", tensor_type([None, x.shape[1]]))]
    all_options = {}
    if options:
        all_options[id(model.steps[-1][1] if hasattr(model, "steps") else model)] = options
    if kind.startswith("tfidf"):
        # onnxruntime's StringNormalizer builds a C++ locale from the "locale" attribute (en_US.UTF-8
        # by default), which fails on a machine without that locale installed; "C" is always there.
        all_options[id(model.steps[0][1])] = {"locale": "C"}
    onnx_model = to_onnx(model, initial_types=initial, target_opset=opsets, options=all_options or None)
    with open("model.onnx", "wb") as stream:
        stream.write(onnx_model.SerializeToString())


def build_sklearn(directory: Path, kind: str, target_opset: dict, zipmap: bool = True, dtype: str = "float32", **_) -> Path:
    if kind.startswith("tfidf"):
        _write_text_training(directory)
    else:
        _write_tabular_training(directory, "regression" if kind.endswith("regressor") else
                                "binary" if kind.startswith("xgboost-classifier") else "multiclass")
    run_script("sklearn", directory, _script_sklearn, kind=kind, target_opset=dict(target_opset), zipmap=zipmap, dtype=dtype)
    (directory / "training.npz").unlink()
    return directory / "model.onnx"


_SKLEARN_LICENCE = "Apache-2.0 (skl2onnx); BSD-3-Clause (scikit-learn)"
_ONNXMLTOOLS_LICENCE = "Apache-2.0 (onnxmltools)"


def _sklearn_entries() -> list[WildModel]:
    def entry(kind, target_opset, description, zipmap=True, dtype="float32", producer="skl2onnx==1.20.0",
              licence=_SKLEARN_LICENCE, make_inputs=inputs_for_tabular, trainer="scikit-learn==1.8.0"):
        domains = ", ".join(f"{domain} {version}" for domain, version in target_opset.items())
        return WildModel(
            name=f"{'' if kind.startswith(('lightgbm', 'xgboost')) else 'sklearn-'}{kind}", family="tabular",
            exporter=producer.split("==")[0], dynamic=True, slice=False, builder=build_sklearn, make_inputs=make_inputs,
            parameters={"kind": kind, "target_opset": target_opset, "zipmap": zipmap, "dtype": dtype},
            description=f"{description}; target opsets {domains}; dynamic batch (tested at 7 rows)",
            producer=producer, licence=licence,
            source=f"{producer}, {trainer}: {kind} trained on 600 seeded rows (random_state 0)",
        )

    return [
        entry("scaler-svc", {"ai.onnx": 15, "ai.onnx.ml": 1},
              "StandardScaler + SVC(probability=True), 3 classes, skl2onnx's default ZipMap output (a sequence of "
              "maps from class to probability) beside the int64 label: Scaler, SVMClassifier, ZipMap (ai.onnx.ml)"),
        entry("scaler-logistic-regression", {"ai.onnx": 13, "ai.onnx.ml": 1},
              "StandardScaler + LogisticRegression, 3 classes, options zipmap=False (a float probability tensor): "
              "Scaler, LinearClassifier, Normalizer (ai.onnx.ml); the default domain is imported twice", zipmap=False),
        entry("random-forest-classifier", {"ai.onnx": 15, "ai.onnx.ml": 1},
              "RandomForestClassifier (12 trees, depth 6), 3 classes, zipmap=False: TreeEnsembleClassifier at "
              "ai.onnx.ml opset 1", zipmap=False),
        entry("random-forest-regressor", {"ai.onnx": 17, "ai.onnx.ml": 3},
              "RandomForestRegressor (12 trees, depth 6): TreeEnsembleRegressor; asked for ai.onnx.ml up to 3, "
              "skl2onnx declares the lowest opset that holds the model (ai.onnx.ml 1) and the default domain twice"),
        entry("gradient-boosting-classifier", {"ai.onnx": 18, "ai.onnx.ml": 5},
              "GradientBoostingClassifier (15 stages, depth 3), 3 classes, zipmap=False: one TreeEnsembleClassifier "
              "(ai.onnx.ml 1, base values and a softmax post-transform) although ai.onnx.ml up to 5 was allowed",
              zipmap=False),
        entry("tfidf-logistic-regression", {"ai.onnx": 15, "ai.onnx.ml": 1},
              "TfidfVectorizer(ngram_range=(1, 2)) + LogisticRegression on a string column [N, 1], zipmap=False, "
              "the StringNormalizer's locale option set to C (onnxruntime cannot build en_US.UTF-8 where that "
              "locale is not installed): StringNormalizer, com.microsoft Tokenizer, TfIdfVectorizer, "
              "Normalizer, LinearClassifier", zipmap=False,
              make_inputs=inputs_for_text),
        entry("lightgbm-classifier", {"ai.onnx": 15}, "LGBMClassifier (40 trees, 15 leaves), 3 classes, "
              "zipmap=False: TreeEnsembleClassifier (ai.onnx.ml 1) at opset 9, the label declared of shape [1] "
              "though it has one value per row", zipmap=False, producer="onnxmltools==1.16.0",
              licence=_ONNXMLTOOLS_LICENCE, trainer="lightgbm==4.6.0"),
        entry("lightgbm-regressor", {"ai.onnx": 15}, "LGBMRegressor (40 trees, 15 leaves): TreeEnsembleRegressor "
              "(ai.onnx.ml)", producer="onnxmltools==1.16.0", licence=_ONNXMLTOOLS_LICENCE, trainer="lightgbm==4.6.0"),
        entry("xgboost-classifier", {"ai.onnx": 15}, "XGBClassifier (40 trees, depth 4), binary: "
              "a lone TreeEnsembleClassifier (ai.onnx.ml 1, logistic post-transform); the file imports no "
              "default-domain opset", producer="onnxmltools==1.16.0",
              licence=_ONNXMLTOOLS_LICENCE, trainer="xgboost-cpu==3.1.3"),
        entry("xgboost-regressor", {"ai.onnx": 15}, "XGBRegressor (40 trees, depth 4): TreeEnsembleRegressor "
              "(ai.onnx.ml)", producer="onnxmltools==1.16.0", licence=_ONNXMLTOOLS_LICENCE, trainer="xgboost-cpu==3.1.3"),
    ]


# --------------------------------------------------------------------------------------------------
# Keras models through tf2onnx (TensorFlow 2.15, tf.keras = Keras 2)


def _script_tf2onnx(kind: str, opset: int) -> None:
    """Build Keras model `kind` after tf.keras.utils.set_random_seed(0) (batch-norm statistics drawn
    too, so batch norm is no identity) and convert it with tf2onnx.convert.from_keras."""
    import numpy as np
    import tensorflow as tf
    import tf2onnx

    tf.keras.utils.set_random_seed(0)
    layers = tf.keras.layers
    if kind == "keras-cnn":
        # NHWC images of any size, pixel values 0-255 rescaled in the model; strided "same" convolutions.
        inputs = tf.keras.Input(shape=(None, None, 3), name="image")
        x = layers.Rescaling(1.0 / 127.5, offset=-1.0)(inputs)
        x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU(6.0)(x)
        x = layers.DepthwiseConv2D(3, strides=2, padding="same")(x)
        x = layers.Conv2D(32, 1, activation="swish")(x)
        x = layers.Conv2D(32, 5, strides=2, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dropout(0.2)(x)
        outputs = layers.Dense(10, activation="softmax", name="probabilities")(x)
        signature = [tf.TensorSpec((None, None, None, 3), tf.float32, name="image")]
    elif kind == "keras-lstm-gru":
        # A text classifier: token ids (0 is padding, masked), a bidirectional LSTM, a GRU, a softmax.
        inputs = tf.keras.Input(shape=(None,), dtype="int32", name="tokens")
        x = layers.Embedding(500, 32, mask_zero=True)(inputs)
        x = layers.Bidirectional(layers.LSTM(24, return_sequences=True))(x)
        x = layers.GRU(16)(x)
        outputs = layers.Dense(3, activation="softmax", name="probabilities")(x)
        signature = [tf.TensorSpec((None, None), tf.int32, name="tokens")]
    elif kind == "keras-resize":
        # A small segmentation head: a strided encoder, tf.image.resize back to the input's size
        # (bilinear, half-pixel centers as TF2 does) and a nearest-neighbour UpSampling2D.
        inputs = tf.keras.Input(shape=(48, 64, 3), name="image")
        x = layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inputs)
        x = layers.Conv2D(24, 3, strides=2, padding="same", activation="relu")(x)
        skip = layers.UpSampling2D(2, interpolation="nearest")(x)
        skip = layers.Conv2D(8, 1)(skip)
        x = layers.Conv2D(8, 3, padding="same")(x)
        x = layers.Lambda(lambda t: tf.image.resize(t, (24, 32), method="bilinear"))(x)
        x = layers.Add()([x, skip])
        x = layers.Lambda(lambda t: tf.image.resize(t, (48, 64), method="bilinear"))(x)
        outputs = layers.Conv2D(5, 1, activation="softmax", name="segmentation")(x)
        signature = [tf.TensorSpec((None, 48, 64, 3), tf.float32, name="image")]
    elif kind == "keras-mobilenetv3-saved-model":
        # A Keras application as shipped (its own Rescaling preprocessing), random weights, saved as a
        # SavedModel and converted with tf2onnx's command line, the route most users take.
        model = tf.keras.applications.MobileNetV3Small(
            input_shape=(96, 96, 3), alpha=0.75, weights=None, classes=10, include_preprocessing=True)
        inputs = outputs = signature = None
    else:
        raise ValueError(kind)
    if inputs is not None:
        model = tf.keras.Model(inputs, outputs)
    rng = np.random.default_rng(0)
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            gamma, beta, mean, variance = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape), rng.normal(0, 0.1, beta.shape),
                               rng.normal(0, 0.1, mean.shape), rng.uniform(0.5, 1.5, variance.shape)])
        elif isinstance(layer, layers.Embedding):  # Keras draws embeddings from U(-0.05, 0.05): near-zero states
            layer.set_weights([rng.normal(0.0, 1.0, layer.get_weights()[0].shape)])
        elif layer.name in ("probabilities", "segmentation", "Logits"):  # logits of order 1-5, so the softmax is not flat
            kernel, bias = layer.get_weights()
            layer.set_weights([kernel * 6.0, rng.normal(0.0, 0.5, bias.shape)])
    if signature is None:
        import shutil
        import subprocess
        import sys

        tf.saved_model.save(model, "saved_model")
        subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--saved-model", "saved_model", "--output", "model.onnx",
                        "--opset", str(opset)], check=True, capture_output=True)
        shutil.rmtree("saved_model")
        return
    tf2onnx.convert.from_keras(model, input_signature=signature, opset=opset, output_path="model.onnx")


def build_tf2onnx(directory: Path, kind: str, opset: int) -> Path:
    run_script("tf2onnx", directory, _script_tf2onnx, kind=kind, opset=opset)
    return directory / "model.onnx"


def inputs_for_keras(rng: np.random.Generator, kind: str, **_) -> dict:
    """Pixels 0-255 (as float32, NHWC) for the CNN at a size other than any power of two; a batch of
    right-padded token ids (0 pads) for the text classifier; images in [0, 1] for the resize model."""
    if kind == "keras-cnn":
        return {"image": rng.integers(0, 256, (2, 72, 56, 3)).astype(np.float32)}
    if kind == "keras-mobilenetv3-saved-model":
        return {"input_1": rng.integers(0, 256, (3, 96, 96, 3)).astype(np.float32)}
    if kind == "keras-lstm-gru":
        tokens = rng.integers(1, 500, (3, 13)).astype(np.int32)
        tokens[1, 9:] = 0
        tokens[2, 5:] = 0
        return {"tokens": tokens}
    return {"image": rng.uniform(0.0, 1.0, (2, 48, 64, 3)).astype(np.float32)}


def _tf2onnx_entries() -> list[WildModel]:
    def entry(kind, opset, family, description, route="tf2onnx.convert.from_keras"):
        return WildModel(
            name=f"tf2onnx-{kind}", family=family, exporter="tf2onnx", dynamic=True, slice=False, builder=build_tf2onnx,
            make_inputs=inputs_for_keras, parameters={"kind": kind, "opset": opset},
            description=f"{description}; {route} at opset {opset}",
            producer="tf2onnx==1.17.0", licence="Apache-2.0 (tf2onnx, TensorFlow)",
            source=f"tf2onnx==1.17.0, tensorflow-cpu==2.15.1 (keras 2.15): {kind}, tf.keras.utils.set_random_seed(0)",
        )

    return [
        entry("keras-cnn", 13, "vision",
              "a small Keras CNN on NHWC images of any size (tested at 2x72x56x3, pixels 0-255): Rescaling, strided "
              "Conv2D and DepthwiseConv2D with padding=\"same\", BatchNormalization with random statistics, ReLU6, "
              "swish, MaxPooling2D \"same\", GlobalAveragePooling2D, Dense softmax"),
        entry("keras-lstm-gru", 15, "text",
              "a Keras text classifier: Embedding(500, 32, mask_zero=True), Bidirectional(LSTM(24)), GRU(16), Dense "
              "softmax; with the mask tf2onnx does not rewrite the recurrences into ONNX LSTM/GRU: three Loop bodies "
              "(MatMul, Sigmoid, Tanh, the mask as a select) and ReverseSequence for the backward LSTM; dynamic "
              "batch and sequence (tested at 3x13 with two right-padded rows)"),
        entry("keras-resize", 17, "vision",
              "a small Keras segmentation head at 48x64 (NHWC, dynamic batch): strided convolutions, UpSampling2D "
              "(nearest: a Resize with the deprecated tf_half_pixel_for_nn coordinate mode) and two tf.image.resize "
              "(bilinear, half-pixel centers) in Lambda layers, a per-pixel softmax; NHWC with Transposes at the ends"),
        entry("keras-mobilenetv3-saved-model", 13, "vision",
              "tf.keras.applications.MobileNetV3Small(input_shape=(96, 96, 3), alpha=0.75, weights=None, classes=10) "
              "with its own preprocessing (Rescaling of 0-255 pixels), random weights and batch-norm statistics, "
              "saved with tf.saved_model.save: hard-swish and hard-sigmoid spelled as Add, Clip (ReLU6) and Mul, "
              "squeeze-excite blocks (ReduceMean), depthwise convolutions with \"same\" padding (explicit Pad "
              "before the strided ones), the 1x1-convolution head, softmax; 106 Transposes left between the NHWC "
              "graph and the NCHW convolutions; dynamic batch (tested at 3x96x96x3)",
              route="python -m tf2onnx.convert --saved-model"),
    ]


# --------------------------------------------------------------------------------------------------
# Graph tools on the zoo's torch exports: onnxslim, onnxsim, onnxconverter-common's float16, onnx's
# version_converter. The source model is built in the project's environment by the zoo's own
# builder, into a subdirectory; the tool writes model.onnx beside it.


def _zoo_source(directory: Path, source: str, opset: int | None = None) -> Path:
    """The zoo export `source` ("small-bert-dynamic" or ARCHITECTURE-EXPORTER-static|dynamic) in
    directory/source/; `opset`: the TorchScript exporter's opset instead of the zoo's 17."""
    import zoo_deployment
    import zoo_models

    if opset is not None:
        saved = zoo_models.TORCHSCRIPT_OPSET
        zoo_models.TORCHSCRIPT_OPSET = opset  # _export_torch_module reads it when it runs
        try:
            return _zoo_source(directory, source)
        finally:
            zoo_models.TORCHSCRIPT_OPSET = saved

    target = directory / "source"
    target.mkdir()
    if source == "small-bert-dynamic":
        return zoo_deployment._export_small_bert(target / "model.onnx", dynamic=True)
    if source == "lstm-text-torchscript-dynamic":
        import zoo_control

        return zoo_control.build_text_classifier(target, "lstm", "torchscript", True)
    architecture, exporter, shapes = source.rsplit("-", 2)
    return zoo_models.build_torch_export(target, architecture, exporter, shapes == "dynamic")


def inputs_for_zoo_source(rng: np.random.Generator, source: str, dtype: str = "float32", **_) -> dict:
    import zoo_deployment
    import zoo_models

    if source == "small-bert-dynamic":
        inputs = zoo_deployment.inputs_for_small_bert(rng, dynamic=True)
    elif source == "lstm-text-torchscript-dynamic":
        import zoo_control

        inputs = zoo_control.inputs_for_text_classifier(rng, "lstm", "torchscript", True)
    else:
        architecture, exporter, shapes = source.rsplit("-", 2)
        inputs = zoo_models.inputs_for_torch_export(rng, architecture, exporter, shapes == "dynamic")
    return {name: value.astype(dtype) if value.dtype == np.float32 else value for name, value in inputs.items()}


def _script_onnxslim(source: str) -> None:
    import onnxslim

    onnxslim.slim(source, "model.onnx")


def _script_onnxsim(source: str) -> None:
    import onnx
    from onnxsim import simplify

    simplified, checked = simplify(onnx.load(source))
    if not checked:
        raise RuntimeError("onnxsim could not check the simplified model")
    onnx.save(simplified, "model.onnx")


def _script_float16(source: str, keep_io_types: bool) -> None:
    import onnx
    from onnxconverter_common import float16

    onnx.save(float16.convert_float_to_float16(onnx.load(source), keep_io_types=keep_io_types), "model.onnx")


_GRAPH_TOOL_SCRIPTS = {"onnxslim": _script_onnxslim, "onnxsim": _script_onnxsim, "onnxconverter-common": _script_float16}


def build_graph_tool(directory: Path, tool: str, source: str, **options) -> Path:
    """The zoo export `source`, then `tool` (an environment of environments.py) on it."""
    import shutil

    exported = _zoo_source(directory, source)
    run_script(tool, directory, _GRAPH_TOOL_SCRIPTS[tool], source=str(exported.relative_to(directory)),
               **{key: value for key, value in options.items() if key != "dtype"})
    shutil.rmtree(exported.parent)
    return directory / "model.onnx"


def build_version_converted(directory: Path, source: str, source_opset: int, target_opset: int) -> Path:
    """onnx.version_converter.convert_version of the zoo export (at `source_opset`) to `target_opset`."""
    import shutil

    import onnx
    from onnx import version_converter

    exported = _zoo_source(directory, source, source_opset)
    converted = version_converter.convert_version(onnx.load(str(exported)), target_opset)
    onnx.checker.check_model(converted)
    path = directory / "model.onnx"
    onnx.save(converted, str(path))
    shutil.rmtree(exported.parent)
    return path


def _graph_tool_entries() -> list[WildModel]:
    import onnx

    def tool(name, tool_name, version, source, description, family, dynamic=True, rtol=1e-3, atol=1e-4, licence="Apache-2.0",
             **options):
        return WildModel(
            name=name, family=family, exporter=tool_name, dynamic=dynamic, slice=False, builder=build_graph_tool,
            make_inputs=inputs_for_zoo_source, parameters={"tool": tool_name, "source": source, **options},
            rtol=rtol, atol=atol, description=description, producer=f"{tool_name}=={version}", licence=licence,
            source=f"{tool_name}=={version} on the zoo's {source} export (torch 2.13.0, seeded weights)",
        )

    def converted(name, source_opset, target, source, description, family, slice_=False):
        return WildModel(
            name=name, family=family, exporter="onnx.version_converter", dynamic=True, slice=slice_,
            builder=build_version_converted, make_inputs=inputs_for_zoo_source,
            parameters={"source": source, "source_opset": source_opset, "target_opset": target}, description=description,
            producer=f"onnx=={onnx.__version__} version_converter", licence="Apache-2.0",
            source=f"onnx.version_converter.convert_version(..., {target}) of the zoo's {source} export at opset "
            f"{source_opset} (torch 2.13.0, seeded weights)",
        )

    return [
        tool("bert-onnxslim", "onnxslim", "0.1.98", "small-bert-dynamic",
             "the zoo's small BERT (TorchScript export, opset 17, dynamic batch and sequence, tested at 3x11) through "
             "onnxslim.slim: constant folding, shape-subgraph elimination, fused Gemm and the like", "text"),
        tool("unet-onnxsim", "onnxsim", "0.4.36", "unet-torchscript-dynamic",
             "the zoo's small conv UNet (TorchScript export, opset 17, dynamic batch and image size, tested at "
             "3x3x48x80) through onnxsim.simplify", "vision"),
        # float16 keeps 11 significant bits: activations of order 1-4 are off by ~2e-3 per rounding, and
        # every layer rounds again; 1e-2 as the zoo's float16 BERT.
        tool("resnet-float16-onnxconverter-common", "onnxconverter-common", "1.16.0", "resnet-torchscript-static",
             "the zoo's small ResNet (bottleneck blocks, TorchScript export, opset 17, static 2x3x64x64) through "
             "onnxconverter_common.float16.convert_float_to_float16(keep_io_types=False): float16 weights, "
             "float16 input and outputs", "vision", dynamic=False, rtol=1e-2, atol=1e-2, keep_io_types=False,
             dtype="float16", licence="MIT"),
        # onnx's version_converter has few down-conversion adapters (none from Relu 14, Identity 16,
        # MaxPool 12 or Resize 11, and Constant below opset 9 holds no int64): a model reaches opset 7
        # from opset 9, which the TorchScript exporter still writes; up-conversion is what it mostly does.
        converted("resnet-opset7-version-converter", 9, 7, "resnet-torchscript-dynamic",
                  "the zoo's small ResNet (bottleneck blocks), TorchScript export at opset 9 with dynamic batch and "
                  "image size (tested at 3x3x48x80), converted down to opset 7 by onnx's version_converter", "vision",
                  slice_=True),
        converted("unet-opset11-version-converter", 9, 11, "unet-torchscript-dynamic",
                  "the zoo's small conv UNet, TorchScript export at opset 9 (GroupNorm as Reshape and "
                  "InstanceNormalization, bilinear upsampling as Upsample) with dynamic batch and image size "
                  "(tested at 3x3x48x80), converted up to opset 11 by onnx's version_converter: its adapter turns "
                  "Upsample into a Resize whose output differs from the opset-9 file's by up to 0.5 in onnxruntime "
                  "(the file, not the source model, is the reference)", "vision"),
    ]


# --------------------------------------------------------------------------------------------------
# onnxruntime's quantizers on models that are not CNNs: a small transformer encoder (static, QDQ)
# and the zoo's LSTM text classifier (dynamic: DynamicQuantizeLSTM)

_ENCODER = {"vocabulary": 1000, "width": 32, "heads": 4, "layers": 2, "classes": 4}


def _small_encoder():
    """A pre-LayerNorm transformer encoder written in plain torch: token and learned position
    embeddings, 2 blocks of 4-head self-attention (the padding mask added to the scores) and a GELU
    MLP, mean pooling over the unmasked tokens, a linear classifier. Seeded (manual_seed(0)) with
    random biases and layer-norm parameters."""
    import torch
    from torch import nn

    width, heads = _ENCODER["width"], _ENCODER["heads"]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

        def forward(self, x, bias):
            batch, sequence, _ = x.shape
            q, k, v = self.qkv(self.norm1(x)).reshape(batch, sequence, 3, heads, width // heads).permute(2, 0, 3, 1, 4)
            scores = q @ k.transpose(-1, -2) / (width // heads) ** 0.5 + bias
            attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, sequence, width)
            x = x + self.out(attended)
            return x + self.mlp(self.norm2(x))

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens, self.positions = nn.Embedding(_ENCODER["vocabulary"], width), nn.Embedding(64, width)
            self.blocks = nn.ModuleList(Block() for _ in range(_ENCODER["layers"]))
            self.norm, self.head = nn.LayerNorm(width), nn.Linear(width, _ENCODER["classes"])

        def forward(self, input_ids, attention_mask):
            positions = torch.arange(input_ids.shape[1], device=input_ids.device)
            x = self.tokens(input_ids) + self.positions(positions)[None]
            mask = attention_mask.to(x.dtype)
            bias = (1.0 - mask)[:, None, None, :] * -10000.0
            for block in self.blocks:
                x = block(x, bias)
            pooled = (self.norm(x) * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
            return self.head(pooled)

    torch.manual_seed(0)
    model = Encoder().eval()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Linear):
                module.bias.normal_(0.0, 0.1)
            elif isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
        model.head.weight.mul_(8.0)  # logits of order 1-3 rather than 0.3
    return model


def inputs_for_encoder(rng: np.random.Generator, batch: int = 3, sequence: int = 11, **_) -> dict:
    """Token ids in the vocabulary; the last row right-padded (a quarter of it)."""
    mask = np.ones((batch, sequence), np.int64)
    mask[-1, sequence - sequence // 4:] = 0
    return {"input_ids": rng.integers(0, _ENCODER["vocabulary"], (batch, sequence), dtype=np.int64), "attention_mask": mask}


def build_encoder_qdq(directory: Path) -> Path:
    """The encoder (TorchScript export, opset 17, dynamic batch and sequence), quant_pre_process, then
    quantize_static in QDQ format on the MatMuls (uint8 activations, int8 weights, per tensor), MinMax
    calibration on 4 seeded batches of other sizes."""
    import contextlib

    import torch
    import zoo_models
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    from zoo_deployment import _calibration_reader

    example = {name: torch.from_numpy(value) for name, value in inputs_for_encoder(np.random.default_rng(1), 2, 16).items()}
    axes = {name: {0: "batch", 1: "sequence"} for name in example}
    exported = directory / "float.onnx"
    with torch.no_grad():
        zoo_models._export_torch_module(_small_encoder(), example, exported, "torchscript", axes, ["logits"])
    prepared = directory / "prepared.onnx"
    with contextlib.chdir(directory):
        quant_pre_process(str(exported), str(prepared), skip_symbolic_shape=True)
    feeds = [inputs_for_encoder(np.random.default_rng(10 + index), 2 + index % 2, 9 + 3 * index) for index in range(4)]
    path = directory / "model.onnx"
    quantize_static(
        str(prepared), str(path), _calibration_reader(feeds), quant_format=QuantFormat.QDQ, per_channel=False,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax,
        op_types_to_quantize=["MatMul"],
    )
    exported.unlink()
    prepared.unlink()
    return path


def build_lstm_dynamic_quantized(directory: Path, **_) -> Path:
    """The zoo's LSTM text classifier (embedding, 2-layer bidirectional nn.LSTM, linear head;
    TorchScript export, opset 17, dynamic batch and sequence), then quantize_dynamic with int8
    weights: the LSTMs become com.microsoft DynamicQuantizeLSTM."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    exported = _zoo_source(directory, "lstm-text-torchscript-dynamic")
    path = directory / "model.onnx"
    quantize_dynamic(str(exported), str(path), weight_type=QuantType.QInt8)
    import shutil

    shutil.rmtree(exported.parent)
    return path


def _quantizer_entries() -> list[WildModel]:
    import onnxruntime

    version = onnxruntime.__version__
    return [
        WildModel(
            name="encoder-qdq-u8s8-matmul", family="text-quantized", exporter=ORT_QUANTIZER, dynamic=True, slice=False,
            builder=build_encoder_qdq, make_inputs=inputs_for_encoder, parameters={}, rtol=1e-3, atol=_ENCODER_QDQ_ATOL,
            description="a small pre-LayerNorm transformer encoder in plain torch (2 blocks, width 32, 4 heads, masked "
            "mean pooling, 4 classes), TorchScript export (opset 17, dynamic batch and sequence, tested at 3x11 with "
            "a padded row), quant_pre_process, quantize_static in QDQ format on the MatMuls only "
            "(op_types_to_quantize=[\"MatMul\"]: the mask's -10000 bias stays float), uint8 activations and int8 "
            "weights per tensor (U8S8), MinMax calibration on 4 seeded batches of other sizes; tolerance 0.6: see "
            "_ENCODER_QDQ_ATOL",
            producer=f"onnxruntime.quantization=={version}", licence="MIT",
            source=f"onnxruntime=={version} quantize_static (QDQ, U8S8, MatMul only) of a torch 2.13.0 export, manual_seed(0)",
        ),
        WildModel(
            name="lstm-dynamic-quantized", family="text-quantized", exporter=ORT_QUANTIZER, dynamic=True,
            slice=True, builder=build_lstm_dynamic_quantized, make_inputs=inputs_for_zoo_source,
            parameters={"source": "lstm-text-torchscript-dynamic"}, rtol=1e-3, atol=_LSTM_DYNAMIC_ATOL,
            description="the zoo's LSTM text classifier (embedding, 2-layer bidirectional nn.LSTM, linear head on the "
            "last step; TorchScript export, opset 17, dynamic batch and sequence, tested at 3x7), then "
            "quantize_dynamic(weight_type=QInt8): com.microsoft DynamicQuantizeLSTM for each layer, the head as "
            "DynamicQuantizeLinear + MatMulInteger; tolerance: see _LSTM_DYNAMIC_ATOL",
            producer=f"onnxruntime.quantization=={version}", licence="MIT",
            source=f"onnxruntime=={version} quantize_dynamic (int8 weights) of the zoo's lstm-text-torchscript-dynamic",
        ),
    ]


# --------------------------------------------------------------------------------------------------
# onnxruntime-genai's model builder: a small Llama at fp32 and a small Qwen2 at int4, with KV caches

_GENAI_CONFIGS = {
    # The zoo's small Llama sizes (4 query heads sharing 2 key/value heads), weights of std 0.1 so that
    # attention is far from uniform.
    "llama": {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 128},
    # Qwen2: biases on the query, key and value projections, tied embeddings off, 3 layers, 8 query heads
    # sharing 2 key/value heads of width 16.
    "qwen2": {"vocab_size": 1200, "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 3,
              "num_attention_heads": 8, "num_key_value_heads": 2, "max_position_embeddings": 256,
              "tie_word_embeddings": False},
}


def _save_random_decoder(directory: Path, architecture: str) -> Path:
    """A seeded (manual_seed(0), initializer_range 0.1) Llama or Qwen2 and a word-level tokenizer (the
    builder copies the tokenizer's files beside the model), saved as a local Hugging Face directory."""
    import torch
    import transformers as hf
    from tokenizers import Tokenizer, models, pre_tokenizers

    config = _GENAI_CONFIGS[architecture]
    torch.manual_seed(0)
    if architecture == "llama":
        model = hf.LlamaForCausalLM(hf.LlamaConfig(**config, initializer_range=0.1, bos_token_id=1, eos_token_id=2))
    else:
        model = hf.Qwen2ForCausalLM(hf.Qwen2Config(**config, initializer_range=0.1, bos_token_id=1, eos_token_id=2))
        with torch.no_grad():  # transformers initializes the projection biases to 0
            for layer in model.model.layers:
                for projection in (layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj):
                    projection.bias.normal_(0.0, 0.1)
    model.save_pretrained(directory)
    vocabulary = {"<unk>": 0, "<s>": 1, "</s>": 2, **{f"w{index}": index for index in range(3, config["vocab_size"])}}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="</s>").save_pretrained(directory)
    return directory


def build_genai(directory: Path, architecture: str, precision: str, extra_options: tuple, genai_version: str) -> Path:
    """`python -m onnxruntime_genai.models.builder -p PRECISION -e cpu` on the saved random model,
    offline, in its own process (it puts its own directories on sys.path)."""
    import os
    import shutil
    import subprocess

    import zoo_deployment

    zoo_deployment._check_genai_version(genai_version)
    source, output, scratch = directory / "hf-model", directory / "genai", directory / "builder-cache"
    _save_random_decoder(source, architecture)
    command = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(source), "-o", str(output),
               "-p", precision, "-e", "cpu", "-c", str(scratch), "--extra_options", "hf_token=false", *extra_options]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=900)
    if finished.returncode != 0:
        lines = [line for line in (finished.stderr + finished.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"onnxruntime-genai's builder exited with {finished.returncode}: {lines[-1] if lines else ''}")
    shutil.rmtree(source)
    shutil.rmtree(scratch, ignore_errors=True)
    return output / "model.onnx"


def inputs_for_genai(rng: np.random.Generator, architecture: str, **_) -> dict:
    """5 new tokens after 7 cached ones at batch 1 (GroupQueryAttention on the CPU takes several new
    tokens with a past only at batch 1): token ids in the vocabulary, an all-ones mask over past and
    new tokens, past keys and values of shape [1, kv heads, 7, head width]."""
    config = _GENAI_CONFIGS[architecture]
    batch, sequence, past = 1, 5, 7
    head = config["hidden_size"] // config["num_attention_heads"]
    inputs = {"input_ids": rng.integers(3, config["vocab_size"], (batch, sequence), dtype=np.int64),
              "attention_mask": np.ones((batch, past + sequence), np.int64)}
    for layer in range(config["num_hidden_layers"]):
        for kind in ("key", "value"):
            shape = (batch, config["num_key_value_heads"], past, head)
            inputs[f"past_key_values.{layer}.{kind}"] = rng.standard_normal(shape, dtype=np.float32)
    return inputs


# The int4 Qwen2 with the builder's CPU defaults (block_size 32, accuracy_level 4): onnxruntime
# quantizes MatMulNBits' activations to int8 per block, so it differs from the same 4-bit weights
# computed in fp32 by ~5e-2 on logits of order 3 (the zoo measured it on its int4 Llama: 5e-2 at
# level 4, 1.8e-6 at level 1); 0.1 lets either computation pass.
_GENAI_INT4_RTOL, _GENAI_INT4_ATOL = 1e-2, 1e-1


def _genai_entries() -> list[WildModel]:
    import zoo_deployment

    version = zoo_deployment.GENAI_VERSION

    def entry(name, architecture, precision, extra_options, description, slice_=False, rtol=1e-3, atol=1e-4):
        return WildModel(
            name=name, family="decoder", exporter="onnxruntime-genai", dynamic=True, slice=slice_, builder=build_genai,
            make_inputs=inputs_for_genai, rtol=rtol, atol=atol,
            parameters={"architecture": architecture, "precision": precision, "extra_options": tuple(extra_options),
                        "genai_version": version},
            description=description + "; dynamic batch, sequence and past, tested on 5 new tokens after 7 cached ones "
            "at batch 1", producer=f"onnxruntime-genai=={version} model builder", licence="MIT",
            source=f"python -m onnxruntime_genai.models.builder -p {precision} -e cpu "
            f"{' '.join(extra_options)} (onnxruntime-genai=={version}, transformers 4.57.6) on a seeded {architecture} config",
        )

    return [
        entry("genai-llama-fp32", "llama", "fp32", (),
              "a small Llama (hidden 64, 2 layers, 4 query and 2 key/value heads, random weights of std 0.1) written "
              "by onnxruntime-genai's model builder at fp32 for the CPU: MatMul weights in fp32, com.microsoft "
              "GroupQueryAttention with rotary embedding inside and past_key_values inputs / present outputs, "
              "SkipSimplifiedLayerNormalization and SimplifiedLayerNormalization", slice_=True),
        entry("genai-qwen2-int4", "qwen2", "int4", (),
              "a small Qwen2 (hidden 128, 3 layers, 8 query and 2 key/value heads, q/k/v biases, untied LM head, "
              "random weights of std 0.1) written by onnxruntime-genai's model builder at int4 for the CPU with its "
              "defaults (block_size 32, accuracy_level 4): com.microsoft MatMulNBits, GroupQueryAttention, "
              "SkipSimplifiedLayerNormalization; tolerance: see _GENAI_INT4_ATOL",
              rtol=_GENAI_INT4_RTOL, atol=_GENAI_INT4_ATOL),
    ]


# --------------------------------------------------------------------------------------------------
# diffusers: a small UNet2DConditionModel and an AutoencoderKL decoder from configs, torch.onnx.export
# (TorchScript exporter, opset 17) with dynamic batch, height and width, as Stable Diffusion's ONNX
# exports take them.


def _script_diffusers(kind: str, opset: int) -> None:
    import torch
    from diffusers import AutoencoderKL, UNet2DConditionModel

    torch.manual_seed(0)
    if kind == "unet":
        model = UNet2DConditionModel(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(32, 64),
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
            cross_attention_dim=32, attention_head_dim=8, norm_num_groups=8,
        ).eval()

        class Denoiser(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.unet = model

            def forward(self, sample, timestep, encoder_hidden_states):
                return self.unet(sample, timestep, encoder_hidden_states, return_dict=False)[0]

        module = Denoiser()
        example = (torch.randn(2, 4, 16, 16), torch.tensor([10, 500]), torch.randn(2, 8, 32))
        names = ["sample", "timestep", "encoder_hidden_states"]
        axes = {"sample": {0: "batch", 2: "height", 3: "width"}, "timestep": {0: "batch"},
                "encoder_hidden_states": {0: "batch", 1: "sequence"}, "out_sample": {0: "batch", 2: "height", 3: "width"}}
        outputs = ["out_sample"]
    elif kind == "vae-decoder":
        model = AutoencoderKL(
            in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * 2,
            up_block_types=("UpDecoderBlock2D",) * 2, block_out_channels=(32, 64), latent_channels=4,
            norm_num_groups=8, layers_per_block=1, sample_size=32,
        ).eval()

        class Decoder(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.vae = model

            def forward(self, latent_sample):
                return self.vae.decode(latent_sample, return_dict=False)[0]

        module = Decoder()
        example = (torch.randn(1, 4, 16, 16),)
        names = ["latent_sample"]
        axes = {"latent_sample": {0: "batch", 2: "height", 3: "width"}, "sample": {0: "batch", 2: "height", 3: "width"}}
        outputs = ["sample"]
    else:
        raise ValueError(kind)
    with torch.no_grad():
        torch.onnx.export(module, example, "model.onnx", dynamo=False, opset_version=opset, input_names=names,
                          output_names=outputs, dynamic_axes=axes)


def build_diffusers(directory: Path, kind: str, opset: int) -> Path:
    run_script("diffusers", directory, _script_diffusers, kind=kind, opset=opset)
    return directory / "model.onnx"


def inputs_for_diffusers(rng: np.random.Generator, kind: str, **_) -> dict:
    """The UNet: batch 3 of 24x40 latents N(0, 1), a timestep per sample in [0, 1000), 11 tokens of
    text-encoder states; the decoder: latents divided by Stable Diffusion's scaling factor (0.18215),
    as a pipeline feeds them, at 2x4x24x40 (exported at 16x16)."""
    if kind == "unet":
        return {"sample": rng.standard_normal((3, 4, 24, 40), dtype=np.float32),
                "timestep": rng.integers(0, 1000, 3, dtype=np.int64),
                "encoder_hidden_states": rng.standard_normal((3, 11, 32), dtype=np.float32)}
    return {"latent_sample": (rng.standard_normal((2, 4, 24, 40)) / 0.18215).astype(np.float32)}


def _diffusers_entries() -> list[WildModel]:
    def entry(kind, description):
        return WildModel(
            name=f"diffusers-{kind}", family="vision", exporter="diffusers", dynamic=True, slice=False,
            builder=build_diffusers, make_inputs=inputs_for_diffusers, parameters={"kind": kind, "opset": 17},
            description=description, producer="diffusers==0.42.1 (torch.onnx TorchScript exporter, torch 2.13.0)",
            licence="Apache-2.0 (diffusers)",
            source=f"diffusers==0.42.1 {kind} from a config, torch.manual_seed(0), torch.onnx.export(dynamo=False, "
            "opset_version=17) in its own environment",
        )

    return [
        entry("unet", "a small UNet2DConditionModel (block_out_channels 32/64, one CrossAttnDownBlock2D and DownBlock2D, "
              "the mirror up, cross-attention to 32-wide text states, GroupNorm 8, random weights): sinusoidal "
              "timestep embedding, ResNet blocks, spatial transformers (self- and cross-attention, GEGLU), "
              "nearest upsampling; dynamic batch, height, width and text length (exported at 2x4x16x16, tested "
              "at 3x4x24x40 with 11 text tokens)"),
        entry("vae-decoder", "the decoder of a small AutoencoderKL (block_out_channels 32/64, 4 latent channels, "
              "GroupNorm 8, random weights): post_quant_conv, a mid-block with single-head attention over every "
              "pixel, UpDecoderBlock2D with nearest upsampling; dynamic batch, height and width (exported at "
              "1x4x16x16, tested at 2x4x24x40)"),
    ]


# --------------------------------------------------------------------------------------------------
# ultralytics: YOLOv8n from its yaml (random weights), exported to ONNX without and with NMS in the graph

# A stand-in for torchvision 0.28.0 (the release for torch 2.13), put on the export script's path:
# PyPI's torchvision is built against the CUDA torch and its operators do not load next to the CPU
# build. ultralytics' ONNX export needs of torchvision only its version (package metadata) and, with
# nms=True, `torchvision.ops.nms`: the operator torchvision::nms, traced as a call, and torchvision's
# ONNX symbolic for it. The symbolic below is torchvision 0.28.0's (torchvision/ops/
# _register_onnx_ops.py, BSD-3-Clause), so the exported graph is what a user with the real
# torchvision gets: Unsqueeze, Cast, NonMaxSuppression (max_output_boxes_per_class = 2^63 - 1, the
# IoU threshold as a constant), Gather of the box indices, Squeeze. The CPU kernel, which only runs
# while tracing, is a plain-torch greedy NMS.
_TORCHVISION_STANDIN = {
    "torchvision-0.28.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.28.0\n",
    "torchvision/__init__.py": "__version__ = '0.28.0'\nfrom . import ops  # noqa: F401\n",
    "torchvision/ops/__init__.py": '''import sys

import torch
from torch.onnx import symbolic_opset11 as opset11
from torch.onnx.symbolic_helper import parse_args

torch.library.define("torchvision::nms", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")


@torch.library.impl("torchvision::nms", "CPU")
def _nms_cpu(dets, scores, iou_threshold):
    order = scores.argsort(descending=True)
    x1, y1, x2, y2 = dets.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    keep, suppressed = [], torch.zeros(len(order), dtype=torch.bool)
    for position, index in enumerate(order.tolist()):
        if suppressed[position]:
            continue
        keep.append(index)
        rest = order[position + 1:]
        w = (torch.minimum(x2[index], x2[rest]) - torch.maximum(x1[index], x1[rest])).clamp(min=0)
        h = (torch.minimum(y2[index], y2[rest]) - torch.maximum(y1[index], y1[rest])).clamp(min=0)
        inter = w * h
        suppressed[position + 1:] |= inter / (areas[index] + areas[rest] - inter) > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


def nms(boxes, scores, iou_threshold):
    return torch.ops.torchvision.nms(boxes, scores, iou_threshold)


@parse_args("v", "v", "f")
def symbolic_multi_label_nms(g, boxes, scores, iou_threshold):
    boxes = opset11.unsqueeze(g, boxes, 0)
    scores = opset11.unsqueeze(g, opset11.unsqueeze(g, scores, 0), 0)
    max_output_per_class = g.op("Constant", value_t=torch.tensor([sys.maxsize], dtype=torch.long))
    iou_threshold = g.op("Constant", value_t=torch.tensor([iou_threshold], dtype=torch.float))

    # Cast boxes and scores to float32 in case they are float64 inputs
    nms_out = g.op(
        "NonMaxSuppression",
        g.op("Cast", boxes, to_i=torch.onnx.TensorProtoDataType.FLOAT),
        g.op("Cast", scores, to_i=torch.onnx.TensorProtoDataType.FLOAT),
        max_output_per_class,
        iou_threshold,
    )
    return opset11.squeeze(
        g, opset11.select(g, nms_out, 1, g.op("Constant", value_t=torch.tensor([2], dtype=torch.long))), 1
    )


torch.onnx.register_custom_op_symbolic("torchvision::nms", symbolic_multi_label_nms, 11)
''',
}


def _script_ultralytics(nms: bool, imgsz: int) -> None:
    """YOLO("yolov8n.yaml") after torch.manual_seed(0), with batch-norm scales drawn and their running
    statistics measured on random images (drawn statistics let activations grow layer by layer until
    SiLU saturates and many anchors get bit-identical scores, whose order NonMaxSuppression leaves
    open), the class logits' weights halved and their biases drawn around -6 (so some anchors pass the
    0.25 confidence, as in a trained detector: fewer than a fifth, their scores far enough apart that
    float round-off does not reorder them), exported as a user does:
    model.export(format="onnx", dynamic=True, nms=NMS, simplify=True (onnxslim, the default))."""
    import os
    import sys

    os.environ["YOLO_CONFIG_DIR"] = os.path.abspath("ultralytics-config")  # not the user's ~/.config
    sys.path.insert(0, os.path.abspath("standin"))
    import torch
    from torch import nn
    from ultralytics import YOLO

    torch.manual_seed(0)
    model = YOLO("yolov8n.yaml")
    detect = model.model.model[-1]
    with torch.no_grad():
        for module in model.model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
                module.reset_running_stats()
                module.momentum = None  # running statistics: the average over the calibration batches
        model.model.train()
        for _ in range(4):  # statistics of real activations, as training leaves them: no layer saturates
            model.model(torch.rand(2, 3, imgsz, imgsz))
        model.model.eval()
        for branch in detect.cv3:
            branch[-1].weight.mul_(0.5)
            branch[-1].bias.normal_(-6.0, 1.0)
    exported = model.export(format="onnx", imgsz=imgsz, dynamic=True, nms=nms, simplify=True, device="cpu")
    os.replace(exported, "model.onnx")


def build_ultralytics(directory: Path, nms: bool, imgsz: int) -> Path:
    import shutil

    for member, text in _TORCHVISION_STANDIN.items():
        path = directory / "standin" / member
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    run_script("ultralytics", directory, _script_ultralytics, nms=nms, imgsz=imgsz)
    for scratch in ("standin", "ultralytics-config"):
        shutil.rmtree(directory / scratch, ignore_errors=True)
    return directory / "model.onnx"


def inputs_for_ultralytics(rng: np.random.Generator, nms: bool, **_) -> dict:
    """An RGB image scaled to [0, 1], NCHW, at 192x256 (a letterboxed size, multiple of 32; exported at
    160x160). With NMS in the graph the file's batch is 1 (ultralytics unrolls its loop over the batch)."""
    return {"images": rng.uniform(0.0, 1.0, (1 if nms else 2, 3, 192, 256)).astype(np.float32)}


def _ultralytics_entries() -> list[WildModel]:
    def entry(nms, description):
        return WildModel(
            name=f"yolov8n-ultralytics{'-nms' if nms else ''}", family="vision", exporter="ultralytics", dynamic=True,
            slice=False, builder=build_ultralytics, make_inputs=inputs_for_ultralytics,
            parameters={"nms": nms, "imgsz": 160}, description=description, atol=_YOLO_BOX_ATOL,
            producer="ultralytics==8.4.190 (torch.onnx TorchScript exporter, torch 2.13.0; onnxslim 0.1.98)",
            licence="AGPL-3.0 (ultralytics)",
            source=f"ultralytics==8.4.190 YOLO('yolov8n.yaml'), torch.manual_seed(0), model.export(format='onnx', "
            f"imgsz=160, dynamic=True, nms={nms}, simplify=True) with a stand-in torchvision 0.28.0 (see "
            "_TORCHVISION_STANDIN)",
        )

    return [
        entry(False, "YOLOv8n (3.2M parameters, random weights, 80 classes) as ultralytics exports it by default "
              "(opset 18, onnxslim-simplified, Conv+BatchNorm fused): SiLU as Sigmoid and Mul, C2f blocks (Split, "
              "Concat), SPPF MaxPools, nearest Resize, the DFL box decoding (Softmax over 16 bins, a 1x1 Conv) and "
              "anchor grids built from the input's shape; output [batch, 84, anchors]; dynamic batch and image "
              "size (tested at 2x3x192x256)"),
        entry(True, "YOLOv8n as above, exported with nms=True: the decoded boxes, the best class's score and index, a "
              "confidence filter (0.25) and class-offset boxes into ONNX NonMaxSuppression (IoU 0.7; torchvision's "
              "symbolic, see _TORCHVISION_STANDIN), the kept detections padded to 300: output [1, 300, 6] (box, "
              "score, class); the loop over the batch is unrolled at batch 1, height and width dynamic (tested at "
              "1x3x192x256: 175 of 1008 anchors pass the confidence filter, their scores at least 9e-5 apart, and "
              "89 are kept)"),
    ]


# --------------------------------------------------------------------------------------------------

# What goes into these models' cache keys besides each entry's builder and inputs: this whole file
# (the scripts, the tables and constants), environments.py (the pinned environments) and the zoo's
# builders of the models the graph tools and quantizers start from.
SHARED_BUILD_CODE = (
    sys.modules[__name__], environments, zoo_control, zoo_deployment, zoo_models.build_torch_export,
    zoo_models.inputs_for_torch_export,
)


def models() -> list[WildModel]:
    return [*_sklearn_entries(), *_tf2onnx_entries(), *_graph_tool_entries(), *_quantizer_entries(), *_genai_entries(), *_diffusers_entries(), *_ultralytics_entries()]
