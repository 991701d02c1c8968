"""The sealed slice is a fixed, salted-hash rule over program names."""

import hashlib

import pandas as pd
import pytest

from ridgeline.datasets import is_sealed, sealed_mask, split_sealed
from ridgeline.datasets.sealed import SEALED_MODULUS, SEALED_SALT
from ridgeline.errors import SchemaError


def test_rule_is_the_documented_hash() -> None:
    for name in ["haccmk", "saxpy", "lulesh", "x"]:
        digest = hashlib.sha256(f"{SEALED_SALT}:{name}".encode()).hexdigest()
        assert is_sealed(name) == (int(digest[:8], 16) % SEALED_MODULUS == 0)


def test_suffix_does_not_change_the_verdict() -> None:
    for name in ["haccmk", "softmax", "bfs", "jaccard", "matrix-rotate"]:
        assert is_sealed(name) == is_sealed(f"{name}-cuda") == is_sealed(f"{name}-omp")


def test_about_a_fifth_of_many_names_is_sealed() -> None:
    names = [f"program{i}" for i in range(5000)]
    share = sum(map(is_sealed, names)) / len(names)
    assert 0.18 < share < 0.22


def test_split_keeps_every_row_once() -> None:
    df = pd.DataFrame({"program": [f"p{i % 40}" for i in range(200)], "v": range(200)})
    dev, sealed = split_sealed(df)
    assert len(dev) + len(sealed) == len(df)
    assert set(dev.index).isdisjoint(sealed.index)
    assert set(dev["program"]).isdisjoint(sealed["program"])
    assert sealed_mask(df).sum() == len(sealed)


def test_missing_column_is_a_clear_error() -> None:
    with pytest.raises(SchemaError, match="no column 'program'"):
        sealed_mask(pd.DataFrame({"source": ["a"]}))
