"""Where a local model runs: the CPU, or a CUDA GPU through onnxruntime-gpu.

The choice is a pure function of what was asked and what onnxruntime offers
(:func:`choose_device`), so it is tested on any machine; the model then creates its session
with the providers it returns and checks which one onnxruntime actually used (a CUDA build
of onnxruntime on a machine without a usable GPU falls back to the CPU on its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from rag.errors import ValidationError

__all__ = ["Device", "DEVICES", "DeviceChoice", "choose_device", "CPU_BATCH", "CUDA_BATCH"]

Device = Literal["cpu", "cuda", "auto"]
DEVICES = ("cpu", "cuda", "auto")

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"

#: Texts per model call on the CPU: padding costs more than batching saves there
#: (benchmarks/model_settings.py; docs/benchmarks/inference.md).
CPU_BATCH = 1
#: Texts per model call on a GPU: enough rows to fill it (sentence-transformers uses 32;
#: MiniLM's activations for 64 x 256 tokens take about 100 MB).
CUDA_BATCH = 64


@dataclass(frozen=True)
class DeviceChoice:
    """``device``: "cpu" or "cuda"; ``providers``: onnxruntime's, in order of preference."""

    device: Literal["cpu", "cuda"]
    providers: tuple[str, ...]


def check_device(device: object) -> Device:
    if device not in DEVICES:
        raise ValidationError(f"device must be one of {', '.join(map(repr, DEVICES))}, got {device!r}")
    return device  # type: ignore[return-value]


def choose_device(device: Device, available: Sequence[str], *, arithmetic: str = "float") -> DeviceChoice:
    """The device to run on, given ``device`` as asked and ``available``
    (``onnxruntime.get_available_providers()``).

    ``auto``: CUDA when onnxruntime offers it and the arithmetic is float, else the CPU.
    ``cuda``: CUDA, or a ValidationError saying what is missing (onnxruntime-gpu) or why
    not (int8 arithmetic runs on the CPU only: onnxruntime's ``DynamicQuantizeMatMul`` has
    no CUDA kernel). ``cpu``: the CPU.
    """
    check_device(device)
    if device == "cpu":
        return DeviceChoice("cpu", (CPU,))
    if device == "cuda":
        if arithmetic == "int8":
            raise ValidationError("device 'cuda' runs the float model only: int8 arithmetic has no CUDA kernel in "
                                  "onnxruntime; use --embeddings local with --device cuda, or --device cpu")
        if CUDA not in available:
            raise ValidationError(
                f"device 'cuda' needs onnxruntime with CUDA (pip install onnxruntime-gpu) and a CUDA GPU; this "
                f"onnxruntime offers {', '.join(available) or 'no provider'}: use --device cpu or auto")
        return DeviceChoice("cuda", (CUDA, CPU))
    if CUDA in available and arithmetic != "int8":
        return DeviceChoice("cuda", (CUDA, CPU))
    return DeviceChoice("cpu", (CPU,))
