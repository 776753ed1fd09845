"""The op definitions, one module per family; each fills a ``Catalog`` that ``install`` publishes.

Importing a family defines its records and nothing else: ``torch.X`` and
``Tensor.X`` appear when ``gradcli.engine.install.install()`` runs.
"""
