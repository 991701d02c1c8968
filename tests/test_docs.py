"""The developer docs keep up with the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ridgeline"


def _layout_section() -> str:
    text = (ROOT / "docs" / "DEVELOPING.md").read_text()
    m = re.search(r"^## Layout\n(.*?)^## ", text, re.S | re.M)
    assert m, "docs/DEVELOPING.md has no '## Layout' section"
    return m.group(1)


def test_every_subpackage_is_named_in_the_developing_layout() -> None:
    layout = _layout_section()
    subdirs = sorted(p.name for p in PACKAGE.iterdir()
                     if p.is_dir() and not p.name.startswith((".", "__")))
    assert len(subdirs) >= 15
    missing = [d for d in subdirs if not re.search(rf"^\s+{re.escape(d)}/", layout, re.M)]
    assert not missing, (f"docs/DEVELOPING.md's layout does not name {missing}: add a line "
                         "for each (what it holds)")


def test_the_developing_layout_names_no_package_that_is_gone() -> None:
    layout = _layout_section()
    block = layout[layout.index("src/ridgeline/"):layout.index("tests/")]
    named = re.findall(r"^  ([a-z_]+)/", block, re.M)
    gone = [n for n in named if not (PACKAGE / n).is_dir()]
    assert not gone, f"docs/DEVELOPING.md's layout names {gone}, which src/ridgeline lacks"
