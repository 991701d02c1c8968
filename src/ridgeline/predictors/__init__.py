"""Predictors behind one interface, and their registry."""

from ridgeline.predictors.base import (
    PREDICTORS,
    Dim3,
    KernelRef,
    Launch,
    Prediction,
    Predictor,
    parse_dim3,
)

__all__ = ["PREDICTORS", "Dim3", "KernelRef", "Launch", "Prediction", "Predictor", "parse_dim3"]
