import torch

# Fit y = 2x - 1 by gradient descent, keep the loss of every step, and plot it as the
# tutorials do.  The figures go to stderr (or, with --plot-dir DIR, to DIR/loss.svg);
# what the script prints is PyTorch's output, unchanged.
torch.manual_seed(0)
x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = 2 * x - 1 + 0.1 * torch.randn(20, 1)

w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
losses = []
for step in range(40):
    loss = ((x * w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.2 * w.grad
        b -= 0.2 * b.grad
    w.grad.zero_()
    b.grad.zero_()
    losses.append(loss.item())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
print(w, b)


