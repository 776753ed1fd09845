"""Programs derived from the language's own grammar (grammar/gradcli.lark).

Lark compiles the EBNF grammar into plain BNF rules (``parser.rules``: an origin and a list of
symbols); ``GrammarGenerator`` derives random sentences from them, starting at ``file_input``.
Past a depth budget it takes only the expansions that end soonest (their least depth is computed
once, as a fixed point), so every derivation stops.  A few rules are steered so that programs get
past NameError: names come from the prelude's bindings and the names the program binds, attribute
names from Tensor's, atoms are often a real op call (``opcalls``), and numbers and strings are the
interesting ones of ``values``.  The tokens are then laid out as source: ``_NEWLINE``, ``_INDENT``
and ``_DEDENT`` become line breaks and indentation.
"""

from __future__ import annotations

import keyword
import random
from pathlib import Path

from opcalls import OpCalls
from values import BUILTINS, MODULE_NAMES, PLAIN_NAMES, TENSOR_ATTRS, TENSOR_NAMES, number, string

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "gradcli.lark"

_NEWLINE, _INDENT, _DEDENT = "\n", "\x01INDENT", "\x01DEDENT"
_AUG_OPS = ("+=", "-=", "*=", "/=", "//=", "%=", "@=", "**=", "&=", "|=", "^=", "<<=", ">>=")
_IMPORTS = ("torch", "torch.nn", "torch.nn.functional", "math", "numpy", "torch.autograd", "os", "sys",
            "torch.optim", "matplotlib.pyplot", "random", "torch.linalg")


