"""tilemem's Datalog layer: the rule language, its validation, and evaluation engines.

Typical use::

    from tilemem.datalog import RuleSet, Database

    rules = RuleSet.from_package()             # rules/*.dl shipped in tilemem.rules
    with Database(rules) as db:
        db.add_facts("assign", [("x", 1), ("y", 2)])
        db.relation("space")                   # sorted list of tuples
        cols, rows = db.query('space(V, "Acc")')

See ``docs`` in the module docstrings of :mod:`.syntax` (the language),
:mod:`.program` (RuleSet) and :mod:`.engine` (how evaluation works).
"""
from tilemem.datalog.database import DEFAULT_ENGINE, ENGINES, Database, QueryResult, engine_class
from tilemem.datalog.engine import Engine
from tilemem.datalog.errors import (
    DatalogError, Diagnostic, EngineUnavailable, EvaluationError, FactError, QueryError,
    RuleError,
)
from tilemem.datalog.planning import plan_body
from tilemem.datalog.program import PredicateInfo, RuleSet
from tilemem.datalog.location import Loc

# the rule language's AST and parser, loaded when first named (a solve reads its rule
# program as JSON and never needs them)
_SYNTAX = frozenset(("Aggregate", "Arith", "Atom", "Comparison", "Const", "Decl", "Input",
                     "Negation", "Rule", "Var", "format_value", "parse_program", "parse_query"))

__all__ = [
    "RuleSet", "PredicateInfo", "Database", "QueryResult", "Engine", "PyDatalogEngine",
    "ClingoEngine", "ENGINES", "DEFAULT_ENGINE", "engine_class", "EngineUnavailable", "DatalogError", "RuleError", "QueryError", "FactError", "EvaluationError",
    "Diagnostic", "Rule", "Atom", "Negation", "Comparison", "Arith", "Aggregate", "Var", "Const", "Decl",
    "Input", "Loc", "parse_program", "parse_query", "format_value", "plan_body",
]


def __getattr__(name):
    if name in _SYNTAX:
        from tilemem.datalog import syntax
        return getattr(syntax, name)
    # the engine classes load their Datalog package (pyDatalog, clingo) when first named
    if name == "PyDatalogEngine":
        return engine_class("pydatalog")
    if name == "ClingoEngine":
        return engine_class("clingo")
    raise AttributeError(f"module 'tilemem.datalog' has no attribute '{name}'")
