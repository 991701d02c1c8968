"""Predictors behind one interface, and their registry. The launch names (``KernelRef``,
``Launch``, ``Dim3``, ``parse_dim3``, ``check_launch_limits``) live in :mod:`ridgeline.launch`
and are re-exported here, as the interface takes them."""

from ridgeline.launch import Dim3, KernelRef, Launch, check_launch_limits, parse_dim3
from ridgeline.predictors.base import (
    PREDICTOR_MODULES,
    PREDICTORS,
    Prediction,
    Predictor,
    Query,
    get_predictor,
    load_predictors,
)

__all__ = [
    "PREDICTORS",
    "PREDICTOR_MODULES",
    "Dim3",
    "KernelRef",
    "Launch",
    "Prediction",
    "Predictor",
    "Query",
    "check_launch_limits",
    "get_predictor",
    "load_predictors",
    "parse_dim3",
]
