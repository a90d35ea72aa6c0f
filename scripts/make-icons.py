#!/usr/bin/env python3
"""Writes the app icons under static/icons/: the favicon's mark (a teal dot in a pale disc),
as PNGs that browsers install AntiDrift with.

Drawn here with the standard library alone (zlib and struct), so there is no image tool to
install and the licence is ours. Circles are antialiased by their exact distance to each
pixel's centre. `icon-<size>.png` is the mark on a transparent ground, for the dock and the
task bar; `maskable-<size>.png` fills the whole square (the launcher cuts its own shape) and
keeps the mark inside the central 80 % safe zone.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "static" / "icons"

# The stylesheet's light palette (static/style.css): --accent-soft, --accent, --bg.
SOFT = (0xE3, 0xEF, 0xED)
ACCENT = (0x2F, 0x6F, 0x6A)

Colour = tuple[int, int, int]


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    """An RGBA PNG: signature, IHDR, one IDAT, IEND."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def coverage(distance: float, radius: float) -> float:
    """How much of a pixel whose centre lies `distance` from the centre a disc covers."""
    return min(1.0, max(0.0, radius - distance + 0.5))


def draw(size: int, discs: list[tuple[float, Colour]], ground: Colour | None) -> bytes:
    """Concentric discs (radius as a share of the size, largest first) over a ground."""
    centre = size / 2
    rows = []
    for y in range(size):
        row = bytearray()
        for x in range(size):
            d = ((x + 0.5 - centre) ** 2 + (y + 0.5 - centre) ** 2) ** 0.5
            colour, alpha = (ground, 1.0) if ground else ((0, 0, 0), 0.0)
            for share, disc in discs:
                a = coverage(d, share * size)
                if a <= 0:
                    continue
                # "over" compositing of the disc onto what is below it
                out = a + alpha * (1 - a)
                colour = tuple(
                    round((c * a + b * alpha * (1 - a)) / out)
                    for c, b in zip(disc, colour, strict=True)
                )
                alpha = out
            row += bytes((*colour, round(alpha * 255)))
        rows.append(bytes(row))
    return png(size, size, rows)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    # favicon.svg: r=14 and r=7 in a 32 box.
    mark = [(14 / 32, SOFT), (7 / 32, ACCENT)]
    for size in (192, 512):
        (OUT / f"icon-{size}.png").write_bytes(draw(size, mark, None))
    # Maskable: the pale ground to the edges, the dot a little larger than in the mark.
    (OUT / "maskable-512.png").write_bytes(draw(512, [(0.25, ACCENT)], SOFT))
    for path in sorted(OUT.glob("*.png")):
        print(f"wrote {path.relative_to(OUT.parent.parent)} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
