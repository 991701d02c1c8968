"""Input files the profiled HeCBench programs read but the fetched snapshot lacks.

The snapshot of gpuFLOPBench leaves out files of 4 MiB and more, and the programs' shared
`src/data` folder is not in it at all, so the counting benchmark could not run bfs, kmeans,
hotspot, hotspot3D, srad, nn, ced and recursiveGaussian-omp ("missing-input"). This script
puts in their place:

- the Rodinia files that are small enough to be in a fetched Rodinia snapshot, copied as they
  are (`srad/image.pgm`, `nn/cane4_*.db`);
- for the rest, files of the same format and the same sizes as the profiled ones, with values
  drawn from a fixed seed. The profiled launch sizes fix those sizes (bfs: 3907 blocks of 256
  threads, 1,000,000 nodes; kmeans: 1930 blocks, 494,020 points of 34 features; ced: a 39 x 22
  grid of 16 x 16 tiles, 354 x 626 frames; recursiveGaussian: a 120 x 68 grid of 16 x 16
  tiles, a 1920 x 1080 image). Which launches a program makes and how much work each does
  depend on the sizes; where they also depend on the values (the first bfs level
  visits one node and its edges; ced's hysteresis branches on pixel values), the counts are
  those of these values, not of the lost originals.

Every file written is listed in `<src>/data/INPUTS.json` with where it came from. Files that
are there already are kept, unless they are git-lfs pointers or empty.

  python benchmarks/hecbench_inputs.py [--src external/gpuFLOPBench/src]
      [--rodinia /work/.mirror/Munksgaard+rodinia/repo] [--only bfs,kmeans]

`--rodinia` is the git folder of a Rodinia snapshot brought in with the library's fetch
(github:Munksgaard/rodinia); without it the copied files are skipped and said so.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SEED = 20251127


def _needed(path: Path) -> bool:
    if not path.exists() or path.stat().st_size == 0:
        return True
    if path.stat().st_size > 512:
        return False
    return path.read_bytes().startswith(b"version https://git-lfs")


@contextmanager
def _replacing(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Write *path* through a ``.part`` file renamed over it at the end, so a killed run
    leaves no half-written input that a later run would keep."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with tmp.open(mode) as f:
        yield f
    tmp.replace(path)


def bfs_graph(path: Path, nodes: int = 1_000_000, seed: int = SEED) -> str:
    """Rodinia's BFS text format: node count; per node "first-edge degree"; the source node;
    the edge count; per edge "destination weight". Each node gets 2-4 undirected edges to
    uniform random nodes (so about 6 per node, as in the graph's name), weights 1-10."""
    rng = np.random.default_rng(seed)
    own = rng.integers(2, 5, size=nodes)
    src = np.repeat(np.arange(nodes), own)
    dst = rng.integers(0, nodes, size=src.size)
    # each edge is stored at both ends
    a = np.concatenate([src, dst])
    b = np.concatenate([dst, src])
    w = rng.integers(1, 11, size=src.size)
    w = np.concatenate([w, w])
    order = np.argsort(a, kind="stable")
    b, w = b[order], w[order]
    degree = np.bincount(a, minlength=nodes)
    first = np.concatenate([[0], np.cumsum(degree)[:-1]])
    with _replacing(path) as f:
        f.write(f"{nodes}\n")
        np.savetxt(f, np.column_stack([first, degree]), fmt="%d")
        f.write(f"\n0\n\n{b.size}\n")
        np.savetxt(f, np.column_stack([b, w]), fmt="%d")
    return f"synthetic: {nodes} nodes, {b.size} edge entries, source 0, seed {seed}"


def kmeans_points(path: Path, points: int = 494_020, features: int = 34,
                  seed: int = SEED) -> str:
    """Rodinia's kmeans text format: per point "id f1 ... fN", space separated."""
    rng = np.random.default_rng(seed)
    x = rng.gamma(0.5, 2.0, size=(points, features)).astype(np.float32)
    with _replacing(path) as f:
        np.savetxt(f, np.column_stack([np.arange(1, points + 1), x]),
                   fmt=["%d"] + ["%.2f"] * features)
    return f"synthetic: {points} points x {features} features, seed {seed}"


def hotspot_grid(path: Path, cells: int, kind: str, seed: int = SEED) -> str:
    """Rodinia's hotspot text format: one value per line, row after row (layer after layer
    for hotspot3D). Temperatures around 324-336 K, power densities up to 0.005."""
    rng = np.random.default_rng(seed + (0 if kind == "temp" else 1))
    v = (323.0 + 13.0 * rng.random(cells)) if kind == "temp" else 0.005 * rng.random(cells)
    with _replacing(path) as f:
        np.savetxt(f, v, fmt="%.6f")
    return f"synthetic: {cells} {kind} values, seed {seed}"


def ced_frames(folder: Path, frames: int = 110, rows: int = 354, cols: int = 626,
               seed: int = SEED) -> str:
    """The Chai CED frame format: rows, cols, then the grey values row after row. The frames
    are a picture rather than noise (shaded discs and bars on a gradient, moving from frame to
    frame, with a little grain), so the edge kernels' branches see edges where a video has
    them."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:rows, 0:cols]
    shapes = [(rng.uniform(0, rows), rng.uniform(0, cols), rng.uniform(15, 70),
               rng.uniform(60, 200)) for _ in range(12)]
    for t in range(frames):
        img = 40.0 + 80.0 * xx / cols + 30.0 * yy / rows
        for k, (cy, cx, r, level) in enumerate(shapes):
            dy = 0.8 * t * np.sin(k)
            dx = 1.1 * t * np.cos(k)
            img[(yy - cy - dy) ** 2 + (xx - cx - dx) ** 2 < r * r] = level
        img[(xx // 47) % 5 == 0] += 25.0
        img += rng.normal(0.0, 3.0, size=img.shape)
        grey = np.clip(img, 0, 255).astype(np.uint8)
        body = "\n".join(" ".join(map(str, row)) for row in grey)
        with _replacing(folder / f"{t}.txt") as f:
            f.write(f"{rows}\n{cols}\n{body}\n")
    return f"synthetic: {frames} frames of {rows} x {cols}, seed {seed}"


def ppm_image(path: Path, width: int = 1920, height: int = 1080, seed: int = SEED) -> str:
    """A binary PPM (P6, 8-bit RGB): recursiveGaussian's StoneRGB.ppm, whose size the
    profiled transpose grid (120 x 68 tiles of 16 x 16) gives as 1920 x 1080."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    base = 96.0 + 64.0 * np.sin(xx / 37.0) * np.cos(yy / 53.0)
    rgb = np.stack([base, base * 0.8 + 20.0, base * 0.6 + 40.0], axis=-1)
    rgb += rng.normal(0.0, 8.0, size=rgb.shape)
    with _replacing(path, "wb") as f:
        f.write(f"P6\n{width} {height}\n255\n".encode()
                + np.clip(rgb, 0, 255).astype(np.uint8).tobytes())
    return f"synthetic: {width} x {height} RGB, seed {seed}"


def _from_rodinia(rodinia: Path | None, member: str) -> Callable[[Path], str]:
    def copy(path: Path) -> str:
        if rodinia is None:
            raise LookupError("no --rodinia snapshot given")
        got = subprocess.run(["git", f"--git-dir={rodinia}", "cat-file", "blob",
                              f"HEAD:{member}"], capture_output=True)
        if got.returncode != 0 or got.stdout.startswith(b"version https://git-lfs"):
            raise LookupError(f"{member} is not in the Rodinia snapshot {rodinia}")
        with _replacing(path, "wb") as f:
            f.write(got.stdout)
        return f"copied from Rodinia {member}"
    return copy


def inputs(src: Path, rodinia: Path | None) -> dict[str, list[tuple[Path, Callable[[Path], str]]]]:
    """Per program family: the files to make and how."""
    data = src / "data"
    return {
        "bfs": [(data / "bfs" / "graph1MW_6.txt", bfs_graph)],
        "kmeans": [(data / "kmeans" / "kdd_cup", kmeans_points)],
        "hotspot": [(data / "hotspot" / "temp_512", lambda p: hotspot_grid(p, 512 * 512, "temp")),
                    (data / "hotspot" / "power_512",
                     lambda p: hotspot_grid(p, 512 * 512, "power"))],
        "hotspot3D": [(data / "hotspot3D" / "temp_512x8",
                       lambda p: hotspot_grid(p, 512 * 512 * 8, "temp")),
                      (data / "hotspot3D" / "power_512x8",
                       lambda p: hotspot_grid(p, 512 * 512 * 8, "power"))],
        "srad": [(data / "srad" / "image.pgm", _from_rodinia(rodinia, "data/srad/image.pgm"))],
        "nn": [(data / "nn" / f"cane4_{i}.db", _from_rodinia(rodinia, f"data/nn/cane4_{i}.db"))
               for i in range(4)],
        "ced": [(src / "ced-cuda" / "input" / "peppa" / "0.txt",
                 lambda p: ced_frames(p.parent))],
        "recursiveGaussian": [(src / "recursiveGaussian-cuda" / "StoneRGB.ppm", ppm_image)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=ROOT / "external" / "gpuFLOPBench" / "src")
    ap.add_argument("--rodinia", type=Path, default=None,
                    help="git folder of a fetched Rodinia snapshot (for srad's and nn's files)")
    ap.add_argument("--only", default="", help="comma-separated program families")
    args = ap.parse_args(argv)
    if not args.src.is_dir():
        print(f"--src: {args.src} is not a folder (export the HeCBench snapshot first)",
              file=sys.stderr)
        return 2
    plan = inputs(args.src, args.rodinia)
    only = [s for s in args.only.split(",") if s]
    unknown = [s for s in only if s not in plan]
    if unknown:
        print(f"--only: unknown {', '.join(unknown)} (known: {', '.join(plan)})",
              file=sys.stderr)
        return 2
    manifest_path = args.src / "data" / "INPUTS.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    failed = 0
    for family, files in plan.items():
        if only and family not in only:
            continue
        for path, make in files:
            rel = str(path.relative_to(args.src))
            if not _needed(path):
                print(f"{family}: {rel} is there")
                continue
            try:
                how = make(path)
            except (LookupError, OSError) as e:
                failed += 1
                print(f"{family}: {rel} not made: {e}", file=sys.stderr)
                continue
            manifest[rel] = how
            print(f"{family}: {rel}: {how}", flush=True)
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
