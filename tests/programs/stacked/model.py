"""The model's code: blocks of attention and an MLP (tests find its lines by their text)."""
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, width: int, act: nn.Module) -> None:
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.act = act
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(self.act(self.up(x)))


class Block(nn.Module):
    def __init__(self, width: int, heads: int, act: nn.Module) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.mlp = MLP(width, act)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (split_heads(z, self.heads) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.ln2(x))


def split_heads(z, heads):
    b, t, c = z.shape
    return z.view(b, t, heads, c // heads).transpose(1, 2)


class Decoder(nn.Module):
    """``layers`` blocks with a GELU MLP, and one more (the last) whose MLP uses ``odd`` (SiLU) instead."""

    def __init__(self, vocab: int = 32, width: int = 16, heads: int = 2, layers: int = 4, odd: type = nn.SiLU):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, heads, nn.GELU()) for _ in range(layers)]
                                    + [Block(width, heads, odd())])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
