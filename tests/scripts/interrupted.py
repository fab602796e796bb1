"""Compiles once, then is interrupted (as by Ctrl-C): for tests/test_cli.py."""
import torch

if __name__ == "__main__":
    torch.compile(lambda x: x + 1, backend="eager")(torch.zeros(2))
    raise KeyboardInterrupt
