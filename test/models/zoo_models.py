"""The model zoo's registry: real architectures with seeded random weights, exported the ways users do.

Every entry is a `ZooModel`. Its `build(directory)` writes the ONNX file (and any external data next to
it) into `directory` and returns the path of the `.onnx` file; its `inputs(seed)` returns the seeded
inputs the harness runs it on, keyed by graph input name. Models with dynamic dims are tested at sizes
that differ from the export example (exported at batch 2 and sequence 16, run at batch 3 and sequence
11, and so on), so a program that wrongly fixed a dim to the example size is caught.

No hub access: every transformers model comes from a config with small sizes (hidden 32-64, 2 layers)
after `torch.manual_seed(0)`; one full-size BERT-base (~110M parameters) exercises large constants.
torch and transformers are imported inside the builders, so the harness can read this registry
without loading them.

Tolerances are stated per model; every model here is fp32 and compares with onnxruntime at rtol 1e-3,
atol 1e-4, except MobileNetV2 (atol 5e-4, see _TOLERANCES). That was checked against a second fp32
implementation: PyTorch's own outputs match onnxruntime's at the stated tolerance for every
torch-exported model (largest differences 3.3e-6 on outputs of order 1-4, BERT-base included; 3.2e-4
on MobileNetV2's, which reach 6), so a compiled program that misses it computes something else, not
the same thing in another order. zoo_deployment.py adds quantized and onnxruntime-optimized models
(the formats users deploy), zoo_npu.py models quantized for an NPU, each with the tolerance its
quantization calls for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

import zoo_architectures  # more transformers architectures; imports this module only in its builders
import zoo_control  # recurrent and control-flow models; imports this module only in its builders
import zoo_deployment  # quantized and onnxruntime-optimized models; imports this module only in its builders
import zoo_npu  # quantized models for an NPU (integer TOSA, Vela); imports this module only in its builders

EXPORTERS = ("torchscript", "dynamo", "optimum", "onnx.helper", *zoo_deployment.EXPORTERS)
TORCHSCRIPT_OPSET = 17


@dataclasses.dataclass(frozen=True)
class ZooModel:
    name: str
    family: str  # text, decoder, encoder-decoder, speech, vision, hand-built
    exporter: str  # one of EXPORTERS
    dynamic: bool
    slice: bool  # part of the fast slice `make test` runs
    builder: Callable[..., Path] = dataclasses.field(repr=False)
    parameters: Mapping = dataclasses.field(repr=False)
    make_inputs: Callable[..., dict] = dataclasses.field(repr=False)
    rtol: float = 1e-3
    atol: float = 1e-4
    description: str = ""
    # Inputs that choose a network rather than carry data (Silero VAD's sample rate `sr`): ours-dims
    # fixes them too, at the value the model is tested at (`--input-value`), as a user who compiles
    # for one shape and one rate does.
    selector_inputs: tuple[str, ...] = ()

    def build(self, directory) -> Path:
        """Export the model into `directory`; the path of its `.onnx` file."""
        return Path(self.builder(Path(directory), **self.parameters))

    def inputs(self, seed: int = 0) -> dict[str, np.ndarray]:
        return self.make_inputs(np.random.default_rng(seed), **self.parameters)

    def fingerprint_source(self) -> str:
        """What, besides package versions, decides the built files: the code and the parameters."""
        sources = [inspect.getsource(function) for function in (self.builder, self.make_inputs)]
        sources += [inspect.getsource(helper) for helper in _SHARED_BUILD_CODE]
        sources += [inspect.getsource(helper) for helper in getattr(inspect.getmodule(self.builder), "SHARED_BUILD_CODE", ())]
        return "\n".join([self.name, self.exporter, repr(sorted(self.parameters.items())), *sources])


# --------------------------------------------------------------------------------------------------
# Exporting torch modules


def _quiet():
    """The exporters' warnings and progress prints say nothing the zoo acts on."""
    warnings.simplefilter("ignore")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _export_torch_module(
    module, example: dict, path: Path, exporter: str, dynamic_axes: Mapping | None, output_names: list[str]
) -> Path:
    """`module` (called with the example inputs as keyword arguments, in order) to `path`.

    dynamic_axes: {input name: {axis: dim name}}, or None for a static export. The TorchScript
    exporter takes it as is; the dynamo exporter gets one `torch.export.Dim` per dim name, shared by
    every input that names it.
    """
    import torch

    _quiet()
    names = list(example)
    arguments = tuple(example[name] for name in names)
    module = module.eval()
    if exporter == "torchscript":
        with _traceable_causal_masks():
            torch.onnx.export(
                module, arguments, str(path), dynamo=False, opset_version=TORCHSCRIPT_OPSET, input_names=names,
                output_names=output_names, dynamic_axes=dict(dynamic_axes) if dynamic_axes else None,
            )
    elif exporter == "dynamo":
        dynamic_shapes = None
        if dynamic_axes:
            dims = {}
            for axes in dynamic_axes.values():
                for dim_name in axes.values():
                    dims.setdefault(dim_name, torch.export.Dim(dim_name, min=1, max=4096))
            dynamic_shapes = tuple(
                {axis: dims[dim_name] for axis, dim_name in dynamic_axes.get(name, {}).items()} or None for name in names
            )
        torch.onnx.export(
            module, arguments, str(path), dynamo=True, input_names=names, output_names=output_names,
            dynamic_shapes=dynamic_shapes, verbose=False,
        )
    else:
        raise ValueError(f"not a torch.onnx exporter: {exporter}")
    return path


