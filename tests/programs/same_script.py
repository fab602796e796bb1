"""tests/programs/same.py as a script: what `python -m explorer run` runs."""
import torch

from same import f, make_input

torch.compile(f)(make_input())
