"""PyTorch models exported in memory (skipped when torch is not importable)."""
import pytest

import rooflens

torch = pytest.importorskip("torch")


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(16)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        return self.fc(x.mean(dim=(2, 3)))


def test_from_torch_costs():
    m = rooflens.from_torch(Tiny(), torch.randn(1, 3, 32, 32))
    a = rooflens.analyze(m, batch=1)
    # conv: 3*3*3*16 MACs per output position, 32*32 positions; fc: 16*10.
    assert a.macs == 3 * 3 * 3 * 16 * 32 * 32 + 16 * 10


def test_from_torch_rebatches():
    m = rooflens.from_torch(Tiny(), torch.randn(2, 3, 32, 32))
    assert rooflens.analyze(m, batch=8).flops == 8 * rooflens.analyze(m, batch=1).flops
    p = rooflens.predict(m, device="a100", batch="max")
    assert p.batch > 1


def test_from_torch_keeps_training_mode():
    t = Tiny().train()
    rooflens.from_torch(t, torch.randn(1, 3, 32, 32))
    assert t.training
