"""Drives the tiny decoder of ``programs.stacked`` as a user's training script does: compile the model, take a step.

N identical blocks (GELU) and one that differs (SiLU); the model code lives in ``programs/stacked/model.py``.
"""
import torch

from programs.stacked.model import Decoder

VOCAB, WIDTH, SEQ = 32, 16, 8


def make(layers: int = 4, seed: int = 0) -> Decoder:
    torch.manual_seed(seed)
    return Decoder(vocab=VOCAB, width=WIDTH, layers=layers)


def batch(size: int = 2, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(0, VOCAB, (size, SEQ), generator=g), torch.randint(0, VOCAB, (size, SEQ), generator=g))


def train_step(compiled, opt, idx, targets):
    logits = compiled(idx)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss
