import torch
torch.manual_seed(3)
print(torch.rand(2, requires_grad=True), torch.randn(2, 2, requires_grad=True, dtype=torch.float64))
print(torch.arange(3.).requires_grad, torch.linspace(0, 1, 3, requires_grad=True))
print(torch.full((2,), 0.5, requires_grad=True), torch.zeros_like(torch.ones(2), requires_grad=True))
