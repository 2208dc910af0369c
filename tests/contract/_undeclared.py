"""Which public callables need no declared domains, and the list of those not declared yet.

Every public callable declares its parameters' domains with attnlib.domains.declare, except
the ones :func:`exempt` names, by a rule rather than one by one:

- a callable with no parameters (``chapter_run()``), or a module class with
  torch.nn.Module's own ``__init__`` (``UniformAttention()``): there is nothing to declare;
- an exception class (``ExplorerError``): its one argument is the message, any text;
- a callable of a module listed in ``TORCH_FREE``: tools that must not import torch read
  that module (attnlib.domains imports torch), so it checks its arguments by hand. The
  harness still attacks it and holds its refusals to naming the function by its own name.

``UNDECLARED`` ({callable: reason}) lists any other public callable not declared yet;
test_every_public_callable_declares_its_domains fails on a public callable neither declared,
exempt nor listed, and on a listed one that has become declared: the list only shrinks. It
is empty, kept as the mechanism (a listed callable's refusals are held to naming the argument
only, and the harness attacks it with the generic bad values only)."""

from __future__ import annotations

import inspect

import torch

#: modules that must not import torch, with the test that holds them to it
TORCH_FREE = {
    "scoringbook.manifest": (
        "read by the book's build and its tests without torch "
        "(tests/book/test_manifest.py::test_the_manifest_is_consistent_and_imports_no_torch)"
    ),
}

UNDECLARED: dict[str, str] = {}


def exempt(name: str, obj) -> str | None:
    """Why the public callable ``obj`` (named ``name``) needs no declaration, or None."""
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return "an exception class: its argument is the message"
    if isinstance(obj, type) and obj.__init__ is torch.nn.Module.__init__:
        return "takes no arguments: torch.nn.Module's own __init__"
    module = name.rpartition(".")[0]
    while module:
        if module in TORCH_FREE:
            return f"{module} imports no torch: {TORCH_FREE[module]}"
        module = module.rpartition(".")[0]
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return None
    if not params:
        return "takes no arguments"
    return None
