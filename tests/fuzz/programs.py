"""The stream of fuzzed programs: program ``index`` of seed ``seed`` is always the same text.

Each program draws from its own ``random.Random(f"{seed}:{index}")``, so any one can be made
again alone (``harness.py --seed S --show INDEX``) whatever ran before it.  The mix:

- ``ops``: the prelude, then one to three calls of real ops (opcalls) and what scripts do with
  a result (print it, backward through it, index it, format it);
- ``grammar``: the prelude, then statements derived from the grammar (grammar_gen);
- ``mutant``: a mutant of a corpus program (mutations) or of an ``ops`` program;
- ``repl``: the lines of any of those typed into the REPL, with some of its commands between.
"""

from __future__ import annotations

import random

from grammar_gen import GrammarGenerator
from harness import Job
from mutations import corpus, mutate
from opcalls import OpCalls
from values import PRELUDE, WILD_FLOATS, WILD_INTS

_FOLLOW_UPS = (
    "print(r)", "r.sum().backward()", "print(r.shape, r.dtype)", "r.backward()", "print(repr(r))",
    "print(r.tolist())", "print(x.grad)", "print(r * 2)", "print(r[0])", "print(float(r))",
    "print(r.item())", "print(hash(r))", "print(len(r))", "print(list(r))", "print(f'{r}')",
    "print(r.grad_fn)", "print(r.grad_fn.next_functions)", "print(torch.autograd.grad(r.sum(), x))",
    "print(r.requires_grad, r.is_leaf)", "print(str(r), format(r))", "r += 1", "r[0] = 5",
    "print(r @ r)", "print(r.T)", "print(sorted(r))", "print(max(r))", "print(r == r)", "print(-r)",
    "print(r.mean(), r.std())", "print(r.numpy())", "print(r.to(torch.int64))", "del r",
    "print(type(r), type(r.sum), type(r.grad_fn))", "print(type(t.format), type(len), type(torch))",
    "print(type(r).shape, type(r).T)", "print(type(type(r)), type(print))",
)
_PRINT_OPTIONS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode", "profile")
_REPL_COMMANDS = (":vars", ":help", ":reset", ":trace on", ":trace off", ":bogus", ":", ":v", ":help vars",
                  "help", "exit", ":graph", ":graph r", "", "    ", "_")


class Programs:
    def __init__(self, seed: int, mix: dict[str, float] | None = None) -> None:
        self.seed = seed
        self.opcalls = OpCalls()
        self.grammar = GrammarGenerator(self.opcalls)
        self.corpus = corpus()
        self.mix = mix or {"ops": 0.32, "grammar": 0.22, "mutant": 0.36, "repl": 0.10}

    def job(self, index: int) -> Job:
        rng = random.Random(f"{self.seed}:{index}")
        kind = rng.choices(list(self.mix), weights=list(self.mix.values()))[0]
        origin = f"{kind}:seed={self.seed}:index={index}"
        if kind == "repl":
            lines = self.repl_lines(rng)
            return Job(index, origin, {"kind": "repl", "lines": lines}, "\n".join(lines) + "\n")
        try:
            text = self.text(kind, rng)
        except RecursionError:  # a mutant deeper than Python's own ast module goes
            text = PRELUDE
        return Job(index, origin, {"kind": "run", "text": text}, text)

    def text(self, kind: str, rng: random.Random) -> str:
        if kind == "ops":
            return self.ops_program(rng)
        if kind == "grammar":
            return PRELUDE + self.grammar.program(rng, rng.randint(1, 5))
        if rng.random() < 0.2:
            return mutate(self.ops_program(rng), rng)
        name, seed_text = rng.choice(self.corpus)
        return mutate(seed_text, rng)

    def ops_program(self, rng: random.Random) -> str:
        wild = rng.choice((0.0, 0.1, 0.25, 0.5))
        lines = [PRELUDE.rstrip("\n")]
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.08:
                name = rng.choice(_PRINT_OPTIONS)
                value = rng.choice(("2", "4", "True", "'short'", "'full'", "None") + WILD_INTS[:6] + WILD_FLOATS[:4]
                                   + ("2.5", "'a'", "-1", "0"))
                lines.append(f"torch.set_printoptions({name}={value})")
                lines.append("print(x)")
                continue
            lines.append(f"r = {self.opcalls.call(rng, wild)}")
            for _ in range(rng.randint(0, 2)):
                lines.append(rng.choice(_FOLLOW_UPS))
        return "\n".join(lines) + "\n"

    def repl_lines(self, rng: random.Random) -> list[str]:
        kind = rng.choice(("ops", "grammar", "mutant"))
        lines = self.text(kind, rng).split("\n")
        for _ in range(rng.randint(0, 3)):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(_REPL_COMMANDS))
        return lines
