"""Compiles once, prints, then exits with the code given as argv[1]: for tests/test_cli.py."""
import sys

import torch

if __name__ == "__main__":
    torch.compile(lambda x: x + 1, backend="eager")(torch.zeros(2))
    print("script output")
    sys.exit(int(sys.argv[1]))
