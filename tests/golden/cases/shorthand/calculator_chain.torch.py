import torch
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.exp(x) * torch.sin(x) + x ** 2
torch.sum(y).backward()
print(y)
print(x.grad)
print(torch.mean(y), torch.max(y), torch.min(x), torch.abs(x), torch.round(y))
