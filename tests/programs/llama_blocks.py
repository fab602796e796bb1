"""A tiny Llama-style decoder: N identical blocks in ``self.layers``, one of them optionally different.

RMSNorm, rotary embeddings, grouped-query attention and a SwiGLU MLP, as real decoders build them from
``nn.Module`` blocks, so torch.compile sees what it sees in a real LLM: a graph that repeats one layer N times.
``odd_layer`` makes one layer use another activation (GELU instead of SiLU in its MLP): the explorer's folded
views must call it out. Width is tiny (dim 16) so a CPU test compiles it in seconds; the benchmark
(tests/benchmarks/bench_scale.py) runs it at 80 layers, and at Llama-2-7B's width on a GPU (``hidden``: the MLP's).

    python tests/programs/llama_blocks.py [LAYERS] [ODD_LAYER]   # one training step, compiled
"""

from __future__ import annotations

import sys
from typing import Optional

import torch
from torch import nn
from torch.nn import functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotary(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.wq = nn.Linear(dim, heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(heads * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = rotary(q, cos, sin), rotary(k, cos, sin)
        repeat = self.heads // self.kv_heads
        k, v = k.repeat_interleave(repeat, dim=1), v.repeat_interleave(repeat, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, dim: int, hidden: int, activation: str = "silu"):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.act = F.gelu if activation == "gelu" else F.silu

    def forward(self, x):
        return self.w2(self.act(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, activation: str = "silu", hidden: Optional[int] = None):
        super().__init__()
        self.attn_norm = RMSNorm(dim)
        self.attn = Attention(dim, heads, kv_heads)
        self.mlp_norm = RMSNorm(dim)
        self.mlp = MLP(dim, hidden or 2 * dim, activation)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.attn_norm(x), cos, sin)
        return x + self.mlp(self.mlp_norm(x))


class Llama(nn.Module):
    def __init__(self, layers: int = 4, dim: int = 16, heads: int = 4, kv_heads: int = 2, vocab: int = 32,
                 odd_layer: Optional[int] = None, seq: int = 8, hidden: Optional[int] = None):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(Block(dim, heads, kv_heads, "gelu" if i == odd_layer else "silu", hidden)
                                    for i in range(layers))
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        half = dim // heads // 2
        angles = torch.outer(torch.arange(seq, dtype=torch.float32), 1.0 / 10000 ** (torch.arange(half) / half))
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.head(self.norm(x))


def batch(vocab: int = 32, seq: int = 8, size: int = 2):
    """Token ids and next-token targets."""
    tokens = torch.randint(0, vocab, (size, seq + 1))
    return tokens[:, :-1], tokens[:, 1:]


def train_step(model, tokens, targets):
    """Forward, loss, backward: what a training loop compiles."""
    logits = model(tokens)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    loss.backward()
    return loss


def main(layers: int = 4, odd_layer: Optional[int] = None) -> None:
    torch.manual_seed(0)
    model = Llama(layers=layers, odd_layer=odd_layer)
    tokens, targets = batch()
    step = torch.compile(train_step)
    print("loss", float(step(model, tokens, targets)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4, int(sys.argv[2]) if len(sys.argv) > 2 else None)
