"""The package graph of ``ridgeline``: modules and lines per package, the imports between
packages that run against the layers contract, and the packages held in an import cycle.

    python tools/package_graph.py            # a Markdown report
    python tools/package_graph.py --json     # the same figures as JSON

Run from the repository root with ``src`` first on ``PYTHONPATH`` (as ``lint-imports``). The
imports are read by grimp, the graph builder of import-linter, so every import counts: at the
top of a module or inside a function, direct only (an indirect chain is made of direct ones).
The layer order is the contract's in ``pyproject.toml`` ([tool.importlinter]); an import is
*upward* when its target's layer is above its source's, or beside it in a layer of
independent siblings (``"a | b"``). The ignore list is not consulted: what is counted is what
the code does. A *package* is a direct child of ``ridgeline`` (a subpackage, or a top-level
module such as ``errors``); lines are physical lines of its ``.py`` files.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "ridgeline"


def _layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = config["contracts"][0]
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def sizes() -> dict[str, tuple[int, int]]:
    """Package -> (modules, lines) of its ``.py`` files."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).parts[0].removesuffix(".py")
        out[name][0] += 1
        out[name][1] += len(path.read_text().splitlines())
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def _rank(layers: list[list[str]]) -> dict[str, int]:
    """Package -> floor (0 = ground floor)."""
    return {name: len(layers) - 1 - i for i, layer in enumerate(layers) for name in layer}


def _sibling(rank: dict[str, int], a: str, b: str) -> bool:
    return a != b and rank.get(a) == rank.get(b) is not None


def _in_function(path: Path, line: int) -> bool:
    lines = path.read_text().splitlines()
    return 0 < line <= len(lines) and lines[line - 1][:1].isspace()


def _module_file(module: str) -> Path:
    rel = Path(*module.split(".")[1:])
    pkg = SRC / rel / "__init__.py"
    return pkg if pkg.exists() else (SRC / rel).with_suffix(".py")


def upward_imports() -> list[dict[str, Any]]:
    """Every module import from a lower (or sibling) package to a higher one."""
    import grimp

    rank = _rank(_layers())
    graph = grimp.build_graph("ridgeline", cache_dir=None)
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            src, dst = _package(importer), _package(imported)
            if src == dst or src not in rank or dst not in rank:
                continue
            if rank[dst] <= rank[src] and not _sibling(rank, src, dst):
                continue
            details = graph.get_import_details(importer=importer, imported=imported)
            lines = sorted({d["line_number"] for d in details})
            path = _module_file(importer)
            inside = sum(_in_function(path, n) for n in lines)
            found.append({"importer": importer, "imported": imported, "pair": f"{src} -> {dst}",
                          "statements": len(lines), "inside_functions": inside})
    return found


def package_cycles() -> list[list[str]]:
    """Strongly connected groups of packages (more than one package) in the import graph."""
    import grimp

    graph = grimp.build_graph("ridgeline", cache_dir=None)
    edges: dict[str, set[str]] = defaultdict(set)
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            a, b = _package(importer), _package(imported)
            if a != b:
                edges[a].add(b)
    return [sorted(c) for c in _scc(edges) if len(c) > 1]


def _scc(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            visit(v)
    return out


def report() -> dict[str, Any]:
    ups = upward_imports()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {"layers": [" | ".join(layer) for layer in _layers()],
            "packages": {k: {"modules": m, "lines": n} for k, (m, n) in sizes().items()},
            "upward": ups,
            "ignored_in_contract": len(config["contracts"][0].get("ignore_imports", [])),
            "cycles": package_cycles()}


def markdown(data: dict[str, Any]) -> str:
    rank = _rank([layer.split(" | ") for layer in data["layers"]])
    rows = ["| package | floor | modules | lines |", "|---|---:|---:|---:|"]
    pkgs = data["packages"]
    for name in sorted(pkgs, key=lambda k: (-rank.get(k, -1), k)):
        floor = rank.get(name, "-")
        rows.append(f"| {name} | {floor} | {pkgs[name]['modules']} | {pkgs[name]['lines']} |")
    total_m = sum(p["modules"] for p in pkgs.values())
    total_l = sum(p["lines"] for p in pkgs.values())
    rows.append(f"| **total** | | {total_m} | {total_l} |")
    ups = data["upward"]
    pairs: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for u in ups:
        pairs[u["pair"]][0] += 1
        pairs[u["pair"]][1] += u["statements"]
        pairs[u["pair"]][2] += u["inside_functions"]
    stmts = sum(u["statements"] for u in ups)
    inside = sum(u["inside_functions"] for u in ups)
    out = ["Layers, top floor first: " + ", ".join(data["layers"]), "", *rows, "",
           f"Upward imports: {len(ups)} module imports in {len(pairs)} package pairs, "
           f"{stmts} import statements ({inside} inside functions); "
           f"the contract ignores {data['ignored_in_contract']}.", ""]
    for pair, (n, s, i) in sorted(pairs.items()):
        out.append(f"- {pair}: {n} ({s} statements, {i} inside functions)")
    for u in ups:
        out.append(f"  - {u['importer']} -> {u['imported']}")
    cycles = data["cycles"]
    out += ["", "Packages in an import cycle: "
            + ("; ".join(", ".join(c) for c in cycles) if cycles else "none")]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    data = report()
    print(json.dumps(data, indent=1) if args.json else markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
