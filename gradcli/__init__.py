"""gradcli: a command-line gradient calculator that speaks PyTorch.

Layers (each imports only the ones above it):

* ``gradcli.engine`` -- tensors over NumPy, autograd, the op table, printing
  and PyTorch-exact random numbers.  Knows nothing of the script language.
* ``gradcli.lang`` -- the grammar, the compiler from parse tree to closures,
  the builtins and the ``torch`` namespaces a script sees.
* ``gradcli.cli`` / ``gradcli.repl`` -- the command line and the REPL.
"""

__version__ = "0.1.0"

# The PyTorch release whose behaviour gradcli reproduces (torch.__version__).
TORCH_VERSION = "2.13.0+cpu"
