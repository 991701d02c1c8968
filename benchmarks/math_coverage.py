"""How many functions of the CUDA Math API lists the shipped math table covers, per
architecture and build (data/math/functions.csv against data/math/flops.csv).

    python benchmarks/math_coverage.py
"""

from __future__ import annotations

from ridgeline.counting.mathops import (
    MATH_BUILDS,
    documented_functions,
    math_table,
    non_flops,
    shipped_archs,
)


def main() -> None:
    names = [n for n, _, _ in documented_functions()]
    for arch in shipped_archs():
        for build in MATH_BUILDS:
            table = math_table(arch, build)
            measured = sum(n in table and n not in non_flops() for n in names)
            zero = sum(n in non_flops() for n in names)
            print(f"{arch} {build:7s}: {measured + zero} of {len(names)} documented functions "
                  f"covered ({measured} measured from SASS, {zero} named non-FLOPs)")


if __name__ == "__main__":
    main()
