"""dynamic=True over three sizes (one graph, no recompile), and a frame with no graph.

Used by tests/test_against_torch_trace.py.
"""
import torch


def scaled_softmax(x):
    return torch.softmax(x * 2, dim=-1).sum(0)


def add(a, b):
    return a + b  # plain ints: Dynamo looks at the frame but finds no tensor ops


if __name__ == "__main__":
    f = torch.compile(scaled_softmax, dynamic=True)
    for n in (3, 5, 7):
        print([round(v, 4) for v in f(torch.arange(n * 4.0).reshape(n, 4)).tolist()])
    print(torch.compile(add)(1, 2))
