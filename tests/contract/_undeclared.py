"""Public callables whose parameters are not declared with attnlib.domains.declare yet:
{callable: reason}. test_every_public_callable_declares_its_domains fails on any public
callable neither declared nor listed here, and on a listed one that has become declared:
the list only shrinks."""

UNDECLARED: dict[str, str] = {}
