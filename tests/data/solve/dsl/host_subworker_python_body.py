import pypto.language as pl


@pl.program
class HostPython:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        u = pl.add(t, t)
        return pl.store(u, [0, 0], out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def check(
        f: pl.Tensor[[16, 16], pl.FP32],   # the sum
        g: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        """Runs on the host as plain Python: PyPTO keeps it as text."""
        import torch  # noqa: PLC0415

        # a comment that PyPTO's unparse drops
        expected = torch.full((16, 16), 2.0,
                              dtype=torch.float32)
        assert f is not None
        if not torch.allclose(f, expected, rtol=1e-5, atol=0.00001):
            raise AssertionError(
                f"check failed: max={f.max().item()}"
            )
        for i in range(2):
            g[i] = f[i] * 2
        g[:] = [x for x in (1, 2)]
        return g

    @pl.function(level=pl.Level.NODE, role=pl.Role.Orchestrator)
    def host_orch(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
        s2: pl.Tensor[[16, 16], pl.FP32] = self.add(a, s)
        r: pl.Tensor[[16, 16], pl.FP32] = self.check(s2, out)
        return r
