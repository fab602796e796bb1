"""A custom backend that crashes mid-compile: torch raises BackendCompilerFailed. For tests/test_cli.py."""
import torch


def exploding_backend(gm, example_inputs):
    raise RuntimeError("backend exploded")


def f(x):
    return x.sin() + 1


if __name__ == "__main__":
    torch.compile(f, backend=exploding_backend)(torch.randn(3))