@contextlib.contextmanager
def _traceable_causal_masks():
    """transformers' own broadcasting mask builder in place of its torch.vmap one, while tracing.

    transformers 4.57 builds causal masks (GPT-2, LLaMA, Whisper's decoder) with
    `masking_utils.sdpa_mask_recent_torch`, which calls torch.vmap; TorchScript tracing cannot follow
    vmap, so the TorchScript exporter fails inside transformers. `sdpa_mask_older_torch`, shipped in
    the same module, builds the same boolean mask by broadcasting. Users of the TorchScript exporter do
    the same (optimum's exporter registers vmap-free mask functions for the same reason). Whisper's
    decoder also passes position ids, from which transformers looks for packed sequences (several
    sequences in one row) with `torch.diff` and masks them apart, again through vmap; the zoo's inputs
    never pack sequences, so the search is replaced by its answer for them: none.
    """
    from transformers import masking_utils

    interface = masking_utils.ALL_MASK_ATTENTION_FUNCTIONS
    saved = masking_utils.sdpa_mask, interface["sdpa"], masking_utils.find_packed_sequence_indices
    masking_utils.sdpa_mask = masking_utils.sdpa_mask_older_torch  # eager_mask calls it by this name
    interface.register("sdpa", masking_utils.sdpa_mask_older_torch)
    masking_utils.find_packed_sequence_indices = lambda position_ids: None
    try:
        yield
    finally:
        masking_utils.sdpa_mask, masking_utils.find_packed_sequence_indices = saved[0], saved[2]
        interface.register("sdpa", saved[1])


def _select_outputs(model, input_names: list[str], output_names: list[str]):
    """Wraps a transformers model as a module with one positional parameter per input (named as the
    inputs, so both exporters bind example inputs and dynamic shapes by position as for any module)
    that returns the named tensors of the model's output as a tuple."""
    import torch

    class Selected(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *arguments):
            outputs = self.model(**dict(zip(input_names, arguments)), return_dict=True)
            return tuple(outputs[name] for name in output_names)

    # What inspect.signature (and so torch.export) sees: forward(self, input_ids, attention_mask, ...).
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    Selected.forward.__signature__ = inspect.Signature(
        [inspect.Parameter(name, positional) for name in ["self", *input_names]]
    )
    return Selected()


