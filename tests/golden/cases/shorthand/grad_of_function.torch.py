import torch
def f(t):
    return torch.sum(t ** 3 - 2 * t)
w = torch.tensor([1., 2., 3.], requires_grad=True)
g, = torch.autograd.grad(f(w), w)
print(g)
h = torch.autograd.grad(f(w), [w], create_graph=True)[0]
print(h, h.requires_grad)
