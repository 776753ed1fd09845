import torch
x = torch.tensor([1.5, -2.5, 3.0])
print(torch.zeros(2, dtype=torch.long), torch.ones(2, 2, dtype=torch.double), torch.arange(3, dtype=torch.long))
print(torch.long, torch.double, torch.long == torch.int64, torch.double == torch.float64)
print(x.long(), x.double(), x.to(torch.long), x.to(dtype=torch.double), x.type(torch.long))
print(torch.tensor([1, 2], dtype=torch.double), torch.randint(5, (3,), dtype=torch.long).dtype,
      torch.zeros(2, dtype=float), torch.zeros(1, dtype=int))
print(torch.long.is_floating_point, torch.double.is_floating_point, torch.double.itemsize,
      torch.full((2,), 7, dtype=torch.long))
print(int(x[0]), float(x[1]), bool(x[2]), x.new_zeros(2, dtype=torch.long), {torch.long: "long"}[torch.int64])