# --------------------------------------------------------------------------------------------------
# Architectures from transformers configs (and one torch.nn UNet)


def _transformers_model(architecture: str):
    """A seeded random-weight model for `architecture`, and the names of its exported outputs."""
    import torch
    import transformers as hf

    torch.manual_seed(0)
    if architecture == "bert":
        config = hf.BertConfig(
            vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=64,
        )
        return hf.BertModel(config), ["last_hidden_state", "pooler_output"]
    if architecture == "bert-base":
        return hf.BertModel(hf.BertConfig()), ["last_hidden_state", "pooler_output"]
    if architecture == "gpt2-base":  # GPT-2 small: 124M parameters, the LM head tied to the embedding
        return hf.GPT2LMHeadModel(hf.GPT2Config(use_cache=False)), ["logits"]
    if architecture == "vit-base":  # ViT-B/16 at 224x224: 86M parameters
        return hf.ViTModel(hf.ViTConfig()), ["last_hidden_state", "pooler_output"]
    if architecture == "distilbert":
        config = hf.DistilBertConfig(
            vocab_size=1000, dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=64
        )
        return hf.DistilBertModel(config), ["last_hidden_state"]
    if architecture == "gpt2":
        config = hf.GPT2Config(vocab_size=1000, n_embd=32, n_layer=2, n_head=2, n_positions=64, use_cache=False)
        return hf.GPT2LMHeadModel(config), ["logits"]
    if architecture == "llama":
        # Grouped-query attention: 4 query heads share 2 key/value heads; RMSNorm; rotary embeddings.
        config = hf.LlamaConfig(
            vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=128, use_cache=False,
        )
        return hf.LlamaForCausalLM(config), ["logits"]
    if architecture == "t5":
        config = hf.T5Config(
            vocab_size=1000, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=2,
            use_cache=False,
        )
        return hf.T5Model(config), ["last_hidden_state", "encoder_last_hidden_state"]
    if architecture == "whisper":
        config = hf.WhisperConfig(
            vocab_size=1000, num_mel_bins=16, d_model=32, encoder_layers=2, decoder_layers=2,
            encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
            max_source_positions=32, max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2,
            decoder_start_token_id=1, use_cache=False,
        )
        return hf.WhisperModel(config), ["last_hidden_state", "encoder_last_hidden_state"]
    if architecture == "vit":
        config = hf.ViTConfig(
            image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64,
        )
        return hf.ViTModel(config), ["last_hidden_state", "pooler_output"]
    if architecture == "resnet":
        # ResNet-50's layout (bottleneck blocks, four stages) at a width and depth that compile fast.
        config = hf.ResNetConfig(
            embedding_size=16, hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1], layer_type="bottleneck"
        )
        return _realistic_convolutions(hf.ResNetModel(config), reinitialize=False), ["last_hidden_state", "pooler_output"]
    if architecture == "mobilenetv2":
        config = hf.MobileNetV2Config(image_size=64, depth_multiplier=0.35)
        return _realistic_convolutions(hf.MobileNetV2Model(config)), ["last_hidden_state", "pooler_output"]
    if architecture == "efficientnet":
        # hidden_dim is the width of the last convolution: round_filters(1280) at width 0.25.
        config = hf.EfficientNetConfig(
            image_size=64, width_coefficient=0.25, depth_coefficient=0.3, hidden_dim=320, dropout_rate=0.0,
            drop_connect_rate=0.0,
        )
        return _realistic_convolutions(hf.EfficientNetModel(config)), ["last_hidden_state", "pooler_output"]
    if architecture == "convnext":
        config = hf.ConvNextConfig(hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 2, 1], image_size=64)
        return hf.ConvNextModel(config), ["last_hidden_state", "pooler_output"]
    raise ValueError(f"unknown architecture {architecture}")


