"""GPU catalog, roofline math and label rules."""

from ridgeline.hardware.achievable import KINDS as ACHIEVABLE_KINDS
from ridgeline.hardware.achievable import Roof
from ridgeline.hardware.catalog import GPU, PRECISIONS, Catalog, get_gpu, load_catalog
from ridgeline.hardware.roofline import (
    Counts,
    attainable,
    intensities,
    ridge_point,
    time_lower_bound,
)
from ridgeline.hardware.rules import (
    BANDWIDTH,
    COMPUTE,
    Label,
    LabelRule,
    get_rule,
    load_rules,
    rule_names,
)

__all__ = [
    "ACHIEVABLE_KINDS",
    "Roof",
    "GPU",
    "PRECISIONS",
    "Catalog",
    "get_gpu",
    "load_catalog",
    "Counts",
    "attainable",
    "intensities",
    "ridge_point",
    "time_lower_bound",
    "BANDWIDTH",
    "COMPUTE",
    "Label",
    "LabelRule",
    "get_rule",
    "load_rules",
    "rule_names",
]
