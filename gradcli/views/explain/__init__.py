"""``gradcli explain FILE NAME`` and ``:explain NAME``: how a tensor was computed, as equations with
the script's names, and its derivative by SymPy beside autograd's value.

- ``graph``: the part of the recorded graph behind NAME, from the provenance (ops, operands, names);
- ``symbolic_ops``: each op's symbolic form over NumPy object arrays of SymPy expressions;
- ``replay``: the graph replayed symbolically (per element, or one generic element for equations);
- ``equations``: ``out = mean(z)``, ``z = 3·y²``, ``y = x + 2``;
- ``derivatives``: SymPy's derivative of NAME by each leaf element, grouped when all share a formula;
- ``autograd_values``, ``engine_replay``: autograd's numbers for the same derivative;
- ``chain_rule``: the node-by-node product, for graphs too large for SymPy or with an op it lacks;
- ``explanation``: all of it for one NAME; ``render``: as text; ``command``: the CLI and the REPL.

SymPy (~0.3 s to import) is imported by these modules only, and they only when explain runs.
"""
