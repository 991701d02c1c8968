import math

import pytest

from ridgeline.evaluation import classification, provenance, regression


def test_classification_counts_missing_answers_wrong():
    m = classification(["Compute", "Bandwidth", "Compute", "Bandwidth"],
                       ["Compute", "Bandwidth", None, "Compute"])
    assert m["accuracy"] == 0.5
    assert m["n_unanswered"] == 1
    assert m["confusion"] == [[1, 1, 0], [0, 1, 1]]


def test_perfect_and_inverse_mcc():
    y = ["Compute", "Bandwidth"] * 5
    assert classification(y, y)["mcc"] == pytest.approx(1.0)
    inv = ["Bandwidth" if v == "Compute" else "Compute" for v in y]
    assert classification(y, inv)["mcc"] == pytest.approx(-1.0)


def test_regression_metrics_are_fractions():
    m = regression([100, 100, 100, 100], [110, 50, 300, 100])
    assert m["mape"] == pytest.approx((0.1 + 0.5 + 2.0 + 0) / 4)
    assert m["median_ape"] == pytest.approx(0.3)
    assert m["within_10pct"] == pytest.approx(0.5)
    assert m["within_25pct"] == pytest.approx(0.5)
    assert m["within_2x"] == pytest.approx(0.75)
    assert m["mean_abs_log10"] == pytest.approx(
        (math.log10(1.1) + math.log10(2) + math.log10(3)) / 4)


def test_regression_excludes_zero_truth_and_handles_zero_predictions():
    m = regression([0, 10, float("nan")], [1, 0, 3])
    assert m["n"] == 1 and m["n_excluded"] == 2
    assert m["within_2x"] == 0.0 and m["mape"] == 1.0


def test_provenance_has_version_and_git():
    p = provenance(dataset="paper-a", seed=4839)
    assert p["ridgeline_version"] and p["seed"] == 4839 and "git" in p
