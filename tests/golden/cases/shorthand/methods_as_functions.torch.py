import torch
a = torch.randn(2, 3, requires_grad=True) if False else torch.ones(2, 3, requires_grad=True)
b = torch.reshape(a, (3, 2))
c = torch.t(b) * 2
print(c, c.size(), c.dim(), c.numel())
d = torch.unsqueeze(torch.sum(c, 1), 0)
print(d, torch.sum(d).item(), d.tolist())
torch.sum(d).backward()
print(a.grad)
e = torch.clone(d.detach())
print(e.requires_grad, e)
