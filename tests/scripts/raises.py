"""Compiles once, then raises: for tests/test_cli.py (the report must still be written)."""
import torch


def fail():
    raise ValueError("boom from the script")


if __name__ == "__main__":
    torch.compile(lambda x: x + 1, backend="eager")(torch.zeros(2))
    fail()