def _realistic_convolutions(model, reinitialize: bool = True):
    """Non-trivial batch-norm statistics and affine parameters (so batch norm is not an identity), and
    with `reinitialize` He-initialized convolutions.

    transformers initializes MobileNetV2's and EfficientNet's convolutions with std 0.02 (pretrained
    weights are meant to replace them): through their depth the activations vanish, to outputs of
    1e-24 (MobileNetV2) or exactly 0 (EfficientNet), which any program would match within atol. With
    He-initialized convolutions every stage's output stays of order 1. ResNet is already He-initialized.
    """
    import torch

    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.Conv2d) and reinitialize:
                torch.nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            elif isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.normal_(0.0, 0.1)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
    return model


def _small_unet():
    """A small conv UNet: Conv, GroupNorm, SiLU, strided-conv downsampling, ConvTranspose and bilinear
    Upsample (ONNX Resize) on the way up, skip connections by concatenation."""
    import torch
    from torch import nn

    def block(in_channels, out_channels):
        return nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1), nn.GroupNorm(4, out_channels), nn.SiLU(),
            nn.Conv2d(out_channels, out_channels, 3, padding=1), nn.GroupNorm(4, out_channels), nn.SiLU(),
        )

    class SmallUNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.encode1 = block(3, 16)
            self.down1 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
            self.encode2 = block(32, 32)
            self.down2 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
            self.middle = block(64, 64)
            self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
            self.decode2 = block(64, 32)
            self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False), nn.Conv2d(32, 16, 1))
            self.decode1 = block(32, 16)
            self.head = nn.Conv2d(16, 3, 1)

        def forward(self, image):
            skip1 = self.encode1(image)
            skip2 = self.encode2(self.down1(skip1))
            middle = self.middle(self.down2(skip2))
            x = self.decode2(torch.cat([self.up2(middle), skip2], dim=1))
            x = self.decode1(torch.cat([self.up1(x), skip1], dim=1))
            return self.head(x) + nn.functional.interpolate(image, scale_factor=1.0, mode="bilinear")

    torch.manual_seed(0)
    return SmallUNet()


# Input layouts: which inputs an architecture takes, their dtypes and dynamic axes.
_TOKEN_INPUTS = {
    "bert": ("input_ids", "attention_mask", "token_type_ids"),
    "bert-base": ("input_ids", "attention_mask", "token_type_ids"),
    "distilbert": ("input_ids", "attention_mask"),
    "gpt2": ("input_ids", "attention_mask"),
    "gpt2-base": ("input_ids", "attention_mask"),
    "llama": ("input_ids", "attention_mask"),
}
_VISION = ("vit", "resnet", "mobilenetv2", "efficientnet", "convnext", "unet")
VOCABULARY = {"bert-base": 30522, "gpt2-base": 50257}


def _sizes(architecture: str, at_export: bool) -> dict:
    """The example sizes (at_export) or the test sizes of a dynamic model's dims."""
    if architecture in _TOKEN_INPUTS or architecture == "t5":
        return {"batch": 2, "sequence": 16, "decoder_sequence": 8} if at_export else {"batch": 3, "sequence": 11, "decoder_sequence": 5}
    if architecture == "whisper":
        return {"batch": 2, "decoder_sequence": 8} if at_export else {"batch": 3, "decoder_sequence": 5}
    if architecture == "vit":  # ViT refuses other image sizes unless asked to interpolate: batch only
        return {"batch": 2} if at_export else {"batch": 3}
    return {"batch": 2, "height": 64, "width": 64} if at_export else {"batch": 3, "height": 48, "width": 80}


def _dynamic_axes(architecture: str) -> dict:
    if architecture in _TOKEN_INPUTS:
        return {name: {0: "batch", 1: "sequence"} for name in _TOKEN_INPUTS[architecture]}
    if architecture == "t5":
        return {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                "decoder_input_ids": {0: "batch", 1: "decoder_sequence"}}
    if architecture == "whisper":
        return {"input_features": {0: "batch"}, "decoder_input_ids": {0: "batch", 1: "decoder_sequence"}}
    if architecture == "vit":
        return {"pixel_values": {0: "batch"}}
    image_input = "image" if architecture == "unet" else "pixel_values"
    return {image_input: {0: "batch", 2: "height", 3: "width"}}


