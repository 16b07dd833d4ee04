"""The DSL reading: hand-written ``@pl.program`` classes -> the IR PyPTO's front end
builds (see :mod:`tilemem.frontend.dsl.program`; the entry point is
:func:`tilemem.frontend.reading.read_programs`)."""
