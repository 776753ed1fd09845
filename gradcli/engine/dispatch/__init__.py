"""From a call to an op's result: the op record, its forms, argument parsing, the runner.

``op.py`` holds the record (one per op, every fact about it); ``signature.py``
parses arguments as PyTorch's argument parser does; ``forms.py`` makes the
callables a record is published as; ``runner.py`` runs an op out of place or in
place (``memory.py``: the overlap checks) and calls autograd to record it;
``promotion.py`` is dtype promotion, ``limits.py`` the size checks (of ``engine.budget``);
``publish.py`` is the one way anything reaches ``torch.X`` or ``Tensor.X``.
Dispatch imports no op family: the families import it.
"""
