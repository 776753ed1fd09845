"""User functions (``def`` and ``lambda``) as plain Python callables.

Engine code calls them like any Python function (``register_hook(lambda g: g * 2)``,
``jacobian(f, x)``); compiled call sites use ``invoke`` directly, which keeps
the interpreter's C stack flat however deep a script recurses.  A UserFunction is a
descriptor, as a Python function is: stored in a class it becomes a method
(``obj.method`` is a bound ``method``), and ``inspect.signature`` reads its
``__signature__``.
"""

from __future__ import annotations

from types import MethodType
from typing import Any, Callable

from gradcli.lang.errors import ScriptRecursionError, ScriptTypeError

# Python's default limit is 1000 frames, the module's own frame included.
MAX_USER_DEPTH = 999

BREAK = object()
CONTINUE = object()
RETURN = object()
EMPTY_KWARGS: dict = {}


class Frame:
    """The variables of one module, function call or comprehension, and its enclosing frame."""

    # `owner` is set only on the frame of a class body: the class it made (a zero-argument
    # super() in its methods reads it, as Python's __class__ cell)
    __slots__ = ("vars", "parent", "ret", "owner")

    def __init__(self, variables: dict, parent: Frame | None) -> None:
        self.vars = variables
        self.parent = parent
        self.ret = None


class CallDepth:
    """How many user function calls are active (shared by the functions of one session)."""

    __slots__ = ("depth",)

    def __init__(self) -> None:
        self.depth = 0


class Signature:
    """A compiled parameter list: names (the first ``posonly`` of them before a ``/``),
    ``*args``, keyword-only names, ``**kwargs``."""

    __slots__ = ("names", "star", "kwonly", "double_star", "simple", "posonly")

    def __init__(self, names: list[str], star: str | None, kwonly: list[str],
                 double_star: str | None, posonly: int = 0) -> None:
        self.names = tuple(names)
        self.posonly = posonly
        self.star = star
        self.kwonly = tuple(kwonly)
        self.double_star = double_star
        self.simple = star is None and not kwonly and double_star is None


class UserFunction:
    """A function defined by the script; callable from Python like any function."""

    def __init__(self, name: str, qualname: str, signature: Signature, defaults: tuple,
                 kwdefaults: dict, body: Callable[[Frame], Any], closure: Frame,
                 depth: CallDepth, doc: str | None = None) -> None:
        self.__name__ = name
        self.__qualname__ = qualname
        self.__module__ = "__main__"   # (torch.typename(f): '__main__.f'; type(f) stays 'function')
        self.__doc__ = doc
        self.signature = signature
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.body = body
        self.closure = closure
        self.call_depth = depth

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.invoke(args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__qualname__} at {id(self):#x}>"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        # a function found on a class binds to the instance, as Python's functions do
        return self if instance is None else MethodType(self, instance)

    @property
    def __signature__(self) -> Any:
        """The parameters as an ``inspect.Signature`` (built on demand: inspect is not loaded
        at start-up)."""
        import inspect
        kind = inspect.Parameter
        signature = self.signature
        names = signature.names
        first_default = len(names) - len(self.defaults)
        parameters = []
        for index, name in enumerate(names):
            default = self.defaults[index - first_default] if index >= first_default else kind.empty
            parameters.append(kind(name, kind.POSITIONAL_ONLY if index < signature.posonly
                                   else kind.POSITIONAL_OR_KEYWORD, default=default))
        if signature.star is not None:
            parameters.append(kind(signature.star, kind.VAR_POSITIONAL))
        for name in signature.kwonly:
            parameters.append(kind(name, kind.KEYWORD_ONLY, default=self.kwdefaults.get(name, kind.empty)))
        if signature.double_star is not None:
            parameters.append(kind(signature.double_star, kind.VAR_KEYWORD))
        return inspect.Signature(parameters)

    def invoke(self, args: tuple | list, kwargs: dict) -> Any:
        counter = self.call_depth
        if counter.depth >= MAX_USER_DEPTH:
            raise ScriptRecursionError("maximum recursion depth exceeded")
        signature = self.signature
        if signature.simple and not kwargs and len(args) == len(signature.names):
            variables = dict(zip(signature.names, args))
        else:
            variables = self._bind(args, kwargs)
        counter.depth += 1
        try:
            return self.body(Frame(variables, self.closure))
        finally:
            counter.depth -= 1

    def _bind(self, args: tuple | list, kwargs: dict) -> dict:
        """Bind arguments exactly as CPython does, with its error messages and their order."""
        signature = self.signature
        names = signature.names
        count = len(names)
        given = len(args)
        variables: dict = dict(zip(names, args))
        if signature.star is not None:
            variables[signature.star] = tuple(args[count:])
        extra: dict = {}
        keyword_names = names[signature.posonly:]
        for key, value in kwargs.items():
            if key in keyword_names or key in signature.kwonly:
                if key in variables:
                    raise ScriptTypeError(f"{self.__qualname__}() got multiple values for argument '{key}'")
                variables[key] = value
            elif signature.double_star is not None:
                extra[key] = value
            elif key in names:
                # CPython lists every positional-only name that came as a keyword
                passed = [name for name in names[:signature.posonly] if name in kwargs]
                raise ScriptTypeError(f"{self.__qualname__}() got some positional-only arguments "
                                      f"passed as keyword arguments: '{', '.join(passed)}'")
            else:
                raise ScriptTypeError(f"{self.__qualname__}() got an unexpected keyword argument '{key}'")
        if given > count and signature.star is None:
            kwonly_given = sum(1 for name in signature.kwonly if name in variables)
            raise ScriptTypeError(self._too_many_message(given, kwonly_given))
        first_default = count - len(self.defaults)
        missing = [name for name in names[:first_default] if name not in variables]
        if missing:
            raise ScriptTypeError(f"{self.__qualname__}() missing {len(missing)} required positional "
                                  f"argument{'s' if len(missing) > 1 else ''}: {_listing(missing)}")
        for index in range(first_default, count):
            variables.setdefault(names[index], self.defaults[index - first_default])
        missing = []
        for name in signature.kwonly:
            if name not in variables:
                if name in self.kwdefaults:
                    variables[name] = self.kwdefaults[name]
                else:
                    missing.append(name)
        if missing:
            raise ScriptTypeError(f"{self.__qualname__}() missing {len(missing)} required keyword-only "
                                  f"argument{'s' if len(missing) > 1 else ''}: {_listing(missing)}")
        if signature.double_star is not None:
            variables[signature.double_star] = extra
        return variables

    def _too_many_message(self, given: int, kwonly_given: int = 0) -> str:
        # CPython's too_many_positional, including its keyword-only clause
        count = len(self.signature.names)
        low = count - len(self.defaults)
        if low == count:
            takes = f"{count} positional argument{'' if count == 1 else 's'}"
        else:
            takes = f"from {low} to {count} positional arguments"
        if kwonly_given:
            clause = (f" positional argument{'s' if given != 1 else ''} (and {kwonly_given} "
                      f"keyword-only argument{'s' if kwonly_given != 1 else ''})")
            return f"{self.__qualname__}() takes {takes} but {given}{clause} were given"
        return f"{self.__qualname__}() takes {takes} but {given} {'was' if given == 1 else 'were'} given"


# type(f) prints <class 'function'>, as for a Python function.
UserFunction.__module__ = "builtins"
UserFunction.__name__ = "function"
UserFunction.__qualname__ = "function"


def _listing(names: list[str]) -> str:
    quoted = [f"'{name}'" for name in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]
