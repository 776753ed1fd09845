"""gradcli's engine: PyTorch's tensors, ops and autograd on NumPy.  Knows nothing of the language.

Front ends use ``gradcli.engine.api``; the README draws the layout.
"""
