"""A faster loop over Lark's LALR tables for scripts that parse (Lark builds the same tree slower).

Lark's parser calls the tree builder at every reduction.  Python's precedence chain makes about
eight reductions a token, and most of them are inlined rules (``?rule``) with one symbol, whose
builder just hands the child up: here those are done in the loop itself, without a call, and
every other reduction calls Lark's own builder, so the tree (and its positions) is the one
Lark builds.  Anything unusual -- a syntax error, an indentation error from the post-lexer --
makes ``parse`` return None, and the caller parses again with Lark, which then raises the error
with all the detail the messages need (errors are rare; parsing twice then costs little).

Imported with the parser only (grammar_loader), as Lark is.
"""

from __future__ import annotations

from typing import Any

from lark import Token, Tree
from lark.grammar import NonTerminal
from lark.parsers.lalr_analysis import Shift

_plans: dict[int, Any] = {}   # id(parser) -> (table, per-rule plan), built once per parser


def parse(lark: Any, text: str, start: str) -> Any:
    """Lark's tree for ``text``, or None if the text needs Lark's own parse (an error)."""
    table, rules, callbacks = _plan(lark)
    states = table.states
    end_state = table.end_states[start]
    state_stack = [table.start_states[start]]
    values: list = []
    token = None
    try:
        for token in lark.lex(text):
            if _feed(token, states, rules, callbacks, state_stack, values, end_state, False):
                return None   # (only the end token may finish the parse)
        end = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
        if _feed(end, states, rules, callbacks, state_stack, values, end_state, True):
            return values[-1]
        return None
    except Exception:   # (a syntax error: Lark's parse raises it, worded for the report)
        return None


def _feed(token: Any, states: dict, rules: dict, callbacks: dict, state_stack: list, values: list,
          end_state: int, is_end: bool) -> bool:
    """Feed one token (reducing as needed); True once the end token finished the parse."""
    kind = token.type
    while True:
        action, argument = states[state_stack[-1]][kind]
        if action is Shift:
            if is_end:
                raise ValueError("the end token cannot be shifted")
            state_stack.append(argument)
            values.append(token if kind not in callbacks else callbacks[kind](token))
            return False
        size, origin, builder = rules[argument]
        if builder is None:          # an inlined rule handing its one child up
            del state_stack[-1]
        elif size:
            children = values[-size:]
            del state_stack[-size:]
            del values[-size:]
            values.append(builder(children))
        else:
            values.append(builder([]))
        state_stack.append(states[state_stack[-1]][origin][1])
        if is_end and state_stack[-1] == end_state:
            return True


def _plan(lark: Any) -> tuple[Any, dict, dict]:
    found = _plans.get(id(lark))
    if found is None:
        inner = lark.parser.parser.parser       # (ParsingFrontend -> LALR_Parser -> its loop)
        callbacks = inner.callbacks
        rules = {}
        for rule, builder in callbacks.items():
            if isinstance(rule, str):
                continue
            size = len(rule.expansion)
            rules[rule] = (size, rule.origin.name, None if _hands_child_up(rule, builder) else builder)
        found = _plans[id(lark)] = (inner.parse_table, rules, callbacks)
    return found


def _hands_child_up(rule: Any, builder: Any) -> bool:
    """Whether the builder of ``rule`` returns its single child unchanged, whatever that child is
    (asked of the builder with a stand-in child of the symbol's kind)."""
    if len(rule.expansion) != 1:
        return False
    symbol = rule.expansion[0]
    if isinstance(symbol, NonTerminal):
        probe: Any = Tree(symbol.name, [Token("A", "a", 0, 1, 1, 1, 2, 1), Token("B", "b", 1, 1, 2, 1, 3, 2)])
    else:
        probe = Token(symbol.name, "x", 0, 1, 1, 1, 2, 1)
    try:
        return builder([probe]) is probe
    except Exception:
        return False
