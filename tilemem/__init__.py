"""tilemem: PyPTO's InferTileMemorySpace pass re-implemented as a Datalog constraint solver."""
__version__ = "0.1.0"
