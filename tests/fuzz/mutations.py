"""Mutants of real programs: samples/*.ag, the golden cases' inputs, bench/workloads.

Three levels, each a function ``(text, rng) -> text``:

- lines: duplicate, delete, swap or move a line; truncate the file at a random character;
- tokens (Python's tokenizer: the language is a Python subset): swap an operator for another,
  change a number to a huge / negative / nan / inf one, swap a name for another of the file's,
  delete, duplicate or insert a token;
- the syntax tree (Python's ``ast``, which reads every gradcli program that is also Python):
  change a binary operator or a comparison, a constant, the callee or the arguments of a call,
  wrap an expression in a deep tower of parentheses / unary minus / lists / lambdas / calls.

A mutant that Python's tools cannot read is produced by the line level only (a syntax error is
a fine test too).
"""

from __future__ import annotations

import ast
import io
import random
import tokenize
from pathlib import Path

from values import WILD_FLOATS, WILD_INTS, number

ROOT = Path(__file__).resolve().parents[2]


def corpus() -> list[tuple[str, str]]:
    """(name, text) of every seed program, in a fixed order."""
    paths = (sorted((ROOT / "samples").glob("*.ag")) + sorted((ROOT / "tests" / "golden" / "cases").rglob("*.ag"))
             + sorted((ROOT / "bench" / "workloads").glob("*.ag")))
    return [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in paths]


