"""The op table's symbolic forms: every pointwise op has one, every form names a real op, and the
forms of the other ops (reductions, products, shapes, indexing, losses) give the engine's values and
autograd's derivatives, on a script that uses each."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.dispatch.publish import OPS
from gradcli.views.explain.autograd_values import autograd_gradients
from gradcli.views.explain.derivatives import Evaluator, exact_gradients
from gradcli.views.explain.graph import read_graph
from gradcli.views.explain.replay import replay_elements
from gradcli.views.explain.symbolic_ops import POINTWISE_FAMILIES, TABLE, pointwise_op_names
from gradcli.views.script_run import run_for_view


def test_every_pointwise_op_of_the_op_table_has_a_symbolic_form():
    names = pointwise_op_names()
    assert len(names) >= 80   # (the five families: unary, arithmetic, binary, fused, activations)
    missing = [name for name in names if name not in TABLE or not TABLE[name].pointwise]
    assert missing == [], f"pointwise ops without a symbolic form: {missing}"


def test_the_pointwise_families_are_families_of_the_op_table():
    from gradcli.engine import install
    assert set(POINTWISE_FAMILIES) <= {f.__name__.rsplit(".", 1)[-1] for f in install.FAMILIES}


def test_every_symbolic_form_is_of_a_real_op():
    pointwise_op_names()   # (installs the ops)
    assert sorted(set(TABLE) - set(OPS)) == []


SCRIPT = """\
import torch
import torch.nn.functional as F
x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64, requires_grad=True)
m = torch.tensor([[0.3, -0.7, 1.1], [0.9, 0.4, -0.2]], dtype=torch.float64, requires_grad=True)
sq = torch.tensor([[1.5, 0.25], [-0.5, 2.0]], dtype=torch.float64, requires_grad=True)
t = torch.tensor([0.2, 0.9, 0.4], dtype=torch.float64)
r_sum = m.sum(dim=1)
r_sum_keep = m.sum(0, keepdim=True)
r_mean = m.mean()
r_prod = x.prod()
r_prod_dim = m.prod(1)
r_max = x.max()
r_max_dim = m.max(dim=1).values
r_min_dim = m.min(0)[0]
r_amax = m.amax(dim=(0, 1))
r_maximum_pair = torch.max(x, t)
r_var = m.var(dim=1)
r_std = x.std(correction=0)
r_logsumexp = torch.logsumexp(m, 1)
r_softmax = torch.softmax(m, 0)
r_log_softmax = F.log_softmax(m, dim=1)
r_cumsum = m.cumsum(1)
r_cumprod = x.cumprod(0)
r_norm = m.norm()
r_norm1 = torch.linalg.vector_norm(x, 1)
r_trace = sq.trace()
r_dot = x.dot(t)
r_mv = m.mv(x)
r_mm = m @ m.t()
r_matmul = torch.matmul(sq, m)
r_bmm = torch.bmm(sq.unsqueeze(0), m.unsqueeze(0))
r_addmm = torch.addmm(sq, m, m.t(), beta=0.5, alpha=2.0)
r_det = torch.linalg.det(sq)
r_inv = torch.linalg.inv(sq)
r_view = m.view(3, 2) * 2
r_reshape = m.reshape(-1)
r_squeeze = m.unsqueeze(0).squeeze(0)
r_squeeze_dim = x.unsqueeze(1).squeeze(1)
r_permute = m.unsqueeze(2).permute(2, 1, 0)
r_transpose = m.transpose(0, 1)
r_t = sq.t()
r_expand = x.expand(2, 3) * m
r_repeat = x.repeat(2)
r_cat = torch.cat([x, t * x], 0)
r_stack = torch.stack([x, t], 1)
r_split = m.split(2, dim=1)[1]
r_unbind = m.unbind(0)[1]
r_slice = m[:, 1:]
r_select = m[1]
r_index = m[[0, 1], [2, 0]]
r_mask = m[m > 0]
r_diagonal = sq.diagonal()
r_flip = m.flip(1)
r_tril = torch.tril(sq)
r_triu = torch.triu(m, 1)
r_diag_embed = torch.diag_embed(x)
r_index_select = torch.index_select(m, 1, torch.tensor([2, 0]))
r_gather = torch.gather(m, 1, torch.tensor([[0, 2], [1, 1]]))
r_take = torch.take(m, torch.tensor([5, 0, 3]))
r_masked_select = torch.masked_select(m, m < 0.5)
r_scatter_add = torch.zeros(2, 3, dtype=torch.float64).scatter_add(1, torch.tensor([[0, 0, 2], [1, 2, 2]]), m)
r_index_add = torch.zeros(3, dtype=torch.float64).index_add(0, torch.tensor([0, 2, 0]), x)
r_pad = F.pad(m, (1, 2))
r_where = torch.where(m > 0, m, m * 3)
r_masked_fill = m.masked_fill(m < 0, 0.25)
r_clone = x.clone() * x.to(torch.float32).double()
r_embedding = F.embedding(torch.tensor([1, 0, 1]), m)
r_mse = F.mse_loss(x, t)
r_mse_sum = F.mse_loss(x, t, reduction="sum")
r_smooth = F.smooth_l1_loss(x, t, beta=0.5)
r_huber = F.huber_loss(x, t, delta=0.7)
r_bce = F.binary_cross_entropy(torch.sigmoid(x), t)
r_bce_logits = F.binary_cross_entropy_with_logits(x, t)
r_cross_entropy = F.cross_entropy(m, torch.tensor([2, 0]))
w3 = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
r_nll_weight = F.nll_loss(F.log_softmax(m, 1), torch.tensor([1, 2]), weight=w3)
r_inplace = (m * 1).add_(1).relu_()
"""


@pytest.fixture(scope="module")
def ran():
    run = run_for_view(SCRIPT, "ops.ag")
    assert run.ok, run.printed
    return run


NAMES = [line.split(" =")[0] for line in SCRIPT.splitlines() if line.startswith("r_")]


@pytest.mark.parametrize("name", NAMES)
def test_a_symbolic_form_gives_the_engines_values_and_autograds_derivative(ran, name):
    tensor = ran.session.globals[name]
    graph = read_graph(ran.provenance, tensor, name)
    assert graph.elements <= 64
    arrays = replay_elements(graph)
    evaluate = Evaluator(graph, arrays)
    values = np.array(evaluate.many(list(arrays[graph.root.key].reshape(-1)))).reshape(tensor.shape)
    np.testing.assert_allclose(values, tensor._data, rtol=1e-6, atol=1e-9)   # (r_clone went through float32)
    symbolic = exact_gradients(graph, arrays, graph.leaves)
    answer = autograd_gradients(graph, tensor, graph.leaves)
    assert answer.problem is None
    for leaf in graph.leaves:
        np.testing.assert_allclose(answer.values[leaf.key], symbolic[leaf.key], rtol=1e-6, atol=1e-9,
                                   err_msg=f"∂{name}/∂{leaf.name}")
