"""Tools over solved programs: batches, the verifier, the query console, graph pictures."""