# ---------------------------------------------------------------- lines
def duplicate_line(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    lines.insert(k, lines[k])
    return "\n".join(lines)


def delete_line(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def swap_lines(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def truncate(text: str, rng: random.Random) -> str:
    return text[:rng.randrange(len(text) + 1)]


def repeat_block(text: str, rng: random.Random) -> str:
    """A whole program twice, or its lines inside a loop: state left over by the first pass."""
    if rng.random() < 0.5:
        return text + "\n" + text
    body = "\n".join("    " + line for line in text.split("\n"))
    return f"for _rep in range(2):\n{body}\n"


LINE_MUTATIONS = (duplicate_line, delete_line, swap_lines, truncate, repeat_block)
# (nest_deep is defined with the token mutations below)


# ---------------------------------------------------------------- tokens
_OPERATORS = ("+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^", "<", ">", "==", "!=",
              "<=", ">=", "=", "+=", "-=", "*=", "@=", ".", ",", ":", "(", ")", "[", "]", "~", "**=", "->")
_INSERTS = ("(", ")", "[", "]", ",", ":", "not", "lambda", "*", "**", "if", "else", "None", "'a'", "x", ".",
            "\\", "#", "\t", "=", "yield", "await", "async", ":=", "0j", "b''", "$", "?", "`", "\x00", "\u00a0")


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def _replace_token(text: str, token: tokenize.TokenInfo, new: str) -> str:
    lines = text.split("\n")
    (sl, sc), (el, ec) = token.start, token.end
    if sl != el:
        return text
    line = lines[sl - 1]
    lines[sl - 1] = line[:sc] + new + line[ec:]
    return "\n".join(lines)


def mutate_token(text: str, rng: random.Random) -> str:
    tokens = _tokens(text)
    if not tokens:
        return truncate(text, rng)
    candidates = [t for t in tokens if t.type in (tokenize.OP, tokenize.NUMBER, tokenize.NAME, tokenize.STRING)]
    if not candidates:
        return text
    token = rng.choice(candidates)
    roll = rng.random()
    if token.type == tokenize.NUMBER and roll < 0.7:
        new = rng.choice(WILD_INTS + WILD_FLOATS + ("0", "-1", "1e400", "99999", "0.0", "-0.5"))
        return _replace_token(text, token, f"({new})")
    if token.type == tokenize.OP and roll < 0.6:
        return _replace_token(text, token, rng.choice(_OPERATORS))
    if token.type == tokenize.NAME and roll < 0.5:
        names = [t.string for t in tokens if t.type == tokenize.NAME]
        return _replace_token(text, token, rng.choice(names))
    roll = rng.random()
    if roll < 0.4:
        return _replace_token(text, token, "")
    if roll < 0.7:
        return _replace_token(text, token, token.string + " " + token.string)
    return _replace_token(text, token, token.string + " " + rng.choice(_INSERTS))


# ---------------------------------------------------------------- syntax trees
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult, ast.LShift,
           ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn)
_CALLEES = ("sum", "mean", "relu", "exp", "log", "sqrt", "softmax", "torch.cat", "torch.stack", "reshape",
            "torch.matmul", "torch.tensor", "torch.ones", "torch.full", "torch.arange", "torch.randint",
            "F.one_hot", "torch.zeros_like", "print", "len", "sorted", "list", "torch.autograd.grad",
            "torch.autograd.functional.jacobian", "repr", "torch.set_printoptions", "hash", "iter")


def _wrap_deep(node: ast.expr, rng: random.Random) -> ast.expr:
    """A tower of one construct around ``node`` (depths below and past what the C stack holds)."""
    depth = rng.choice((20, 60, 150))  # (CPython's own parser stops at 200 parentheses)
    try:
        new = tower(ast.unparse(node), depth, rng)
        return ast.parse(new, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return node


def tower(text: str, depth: int, rng: random.Random) -> str:
    """``text`` inside ``depth`` levels of one construct."""
    kind = rng.randrange(7)
    if kind == 0:
        new = "(" * depth + text + ")" * depth
    elif kind == 1:
        new = "-" * depth + text
    elif kind == 2:
        new = "[" * depth + text + "]" * depth
    elif kind == 3:
        new = "(lambda: " * depth + text + ")()" * depth
    elif kind == 4:
        new = "abs(" * depth + text + ")" * depth
    elif kind == 5:
        new = "(" * depth + text + ",)" * depth
    else:
        new = "x[" * depth + "0" + "]" * depth
    return new


def nest_deep(text: str, rng: random.Random) -> str:
    """A name or number of the program replaced by a deep tower of one construct (past what
    CPython's parser takes, which gradcli must refuse or take without crashing)."""
    tokens = _tokens(text)
    candidates = [t for t in tokens or () if t.type in (tokenize.NAME, tokenize.NUMBER) and not t.string.isidentifier()
                  or t.type == tokenize.NAME and t.string in ("x", "y", "v", "s", "m", "n", "w", "loss", "out")]
    if not candidates:
        return text
    token = rng.choice(candidates)
    return _replace_token(text, token, tower(token.string, rng.choice((150, 400, 1000, 1000, 3000)), rng))


class _Mutator(ast.NodeTransformer):
    def __init__(self, rng: random.Random, target: int) -> None:
        self.rng = rng
        self.target = target   # the index (in visiting order) of the one node to change
        self.index = 0

    def _hit(self) -> bool:
        self.index += 1
        return self.index == self.target

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if self._hit():
            node.op = self.rng.choice(_BINOPS)()
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if self._hit():
            node.ops = [self.rng.choice(_CMPOPS)() for _ in node.ops]
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if self._hit():
            try:
                return ast.parse(number(self.rng, 0.8) if self.rng.random() < 0.8 else "'a'", mode="eval").body
            except SyntaxError:
                return node
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not self._hit():
            return node
        roll = self.rng.random()
        if roll < 0.3:
            node.func = ast.parse(self.rng.choice(_CALLEES), mode="eval").body
        elif roll < 0.5 and node.args:
            del node.args[self.rng.randrange(len(node.args))]
        elif roll < 0.7:
            node.args.append(ast.parse(number(self.rng, 0.7), mode="eval").body)
        elif roll < 0.85 and node.args:
            k = self.rng.randrange(len(node.args))
            node.args[k] = _wrap_deep(node.args[k], self.rng)
        else:
            node.keywords.append(ast.keyword(arg=self.rng.choice(("dim", "dtype", "out", "keepdim", "bogus")),
                                             value=ast.parse(number(self.rng, 0.7), mode="eval").body))
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and self._hit() and self.rng.random() < 0.3:
            return _wrap_deep(node, self.rng)
        return node


def mutate_tree(text: str, rng: random.Random) -> str:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return mutate_token(text, rng)
    count = sum(1 for node in ast.walk(tree)
                if isinstance(node, (ast.BinOp, ast.Compare, ast.Constant, ast.Call, ast.Name)))
    if count == 0:
        return text
    try:
        _Mutator(rng, rng.randrange(1, count + 1)).visit(tree)
        return ast.unparse(tree) + "\n"
    except (RecursionError, ValueError):   # (a tree deeper than Python's own tools go)
        return text


def mutate(text: str, rng: random.Random) -> str:
    """One to three mutations of any level."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        roll = rng.random()
        if not text:
            break
        if roll < 0.04:
            text = nest_deep(text, rng)
        elif roll < 0.25:
            text = rng.choice(LINE_MUTATIONS)(text, rng)
        elif roll < 0.6:
            text = mutate_token(text, rng)
        else:
            text = mutate_tree(text, rng)
    return text
