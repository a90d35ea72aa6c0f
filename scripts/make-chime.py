#!/usr/bin/env python3
"""Writes static/chime.wav: the short two-note chime the page plays when a timebox runs out.

Generated rather than downloaded, so its licence is ours: two soft sine notes (E6, then B5)
with a quick attack and an exponential fade, 0.9 s, 16 kHz mono, 16-bit.
"""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

RATE = 16_000
NOTES = ((0.0, 1318.5), (0.18, 987.8))  # (start in seconds, frequency in Hz)
LENGTH = 0.9
VOLUME = 0.28


def sample(t: float) -> float:
    value = 0.0
    for start, freq in NOTES:
        if t < start:
            continue
        dt = t - start
        envelope = min(1.0, dt / 0.008) * math.exp(-dt * 5.5)
        # A quiet octave above gives it a bell's shimmer.
        value += envelope * (
            math.sin(2 * math.pi * freq * dt) + 0.25 * math.sin(4 * math.pi * freq * dt)
        )
    return value * VOLUME


def main() -> None:
    out = Path(__file__).resolve().parent.parent / "static" / "chime.wav"
    frames = bytearray()
    for n in range(int(RATE * LENGTH)):
        frames += struct.pack("<h", int(max(-1.0, min(1.0, sample(n / RATE))) * 32767))
    with wave.open(str(out), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(bytes(frames))
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
