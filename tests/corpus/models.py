"""Real architectures from the model zoos, tiny, built from their config classes (nothing is downloaded).

Each entry of ``MODELS`` makes a model and its two batches: ``inference`` (the model's inputs) and
``training`` (the same with ``labels``, so the model computes its own loss). Sizes as small as each config
allows (see ``SIZE``).
``CONV_MODELS`` are torchvision's and timm's convolutional networks, made only where their wheels load beside
the installed torch (``conv_skip_reason`` says why not).

tests/test_model_corpus.py explores each in both modes; docs/model-corpus.md holds its figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch

# shared by the language models: 1 layer, hidden 64, 4 heads of 16 (2 key/value heads where grouped). One layer
# keeps the corpus inside its time budget (a second layer costs each model about a quarter more to compile on CPU);
# Llama has two, so a model's repeated blocks are folded in one report of the corpus
SIZE = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=4)
BATCH, LENGTH = 2, 16


@dataclass
class Case:
    """One model of the corpus: what it shows, how to make it, and where it comes from."""

    name: str
    shows: str  # the architecture's feature it is in the corpus for
    make: Callable[[], tuple[Any, dict, dict]]  # -> (model, inference inputs, training inputs)
    needs: str = "transformers"  # the package it comes from
    loss: Callable[[Any], torch.Tensor] = lambda out: out.loss  # the training step's loss, from the output


def _tokens(length: int = LENGTH) -> torch.Tensor:
    return torch.randint(0, 200, (BATCH, length))


def _lm(model: Any, length: int = LENGTH) -> tuple[Any, dict, dict]:
    ids = _tokens(length)
    return model, {"input_ids": ids}, {"input_ids": ids, "labels": ids}


def llama():
    import transformers as T

    return _lm(T.LlamaForCausalLM(T.LlamaConfig(**{**SIZE, "num_hidden_layers": 2}, num_key_value_heads=2)))


def gpt2():
    import transformers as T

    # GPT-2's config names no loss type: its training step logs a warning from inside the loss
    # (``logger.warning_once``), where Dynamo breaks the graph
    return _lm(T.GPT2LMHeadModel(T.GPT2Config(vocab_size=256, n_embd=64, n_layer=1, n_head=4, n_positions=64,
                                              bos_token_id=0, eos_token_id=0)))


def mixtral():
    import transformers as T

    return _lm(T.MixtralForCausalLM(T.MixtralConfig(**SIZE, num_key_value_heads=2, num_local_experts=4,
                                                    num_experts_per_tok=2)))


def bert():
    import transformers as T

    return _lm(T.BertForMaskedLM(T.BertConfig(**SIZE)))


def bart():
    import transformers as T

    config = T.BartConfig(vocab_size=256, d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                          decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                          max_position_embeddings=64)
    ids = _tokens()
    return (T.BartForConditionalGeneration(config), {"input_ids": ids, "decoder_input_ids": ids},
            {"input_ids": ids, "labels": ids})


def vit():
    import transformers as T

    config = T.ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=1, num_attention_heads=4, num_labels=10)
    pixels = torch.randn(BATCH, 3, 32, 32)
    return (T.ViTForImageClassification(config), {"pixel_values": pixels},
            {"pixel_values": pixels, "labels": torch.tensor([1, 2])})


def gemma2():
    import transformers as T

    # attention written out (matmul, softmax, matmul), not scaled_dot_product_attention
    return _lm(T.Gemma2ForCausalLM(T.Gemma2Config(**SIZE, num_key_value_heads=2, head_dim=16,
                                                  attn_implementation="eager")))


def longformer():
    import transformers as T

    # its encoder asks ``is_index_global_attn.flatten().any().item()``: a data-dependent scalar, a graph break
    config = T.LongformerConfig(**SIZE, attention_window=4, max_position_embeddings=64)
    return _lm(T.LongformerForMaskedLM(config))


MODELS = [
    Case("llama", "decoder-only LLM: grouped-query attention, rotary embeddings, SDPA", llama),
    Case("gpt2", "GPT-2: learned positions, fused QKV (Conv1D), SDPA", gpt2),
    Case("mixtral", "mixture of experts: a router and 4 experts per layer, top-2", mixtral),
    Case("bert", "encoder: bidirectional attention, masked-LM head", bert),
    Case("bart", "encoder-decoder: cross-attention", bart),
    Case("vit", "vision transformer: patch embedding, class token", vit),
    Case("gemma2", "attention written out (eager, no SDPA), soft-capping, sliding window", gemma2),
    Case("longformer", "a real graph break: Tensor.item() on a data-dependent flag", longformer),
]


# ---- convolutional networks, where their wheels match the installed torch ----

def resnet18():
    import torchvision

    return _image(torchvision.models.resnet18(num_classes=10))


def timm_resnet():
    import timm

    return _image(timm.create_model("resnet10t", pretrained=False, num_classes=10))


def _image(model: Any) -> tuple[Any, dict, dict]:
    pixels = torch.randn(BATCH, 3, 32, 32)
    return model, {"x": pixels}, {"x": pixels}


def _class_loss(logits: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(logits, torch.arange(logits.shape[0]) % logits.shape[1])


CONV_MODELS = [
    Case("resnet18", "convolutions, batch norm, pooling (torchvision)", resnet18, needs="torchvision",
         loss=_class_loss),
    Case("timm-resnet10t", "convolutions, batch norm, pooling (timm)", timm_resnet, needs="timm", loss=_class_loss),
]


def conv_skip_reason(case: Case) -> Optional[str]:
    """Why a convolutional model cannot be made here, or None. PyPI's torchvision wheels are built against
    one torch each (torchvision 0.29 against torch 2.14; none against torch 2.13's CPU build), and one that
    does not match fails at import, in its C++ operators."""
    try:
        __import__(case.needs)
    except ImportError as e:
        return f"{case.needs} is not installed or does not load beside torch {torch.__version__}: {e}"
    except Exception as e:  # a wheel built for another torch fails in many ways: say which
        return f"{case.needs} does not load beside torch {torch.__version__}: {type(e).__name__}: {e}"
    return None
