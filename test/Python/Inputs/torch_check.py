"""ksc.torch on examples/python's kernels: torch.autograd.gradcheck in
double precision, torch.library.opcheck, the loop kernel's gradient
(which NVIDIA Warp gets wrong), torch.compile without graph breaks, the
in-place operator, and an exception for a bad argument."""
import sys

import torch

sys.path.insert(0, sys.argv[1])
import kernels as k  # noqa: E402
import ksc.torch  # noqa: E402

product = ksc.torch.op(k, "product")
x = torch.tensor([2.0, 2.0, 2.0], dtype=torch.float64, requires_grad=True)
scale = torch.ones(1, dtype=torch.float64)
out = torch.zeros(1, dtype=torch.float64)
product(x, 3, scale, out).sum().backward()
print("grad", x.grad.tolist())

torch.manual_seed(0)
x = (torch.rand(5, dtype=torch.float64) + 0.5).requires_grad_()
scale = torch.randn(4, dtype=torch.float64, requires_grad=True)
out = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("gradcheck", torch.autograd.gradcheck(
    lambda x, s, o: product(x, 4, s, o), (x, scale, out)))
torch.library.opcheck(product.operator, (x, 4, scale, out))
print("opcheck ok")

saxpy = ksc.torch.op(k, "saxpy")
a = torch.tensor(2.0, requires_grad=True)
xs = torch.arange(1.0, 5.0, requires_grad=True)
ys = torch.ones(4, requires_grad=True)


def step(a, xs, ys):
    return (saxpy(a, xs, ys) * product(xs.double(), 2, ys.double(),
                                       torch.zeros(4, dtype=torch.float64))
            ).sum()


eager = torch.autograd.grad(step(a, xs, ys), (a, xs, ys))
torch._dynamo.reset()
compiled = torch.compile(step, fullgraph=True)
graph = torch.autograd.grad(compiled(a, xs, ys), (a, xs, ys))
for e, g in zip(eager, graph):
    torch.testing.assert_close(e, g)
print("compile ok", [g.tolist() for g in graph])

inplace = ksc.torch.inplace(k, "saxpy")
y = torch.ones(4)
inplace(3.0, torch.arange(4.0), y)
print("inplace", y.tolist())
try:
    saxpy(2.0, torch.ones(4, dtype=torch.float64), torch.ones(4))
except TypeError as e:
    print("TypeError", e)
