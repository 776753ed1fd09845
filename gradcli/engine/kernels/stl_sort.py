"""libstdc++'s ``std::sort``, ``std::nth_element`` and ``std::partial_sort``, step for step.

PyTorch's CPU ``topk`` (ATen's TopKImpl.h) orders ``(value, index)`` pairs with these
algorithms and a comparator that looks at the value alone, so where values tie the
indices come out in whatever order GCC's introsort/introselect leave them.  Those
algorithms are deterministic: this is a transcription of GCC's bits/stl_algo.h and
bits/stl_heap.h (unchanged from GCC 4 to 13), working in place on a Python list
with a strict less-than ``comp(x, y)``.  ``topk_indices`` is TopKImpl's loop for one row.

Pure Python, so only for rows whose ties matter (``topk_indices`` takes NumPy's sort
when the top values are distinct: then every correct algorithm agrees).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

Comp = Callable[[Any, Any], bool]

_THRESHOLD = 16  # _S_threshold: introsort leaves runs this short to the final insertion sort


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _unguarded_linear_insert(a: list, last: int, comp: Comp) -> None:
    val = a[last]
    nxt = last - 1
    while comp(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a: list, first: int, last: int, comp: Comp) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        val = a[i]
        if comp(val, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _unguarded_linear_insert(a, i, comp)


def _move_median_to_first(a: list, result: int, x: int, y: int, z: int, comp: Comp) -> None:
    if comp(a[x], a[y]):
        if comp(a[y], a[z]):
            pick = y
        elif comp(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif comp(a[x], a[z]):
        pick = x
    elif comp(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int, comp: Comp) -> int:
    while True:
        while comp(a[first], a[pivot]):
            first += 1
        last -= 1
        while comp(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a: list, first: int, last: int, comp: Comp) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, comp)
    return _unguarded_partition(a, first + 1, last, first, comp)


def _push_heap(a: list, first: int, hole: int, top: int, value: Any, comp: Comp) -> None:
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a: list, first: int, hole: int, length: int, value: Any, comp: Comp) -> None:
    top = hole
    second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if comp(a[first + second], a[first + second - 1]):
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if (length & 1) == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    _push_heap(a, first, hole, top, value, comp)


def _make_heap(a: list, first: int, last: int, comp: Comp) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, first: int, last: int, result: int, comp: Comp) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, comp)


def _heap_select(a: list, first: int, middle: int, last: int, comp: Comp) -> None:
    _make_heap(a, first, middle, comp)
    for i in range(middle, last):
        if comp(a[i], a[first]):
            _pop_heap(a, first, middle, i, comp)


def _sort_heap(a: list, first: int, last: int, comp: Comp) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, comp)


def partial_sort(a: list, first: int, middle: int, last: int, comp: Comp) -> None:
    """``std::partial_sort(first, middle, last, comp)``."""
    _heap_select(a, first, middle, last, comp)
    _sort_heap(a, first, middle, comp)


def _introsort_loop(a: list, first: int, last: int, depth: int, comp: Comp) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(a, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        _introsort_loop(a, cut, last, depth, comp)
        last = cut


def sort(a: list, first: int, last: int, comp: Comp) -> None:
    """``std::sort(first, last, comp)``: introsort, then the final insertion sort."""
    if first == last:
        return
    _introsort_loop(a, first, last, _lg(last - first) * 2, comp)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, comp)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, comp)
    else:
        _insertion_sort(a, first, last, comp)


def nth_element(a: list, first: int, nth: int, last: int, comp: Comp) -> None:
    """``std::nth_element(first, nth, last, comp)``: introselect."""
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, comp)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, comp)


# -- PyTorch's topk ---------------------------------------------------------------------------

def _greater(x: tuple, y: tuple) -> bool:
    # NaN sorts as the largest value (NumPy's convention, as TopKImpl says)
    return (math.isnan(x[0]) and not math.isnan(y[0])) or x[0] > y[0]


def _less(x: tuple, y: tuple) -> bool:
    return (not math.isnan(x[0]) and math.isnan(y[0])) or x[0] < y[0]


def _topk_by_stl(values: Sequence[float], k: int, largest: bool, sort_result: bool) -> list[int]:
    queue = [(v, j) for j, v in enumerate(values)]
    n = len(queue)
    comp = _greater if largest else _less
    if k * 64 <= n:
        partial_sort(queue, 0, k, n, comp)
    else:
        nth_element(queue, 0, k - 1, n, comp)
        if sort_result:  # (TopKImpl sorts the first k - 1: nth_element placed the k-th)
            sort(queue, 0, k - 1, comp)
    return [j for _, j in queue[:k]]


def topk_indices(row: np.ndarray, k: int, largest: bool = True, sort_result: bool = True) -> np.ndarray:
    """The indices ``torch.topk(row, k, largest=, sorted=)`` returns for a 1-D float row.

    Where the k best values are distinct and the k-th is strictly better than the
    (k+1)-th, the answer is unique and NumPy's sort gives it; otherwise the order
    libstdc++ leaves tied pairs in decides, and the STL transcription runs.
    """
    n = row.size
    if k == 0:
        return np.zeros(0, np.int64)
    if sort_result and not np.isnan(row).any():
        order = np.argsort(-row if largest else row, kind="stable")
        top = row[order[:min(k + 1, n)]]
        if np.all(top[1:] != top[:-1]):
            return order[:k].astype(np.int64)
    return np.asarray(_topk_by_stl(row.tolist(), k, largest, sort_result), dtype=np.int64)
