"""Predictors behind one interface, and their registry."""

from ridgeline.predictors.base import (
    PREDICTOR_MODULES,
    PREDICTORS,
    Dim3,
    KernelRef,
    Launch,
    Prediction,
    Predictor,
    check_launch_limits,
    get_predictor,
    load_predictors,
    parse_dim3,
)

__all__ = [
    "PREDICTORS",
    "PREDICTOR_MODULES",
    "Dim3",
    "KernelRef",
    "Launch",
    "Prediction",
    "Predictor",
    "check_launch_limits",
    "get_predictor",
    "load_predictors",
    "parse_dim3",
]