def _architecture_inputs(rng: np.random.Generator, architecture: str, sizes: dict) -> dict[str, np.ndarray]:
    """Seeded inputs at `sizes`: token ids, right-padded attention masks, features or images."""
    batch = sizes["batch"]
    if architecture in _TOKEN_INPUTS or architecture == "t5":
        vocabulary, sequence = VOCABULARY.get(architecture, 1000), sizes["sequence"]
        inputs = {"input_ids": rng.integers(0, vocabulary, (batch, sequence), dtype=np.int64)}
        mask = np.ones((batch, sequence), np.int64)
        mask[-1, sequence - sequence // 4 :] = 0  # the last row is right-padded
        inputs["attention_mask"] = mask
        if "token_type_ids" in _TOKEN_INPUTS.get(architecture, ()):
            inputs["token_type_ids"] = (np.arange(sequence) >= sequence // 2).astype(np.int64)[None].repeat(batch, 0)
        if architecture == "t5":
            inputs["decoder_input_ids"] = rng.integers(0, vocabulary, (batch, sizes["decoder_sequence"]), dtype=np.int64)
        return inputs
    if architecture == "whisper":
        return {
            "input_features": rng.standard_normal((batch, 16, 64), dtype=np.float32),
            "decoder_input_ids": rng.integers(0, 1000, (batch, sizes["decoder_sequence"]), dtype=np.int64),
        }
    side = {"vit": (32, 32), "vit-base": (224, 224)}.get(architecture, (sizes.get("height", 64), sizes.get("width", 64)))
    image_input = "image" if architecture == "unet" else "pixel_values"
    return {image_input: rng.standard_normal((batch, 3, *side), dtype=np.float32)}


def build_torch_export(directory: Path, architecture: str, exporter: str, dynamic: bool) -> Path:
    import torch

    example = _architecture_inputs(np.random.default_rng(1), architecture, _sizes(architecture, at_export=True))
    if architecture == "unet":
        module, output_names = _small_unet(), ["output"]
    else:
        model, output_names = _transformers_model(architecture)
        module = _select_outputs(model.eval(), list(example), output_names)
    example = {name: torch.from_numpy(value) for name, value in example.items()}
    axes = _dynamic_axes(architecture) if dynamic else None
    if axes and (architecture, exporter) in _SPATIAL_SIZES_SPECIALIZED:
        axes = {name: {0: dims[0]} for name, dims in axes.items()}
    with torch.no_grad():
        return _export_torch_module(module, example, directory / "model.onnx", exporter, axes, output_names)


# TorchScript exports whose dynamic dims only hold at the example sizes: the traced causal mask
# (see _traceable_causal_masks) takes batch and sequence as Python ints, so the file has them as
# constants (a Reshape to the example's sizes) and onnxruntime itself fails at any other size.
# They are tested at the example sizes, fed as inputs with dynamic dims.
_SIZES_BAKED_BY_TRACING = {("gpt2", "torchscript"), ("llama", "torchscript"), ("whisper", "torchscript")}


# Dynamo exports that specialize the image size: torch.export guards MobileNetV2's TensorFlow-style
# padding (computed in Python from the input's size) and fixes height and width to the example's,
# so only the batch is dynamic; they are tested at the example's image size and the test batch.
_SPATIAL_SIZES_SPECIALIZED = {("mobilenetv2", "dynamo")}


def inputs_for_torch_export(rng: np.random.Generator, architecture: str, exporter: str, dynamic: bool) -> dict:
    at_export = not dynamic or (architecture, exporter) in _SIZES_BAKED_BY_TRACING
    sizes = _sizes(architecture, at_export=at_export)
    if dynamic and (architecture, exporter) in _SPATIAL_SIZES_SPECIALIZED:
        exported = _sizes(architecture, at_export=True)
        sizes = {**sizes, "height": exported["height"], "width": exported["width"]}
    return _architecture_inputs(rng, architecture, sizes)


# --------------------------------------------------------------------------------------------------
# optimum-onnx exports with a KV cache

_DECODER_CACHE = {"gpt2": {"layers": 2, "kv_heads": 2, "head_dim": 16}, "llama": {"layers": 2, "kv_heads": 2, "head_dim": 16}}


def build_optimum_decoder(directory: Path, architecture: str, variant: str) -> Path:
    """optimum-onnx's export of a causal LM saved (random weights) to a local directory.

    variant "with-past": task text-generation-with-past, the decoder that takes past_key_values;
    "without-past": the same task's decoder that starts a sequence (no past inputs, present outputs),
    as optimum exports it for merging; "merged": both joined by optimum's merge_decoders, an `If` on
    `use_cache_branch`.
    """
    _quiet()
    import torch  # noqa: F401 - transformers needs it loaded first
    from optimum.exporters.onnx import main_export
    from optimum.exporters.tasks import TasksManager
    from optimum.onnx import merge_decoders

    model, _ = _transformers_model(architecture)
    model.config.use_cache = True
    local = directory / "saved-model"
    model.save_pretrained(local)

    def export(subdirectory: str, past_in_inputs: bool) -> Path:
        custom = {}
        if not past_in_inputs:
            constructor = TasksManager.get_exporter_config_constructor(
                model=model, exporter="onnx", task="text-generation-with-past", library_name="transformers"
            )
            custom = {"model": constructor(model.config, task="text-generation", use_past=True, use_past_in_inputs=False)}
        main_export(
            str(local), output=directory / subdirectory, task="text-generation-with-past", opset=TORCHSCRIPT_OPSET,
            do_validation=False, local_files_only=True, custom_onnx_configs=custom,
        )
        return directory / subdirectory / "model.onnx"

    if variant == "with-past":
        return export("with-past", past_in_inputs=True)
    if variant == "without-past":
        return export("without-past", past_in_inputs=False)
    if variant == "merged":
        merged = directory / "merged" / "model.onnx"
        merged.parent.mkdir()
        merge_decoders(export("without-past", False), export("with-past", True), save_path=str(merged))
        return merged
    raise ValueError(f"unknown optimum variant {variant}")


def inputs_for_optimum_decoder(rng: np.random.Generator, architecture: str, variant: str) -> dict:
    """Batch 3, 5 new tokens after 7 cached ones (optimum exports at batch 2, sequence 16)."""
    cache = _DECODER_CACHE[architecture]
    batch, sequence, past = 3, 5, 7
    if variant == "without-past":
        sequence, past = 9, 0
    inputs = {"input_ids": rng.integers(0, 1000, (batch, sequence), dtype=np.int64)}
    mask = np.ones((batch, past + sequence), np.int64)
    mask[-1, -2:] = 0
    past_inputs = {}
    for layer in range(cache["layers"]):
        for kind in ("key", "value"):
            shape = (batch, cache["kv_heads"], past, cache["head_dim"])
            past_inputs[f"past_key_values.{layer}.{kind}"] = rng.standard_normal(shape, dtype=np.float32)
    positions = np.arange(past, past + sequence, dtype=np.int64)[None].repeat(batch, 0)
    if variant == "with-past":
        return {"input_ids": inputs["input_ids"], **past_inputs, "attention_mask": mask, "position_ids": positions}
    if variant == "without-past":
        return {**inputs, "attention_mask": mask, "position_ids": positions}
    return {**inputs, "attention_mask": mask, "position_ids": positions, **past_inputs,
            "use_cache_branch": np.array([True])}


# --------------------------------------------------------------------------------------------------
# Hand-built with onnx.helper


def build_helper_mlp(directory: Path) -> Path:
    """MatMul, Add, Gelu-free activations, LayerNormalization and Softmax on a dynamic batch."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = {
        "w1": rng.standard_normal((16, 32), dtype=np.float32) * 0.3, "b1": rng.standard_normal(32, dtype=np.float32),
        "w2": rng.standard_normal((32, 8), dtype=np.float32) * 0.3, "b2": rng.standard_normal(8, dtype=np.float32),
        "scale": np.ones(32, np.float32), "bias": np.zeros(32, np.float32),
    }
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"]), helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("LayerNormalization", ["h1", "scale", "bias"], ["h2"], axis=-1),
        helper.make_node("Tanh", ["h2"], ["h3"]), helper.make_node("MatMul", ["h3", "w2"], ["h4"]),
        helper.make_node("Add", ["h4", "b2"], ["h5"]), helper.make_node("Softmax", ["h5"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "helper_mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
        [numpy_helper.from_array(value, name) for name, value in weights.items()],
    )
    return save_helper_graph(graph, directory)


def save_helper_graph(graph, directory: Path) -> Path:
    """An `onnx.helper` graph as a checked opset-17, IR-8 model.onnx in `directory`."""
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    path = directory / "model.onnx"
    onnx.save(model, str(path))
    return path


def inputs_for_helper_mlp(rng: np.random.Generator) -> dict:
    return {"x": rng.standard_normal((5, 16), dtype=np.float32)}


_SHARED_BUILD_CODE = (
    _export_torch_module, _traceable_causal_masks, _select_outputs, _transformers_model, _realistic_convolutions, _small_unet, _sizes, _dynamic_axes,
    _architecture_inputs,
)


# --------------------------------------------------------------------------------------------------
# The registry

_FAMILIES = {
    "bert": "text", "distilbert": "text", "gpt2": "decoder", "llama": "decoder", "t5": "encoder-decoder",
    "whisper": "speech", "vit": "vision", "resnet": "vision", "mobilenetv2": "vision", "efficientnet": "vision",
    "convnext": "vision", "unet": "vision",
}

# The fast slice `make test` runs: small models, static and dynamic, both exporters, a CNN and the UNet.
_SLICE = {
    "helper-mlp", "bert-torchscript-static", "bert-torchscript-dynamic", "gpt2-dynamo-dynamic",
    "resnet-torchscript-static", "unet-dynamo-static",
}


# What a reader of the results should know about a particular export.
_TRACED_MASK = (
    "exported with transformers' broadcasting causal-mask builder in place of its vmap one, which tracing "
    "cannot follow (as optimum's exporter does)"
)
_BAKED_SIZES = (
    "; the traced mask has the example's batch and sequence as constants, so the file runs (in onnxruntime "
    "too) only at those sizes and is tested there, through its dynamic-dim inputs"
)
_EXPORT_NOTES = {
    **{f"{architecture}-torchscript-static": _TRACED_MASK for architecture in ("gpt2", "llama", "whisper")},
    **{f"{architecture}-torchscript-dynamic": _TRACED_MASK + _BAKED_SIZES for architecture in ("gpt2", "llama", "whisper")},
    "mobilenetv2-dynamo-dynamic": "torch.export specializes the image size (MobileNetV2's TensorFlow-style "
    "padding is computed in Python from it), so only the batch is dynamic",
    "mobilenetv2-torchscript-dynamic": "the TorchScript exporter bakes MobileNetV2's TensorFlow-style padding for "
    "the 64x64 example into the graph, so at other sizes the ONNX model (and onnxruntime) differs from PyTorch; "
    "the zoo judges the ONNX model's semantics",
}


# (rtol, atol) where the default (1e-3, 1e-4) is tighter than fp32 arithmetic in another order allows.
_TOLERANCES = {
    # Outputs reach 6 (ReLU6) after 17 inverted-residual blocks: PyTorch's own outputs differ from
    # onnxruntime's by up to 3.2e-4 absolute, and so do IREE's and our runner's, on the same elements.
    "mobilenetv2": (1e-3, 5e-4),
}


def _torch_exports() -> list[ZooModel]:
    models = []
    for architecture, family in _FAMILIES.items():
        for exporter in ("torchscript", "dynamo"):
            for dynamic in (False, True):
                name = f"{architecture}-{exporter}-{'dynamic' if dynamic else 'static'}"
                batch_only = architecture == "vit" or (architecture, exporter) in _SPATIAL_SIZES_SPECIALIZED
                what = "batch" if batch_only else ("image size" if family == "vision" else "sequence")
                tested = "at the export sizes" if (architecture, exporter) in _SIZES_BAKED_BY_TRACING else "at other sizes"
                rtol, atol = _TOLERANCES.get(architecture, (1e-3, 1e-4))
                models.append(ZooModel(
                    name=name, family=family, exporter=exporter, dynamic=dynamic, slice=name in _SLICE, rtol=rtol, atol=atol,
                    builder=build_torch_export, make_inputs=inputs_for_torch_export,
                    parameters={"architecture": architecture, "exporter": exporter, "dynamic": dynamic},
                    description=f"{architecture}, {exporter} exporter, "
                    + (f"dynamic batch and {what} (tested {tested})" if dynamic and what != "batch"
                       else "dynamic batch (tested at batch 3)" if dynamic else "static shapes")
                    + (f"; {_EXPORT_NOTES[name]}" if name in _EXPORT_NOTES else ""),
                ))
    return models


def _optimum_exports() -> list[ZooModel]:
    models = []
    for architecture in ("gpt2", "llama"):
        for variant in ("with-past", "without-past", "merged"):
            models.append(ZooModel(
                name=f"{architecture}-optimum-{variant}", family="decoder", exporter="optimum", dynamic=True,
                slice=False, builder=build_optimum_decoder, make_inputs=inputs_for_optimum_decoder,
                parameters={"architecture": architecture, "variant": variant},
                description=f"{architecture}, optimum-onnx text-generation-with-past, decoder {variant} "
                "(dynamic batch, sequence and past sequence)",
                # The merged decoder's If on `use_cache_branch` picks the network: with the past length
                # fixed, only the branch that reads the cache fits it (the other's present is shorter).
                selector_inputs=("use_cache_branch",) if variant == "merged" else (),
            ))
    return models


def _full_size(architecture: str, exporter: str, family: str, description: str) -> ZooModel:
    """A transformers architecture at its real size, exported static; too slow for the fast slice."""
    return ZooModel(
        name=f"{architecture}-{exporter}-static", family=family, exporter=exporter, dynamic=False, slice=False,
        builder=build_torch_export, make_inputs=inputs_for_torch_export,
        parameters={"architecture": architecture, "exporter": exporter, "dynamic": False}, description=description,
    )


MODELS: list[ZooModel] = [
    ZooModel(
        name="helper-mlp", family="hand-built", exporter="onnx.helper", dynamic=True, slice=True,
        builder=build_helper_mlp, make_inputs=inputs_for_helper_mlp, parameters={},
        description="MatMul/Add/LayerNormalization/Tanh/Softmax built with onnx.helper, dynamic batch",
    ),
    *_torch_exports(),
    *_optimum_exports(),
    _full_size("bert-base", "torchscript", "text",
               "BERT-base at full size (110M parameters, 440 MB of weights), TorchScript exporter, static"),
    _full_size("gpt2-base", "dynamo", "decoder",
               "GPT-2 small at full size (124M parameters, 500 MB of weights), dynamo exporter, static"),
    _full_size("vit-base", "dynamo", "vision",
               "ViT-B/16 at full size (86M parameters, 350 MB of weights, 224x224 images), dynamo exporter, static"),
    *zoo_deployment.models(ZooModel),
    *zoo_npu.models(ZooModel),
    *zoo_control.models(ZooModel),
    *zoo_architectures.models(ZooModel),
]

BY_NAME = {model.name: model for model in MODELS}
assert len(BY_NAME) == len(MODELS), "zoo model names must be unique"
