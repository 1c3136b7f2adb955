"""PyTorch for the parity tests (tests/test_torch_parity.py, tests/test_tensor_torch_parity.py):
optional, so a module of them is skipped without it, unless MICROGRAD_EXTRAS asks for it
(as CI does): then a missing torch is a failure."""

import os

import pytest

TORCH_REASON = (
    "the PyTorch parity tests need torch: "
    "MICROGRAD_EXTRAS=torch python3 tools/dev.py test (or pip install -e '.[torch]')"
)


def torch_or_skip():
    """The torch module; called at a test module's top, it skips or fails the module."""
    if "torch" not in os.environ.get("MICROGRAD_EXTRAS", "").split(","):
        return pytest.importorskip("torch", reason=TORCH_REASON)
    try:
        import torch
    except ImportError:
        pytest.fail(
            f"MICROGRAD_EXTRAS asks for torch, but it is missing; {TORCH_REASON}", pytrace=False
        )
    return torch
