"""Split the time of ``tilemem.solve`` into its stages, without changing tilemem.

``StageTimer`` wraps the functions ``tilemem.solve`` calls (by name, in the modules
that call them: ``tilemem.pipeline`` and the solver) so that each call's *exclusive*
wall time goes to a stage:

* parse -- ``read_program(s)`` (``tilemem.api``), ``parse`` + ``check_program`` (text -> IR,
           well-formedness)
* facts -- ``extract`` / ``extract_program`` (IR -> Datalog facts)
* rules -- ``derive`` / ``derive_residency`` minus the facts inside them (loading facts
           into the engine, rule evaluation, reading the derived relations)
* emit  -- applying the solution to the IR (moves, retargets, hoists, verdicts)
* print -- ``print_program``

Whatever ``solve`` does outside these calls is reported as ``other``.
"""
from __future__ import annotations

import resource
import time
from contextlib import contextmanager

STAGES = ("parse", "facts", "rules", "emit", "print")


def cpu_time() -> float:
    """CPU seconds of this process and of its children waited for: a large evaluation
    runs in a child process (tilemem.datalog.forked)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ru.ru_utime + ru.ru_stime


class StageTimer:
    def __init__(self):
        self.times = dict.fromkeys(STAGES, 0.0)
        self._stack: list[float] = []      # time spent in nested timed calls, per level
        self._saved: list[tuple] = []

    def _wrap(self, stage: str, fn):
        def timed(*args, **kwargs):
            self._stack.append(0.0)
            t0 = cpu_time()
            try:
                return fn(*args, **kwargs)
            finally:
                dt = cpu_time() - t0
                nested = self._stack.pop()
                self.times[stage] += dt - nested
                if self._stack:
                    self._stack[-1] += dt
        timed.__wrapped__ = fn
        return timed

    def _patch(self, obj, name: str, stage: str):
        fn = getattr(obj, name)
        self._saved.append((obj, name, fn))
        setattr(obj, name, self._wrap(stage, fn))

    @contextmanager
    def installed(self):
        # the stages are chained in tilemem.pipeline (tilemem.api drives a Pipeline)
        from tilemem import api, pipeline
        from tilemem.frontend import wellformed
        from tilemem.infer import emitter
        from tilemem.infer import solver
        from tilemem.residency import solve as residency
        # tilemem.solve reads its input through frontend.reading (read_program(s), as
        # tilemem.api imports them): the printed or the DSL reading and its checks
        plan = [(api, "read_program", "parse"), (api, "read_programs", "parse"),
                (pipeline, "parse", "parse"), (wellformed, "check_program", "parse"),
                (solver, "extract", "facts"), (residency, "extract_program", "facts"),
                (pipeline, "derive", "rules"), (pipeline, "derive_residency", "rules"),
                (pipeline, "emit", "emit"), (pipeline, "apply_hoists", "emit"),
                (pipeline, "decisions", "emit"), (pipeline, "strip_program_bridge_marks", "emit"),
                (pipeline, "print_program", "print")]
        for obj, name, stage in plan:
            if hasattr(obj, name):
                self._patch(obj, name, stage)
        # Solution3.from_relations is a classmethod: wrap the bound function
        orig = emitter.Solution3.__dict__["from_relations"]
        self._saved.append((emitter.Solution3, "from_relations", orig))
        emitter.Solution3.from_relations = classmethod(
            self._wrap("emit", orig.__func__))
        try:
            yield self
        finally:
            for obj, name, fn in reversed(self._saved):
                setattr(obj, name, fn)
            self._saved.clear()
