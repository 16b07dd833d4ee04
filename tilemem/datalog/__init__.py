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
# Every name is loaded from its module when first asked for: importing a submodule
# (``tilemem.datalog.errors`` for the error classes every command catches) runs this
# file, and loading the engines' front and the rule program's code with it was ~10 ms of
# every command, a result-cache hit included.
_MODULES = {
    "database": ("DEFAULT_ENGINE", "ENGINES", "Database", "QueryResult", "engine_class"),
    "engine": ("Engine",),
    "errors": ("DatalogError", "Diagnostic", "EngineUnavailable", "EvaluationError", "FactError",
               "QueryError", "RuleError"),
    "planning": ("plan_body",),
    "program": ("PredicateInfo", "RuleSet"),
    "location": ("Loc",),
    # the rule language's AST and parser (a solve reads its rule program as JSON and never
    # needs them)
    "syntax": ("Aggregate", "Arith", "Atom", "Comparison", "Const", "Decl", "Key", "Input",
               "Negation", "Rule", "Var", "format_value", "parse_program", "parse_query"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [
    "RuleSet", "PredicateInfo", "Database", "QueryResult", "Engine", "PyDatalogEngine",
    "ClingoEngine", "ENGINES", "DEFAULT_ENGINE", "engine_class", "EngineUnavailable", "DatalogError", "RuleError", "QueryError", "FactError", "EvaluationError",
    "Diagnostic", "Rule", "Atom", "Negation", "Comparison", "Arith", "Aggregate", "Var", "Const", "Decl",
    "Key", "Input", "Loc", "parse_program", "parse_query", "format_value", "plan_body",
]


def __getattr__(name):
    module = _WHERE.get(name)
    if module is not None:
        import importlib
        value = getattr(importlib.import_module(f"tilemem.datalog.{module}"), name)
        globals()[name] = value
        return value
    # the engine classes load their Datalog package (pyDatalog, clingo) when first named
    if name in ("PyDatalogEngine", "ClingoEngine"):
        from tilemem.datalog.database import engine_class
        return engine_class("pydatalog" if name == "PyDatalogEngine" else "clingo")
    raise AttributeError(f"module 'tilemem.datalog' has no attribute '{name}'")
