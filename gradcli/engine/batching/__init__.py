"""``vmap``'s batching: a tensor with a hidden batch dimension, and the rules that carry it through ops.

A ``BatchedTensor`` (batched_tensor.py) is a view of a plain engine tensor, its *physical* value,
with one dimension set aside as the batch: ops see the remaining, *logical* shape.  When an op
meets one (dispatch/runner.py asks ``state.depth`` first, so a script without vmap pays one
attribute read per op), the op's batch rule (rules.py, chosen by the op record's ``vmap`` field)
rewrites the call into the same op, or a few, on the physical values, and the results are wrapped
again.  Autograd and forward AD therefore only ever see physical tensors: a batch rule never mixes
the samples of a batch, so the physical gradients are the per-sample ones.  Nested vmaps wrap a
BatchedTensor in another, each with its level; a rule unwraps only its own level.
"""
