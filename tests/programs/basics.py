"""Tiny programs the tests compile. Line numbers matter: tests assert on them."""
import torch


def breaks(x, n):
    y = x.sin() + 1
    print("tick")  # graph break: print
    if y.sum() > 0:  # graph break: data-dependent branch
        y = y * 2
    return y.cos() * n


def simple(x):
    return (x * 2).relu() + 1


def no_graph(a, b):
    return a + b  # plain ints: Dynamo finds no tensor ops


class TinyMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def train_step(model, opt, x, y):
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss
