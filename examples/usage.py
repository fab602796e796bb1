"""torch.compile as real programs use it: warm caches, a compiled region, disabled and opaque calls, an exported
model packaged by AOTInductor, and a stance that refuses recompiles.

    python -m explorer run --warm --export examples/usage.py --html usage.html

Run it twice: the second run's compilations come from the caches the first one filled, and the report says which
cache served what. With ``--refuse`` the last call, made under ``set_stance("fail_on_recompile")`` with a new
shape, raises instead of recompiling (as a service that must never recompile does); the report explains the
recompile it refused. CPU only; the AOTInductor package takes about a minute to build the first time.
"""
import argparse
import os
import tempfile

import torch


def scale_shift(x):
    y = torch.cos(x)
    return y * 3 - 1


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    @torch.compiler.nested_compile_region
    def forward(self, x):
        return torch.relu(self.lin(x)) + 1  # compiled once, called for every layer


class Stack(torch.nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([Layer() for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        x = opaque_scale(x)  # called opaquely from the graph
        return plain_log(x)  # runs as plain Python


@torch._dynamo.nonstrict_trace
def opaque_scale(x):
    return x * 3


@torch.compiler.disable
def plain_log(x):
    return x.sum()


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        y = self.lin(x)
        return torch.sin(y) * 2  # the exported line, followed down to its C++ kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refuse", action="store_true", help="end with a recompile that fail_on_recompile refuses")
    args = parser.parse_args()
    torch.manual_seed(0)

    served = torch.compile(scale_shift)
    served(torch.randn(16))

    stack = torch.compile(Stack(), backend="aot_eager")
    stack(torch.randn(2, 8))

    batch = torch.export.Dim("batch", min=2, max=64)
    program = torch.export.export(Small(), (torch.randn(3, 8),), dynamic_shapes={"x": {0: batch}})
    with tempfile.TemporaryDirectory() as folder:
        path = torch._inductor.aoti_compile_and_package(program, package_path=os.path.join(folder, "small.pt2"))
        runner = torch._inductor.aoti_load_package(path)
        print("exported model:", tuple(runner(torch.randn(5, 8)).shape))

    if args.refuse:
        with torch.compiler.set_stance("fail_on_recompile"):
            served(torch.randn(4, 5))  # a new number of dims: would recompile, so it raises


if __name__ == "__main__":
    main()
