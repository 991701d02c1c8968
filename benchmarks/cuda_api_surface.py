"""How much of the documented CUDA surface the CPU runtime covers: per group of
``src/ridgeline/data/cuda_api`` (the documented lists), the entries documented, those the
runtime declares and that compile through the counting toolchain, those with a sample value
checked, and those that give it.

    python benchmarks/cuda_api_surface.py [--groups atomics fp8 ...] [--json OUT]

One program per group is built and run (``ridgeline.counting.api_surface.check_group``; an
entry that does not compile is named and dropped). Prints a Markdown table and the entries
that fall short; with ``--json`` also writes the rows with the package version and git hash.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

from ridgeline import __version__
from ridgeline.counting.api_surface import check_group, coverage_rows, load_groups


def _git_hash() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", nargs="*", help="groups to check (default: all)")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    a = ap.parse_args()
    groups = load_groups(a.groups or None)
    t0 = time.monotonic()
    results = {g.name: check_group(g) for g in groups}
    rows = coverage_rows(groups, results)
    cols = ["group", "documented", "covered", "with sample", "correct"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")
    total = {c: sum(int(r[c]) for r in rows) for c in cols[1:]}
    print("| all | " + " | ".join(str(total[c]) for c in cols[1:]) + " |")
    for g in groups:
        for e in g.entries:
            if not e.covered:
                print(f"not covered: {g.name}: {e.key}" + (f" ({e.note})" if e.note else ""))
        for r in results[g.name]:
            if not r.correct:
                print(f"short: {g.name}: {r.entry.key}: {r.detail}")
    print(f"\n{time.monotonic() - t0:.0f} s; ridgeline {__version__} ({_git_hash()}); "
          f"python benchmarks/cuda_api_surface.py" + (f" --groups {' '.join(a.groups)}"
                                                      if a.groups else ""))
    if a.json:
        a.json.write_text(json.dumps({"version": __version__, "git": _git_hash(),
                                      "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
