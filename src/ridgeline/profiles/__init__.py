"""Profiles: measured rows (Nsight Compute tables; OpenCL timings and Oclgrind counts in
their own modules) turned into counts, intensities and labels."""

from ridgeline.profiles.ncu import SCHEMAS, LabelResult, detect_schema, label_table, row_counts

__all__ = ["SCHEMAS", "LabelResult", "detect_schema", "label_table", "row_counts"]