class GrammarGenerator:
    def __init__(self, opcalls: OpCalls | None = None, max_depth: int = 40, max_tokens: int = 120) -> None:
        from lark import Lark
        parser = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", start=["file_input"])
        self.rules: dict[str, list[tuple[tuple[str, ...], str | None]]] = {}
        for rule in parser.rules:
            expansion = tuple(symbol.name for symbol in rule.expansion)
            self.rules.setdefault(rule.origin.name, []).append((expansion, rule.alias))
        self.literals: dict[str, str] = {}
        for terminal in parser.terminals:
            if terminal.pattern.type == "str":
                self.literals[terminal.name] = terminal.pattern.value
        self.least = self._least_depths()
        # each rule's quickest ways out (chosen past the budgets, and often before)
        self.shortest = {origin: [(e, a) for e, a in expansions
                                  if self._expansion_depth(e) == min(self._expansion_depth(f) for f, _ in expansions)]
                         for origin, expansions in self.rules.items()}
        self.opcalls = opcalls or OpCalls()
        self.max_depth = max_depth
        self.max_tokens = max_tokens  # per statement: past it, only the shortest ways out

    def _least_depths(self) -> dict[str, int]:
        """For each rule, the least depth of a complete derivation (terminals are 0)."""
        least: dict[str, int] = {}
        changed = True
        while changed:
            changed = False
            for origin, expansions in self.rules.items():
                for expansion, _ in expansions:
                    depths = [least.get(s, 10**9) if s in self.rules else 0 for s in expansion]
                    depth = 1 + max(depths, default=0)
                    if depth < least.get(origin, 10**9):
                        least[origin] = depth
                        changed = True
        return least

    def _expansion_depth(self, expansion: tuple[str, ...]) -> int:
        return 1 + max((self.least[s] if s in self.rules else 0 for s in expansion), default=0)

    # ------------------------------------------------------------------ programs
    def program(self, rng: random.Random, statements: int = 4) -> str:
        """Source text: ``statements`` derivations of ``_stmt`` (a file_input's items)."""
        self.bound: list[str] = []
        tokens: list[str] = []
        for _ in range(statements):
            self.limit = len(tokens) + self.max_tokens
            self._derive("_stmt", rng, 0, tokens, None)
        return layout(tokens)

    def _derive(self, symbol: str, rng: random.Random, depth: int, out: list[str], parent: str | None) -> None:
        if symbol not in self.rules:
            out.append(self._terminal(symbol, rng, parent))
            return
        steered = self._steer(symbol, rng, depth, out)
        if steered:
            return
        expansions = self.rules[symbol]
        if depth > self.max_depth or len(out) > self.limit or rng.random() < 0.5 + depth / 50:
            expansions = self.shortest[symbol]
        expansion, alias = self._pick(symbol, expansions, rng, depth)
        context = alias or symbol
        for part in expansion:
            # a repetition rule (__x_star_n: its own name first) does not deepen the derivation
            self._derive(part, rng, depth if part == symbol else depth + 1, out, context)

    def _pick(self, symbol: str, expansions: list, rng: random.Random, depth: int) -> tuple:
        if symbol.startswith("__") and len(expansions) > 1:
            # a repetition: repeat less the deeper we are (keeps sizes bounded)
            recursive = [e for e in expansions if e[0] and e[0][0] == symbol]
            others = [e for e in expansions if not (e[0] and e[0][0] == symbol)]
            if recursive and others:
                return rng.choice(recursive if rng.random() < 0.35 / (1 + depth / 10) else others)
        return rng.choice(expansions)

    def _steer(self, symbol: str, rng: random.Random, depth: int, out: list[str]) -> bool:
        """Hand-picked text for a few rules, part of the time; True when it wrote something."""
        roll = rng.random()
        if symbol == "atom":
            if roll < 0.30:
                out.append(self._name(rng))
            elif roll < 0.42:
                out.append(number(rng, 0.25))
            elif roll < 0.48:
                out.append(string(rng))
            elif roll < 0.68 and depth < self.max_depth and len(out) < self.limit:
                out.append(self.opcalls.call(rng, 0.2))
            else:
                return False
            return True
        if symbol == "_small_stmt" and roll < 0.45:
            # an assignment to a name: later statements can use it
            target = rng.choice(("r", "z", "q", "k", "x", "y", "n", "L")) if rng.random() < 0.8 else "_"
            out.append(target)
            out.append("=")
            self._derive("test", rng, depth + 1, out, "assign_stmt")
            self.bound.append(target)
            return True
        if symbol == "_small_stmt" and roll < 0.55:
            out.extend(("print", "("))
            self._derive("testlist_star_expr", rng, depth + 1, out, "call")
            out.append(")")
            return True
        if symbol == "dotted_name" and roll < 0.8:
            out.append(rng.choice(_IMPORTS))
            return True
        return False

    def _name(self, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.45:
            return rng.choice(TENSOR_NAMES)
        if roll < 0.6:
            return rng.choice(PLAIN_NAMES + MODULE_NAMES)
        if roll < 0.7 and self.bound:
            return rng.choice(self.bound)
        if roll < 0.9:
            return rng.choice(BUILTINS)
        return rng.choice(("relu", "mean", "sum", "sin", "exp", "backward", "t", "grad", "tanh", "softmax"))

    def _terminal(self, name: str, rng: random.Random, parent: str | None) -> str:
        if name in self.literals:
            return self.literals[name]
        if name == "_NEWLINE":
            return _NEWLINE
        if name == "_INDENT":
            return _INDENT
        if name == "_DEDENT":
            return _DEDENT
        if name == "NAME":
            if parent == "attribute":
                return rng.choice(TENSOR_ATTRS) if rng.random() < 0.8 else rng.choice(("relu", "sum", "nn",
                                                                                           "functional", "Linear"))
            if parent in ("funcdef", "classdef", "param", "lambda_param", "star_param", "import_as_name",
                          "dotted_as_name", "except_clause", "global_stmt", "nonlocal_stmt"):
                fresh = rng.choice(("g", "p", "c", "u", "a0", "a1", "z", "r"))
                self.bound.append(fresh)
                return fresh
            name_ = self._name(rng)
            return name_ if not keyword.iskeyword(name_) else "z"
        if name in ("DEC_NUMBER", "HEX_NUMBER", "OCT_NUMBER", "BIN_NUMBER", "FLOAT_NUMBER"):
            return {"DEC_NUMBER": rng.choice(("0", "1", "2", "3", "10", "255", "1_000", "9" * 30)),
                    "HEX_NUMBER": rng.choice(("0x10", "0xff", "0x7fffffffffffffff")),
                    "OCT_NUMBER": "0o17", "BIN_NUMBER": "0b101",
                    "FLOAT_NUMBER": rng.choice(("0.5", "1e3", "1.5e-7", "1e400", ".5", "2."))}[name]
        if name in ("STRING", "LONG_STRING"):
            return string(rng) if name == "STRING" else "'''long\nstring'''"
        if name == "AUG_OP":
            return rng.choice(_AUG_OPS)
        if name == "COMMENT":
            return "# c"
        raise KeyError(f"no text for terminal {name}")


def layout(tokens: list[str]) -> str:
    """Tokens -> source text: a line per _NEWLINE, four spaces per indentation level."""
    lines: list[str] = []
    current: list[str] = []
    level = 0
    line_level = 0
    for token in tokens:
        if token == _NEWLINE:
            if current:
                lines.append("    " * line_level + " ".join(current))
            current = []
        elif token == _INDENT:
            level += 1
        elif token == _DEDENT:
            level -= 1
        else:
            if not current:
                line_level = level
            current.append(token)
    if current:
        lines.append("    " * line_level + " ".join(current))
    return "\n".join(lines) + "\n"
