"""Types written in Python for the type-rule and view tests (test_typerules, test_views)."""
from tilemem import ir


def d(x):
    """A dim: an int is a constant, a str a var, an expression itself."""
    if isinstance(x, ir.Expr):
        return x
    if isinstance(x, int):
        return ir.IntConst(x)
    return ir.Name(x)


def dims(seq):
    return tuple(d(x) for x in seq)


def T(shape, dtype="FP32", space=None, memref=None, **view):
    """Annotation ``pl.Tile[shape, dtype(, memref)(, space)(, pl.TileView(**view))]``."""
    tv = None
    if view:
        kw = dict(view)
        for k in ("valid_shape", "stride"):
            if k in kw:
                kw[k] = dims(kw[k])
        tv = ir.TileView(**kw)
    return ir.TileType(dims(shape), dtype, memref, space, tv)
