"""Defects the contract harness finds that are not fixed yet:
{callable: {(argument, perturbation): kind}}. Written by
`python -m tests.contract.report --write`; the harness fails on any defect not
listed and on any listed one that no longer occurs."""

OPEN: dict = {}
