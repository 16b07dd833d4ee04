"""IR -> Datalog facts: what the rules read about a program (``extract``)."""
