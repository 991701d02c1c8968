"""Makefile reading: defines from active branches only, with the Makefile's own defaults."""

from __future__ import annotations

from pathlib import Path

from ridgeline.counting.program import makefile_defines, makefile_fast_math, makefile_std

MAKEFILE = """\
CC = nvcc
DEBUG = no
OPTIMIZE  = yes
GPU ?= yes
BLOCK = 256
CFLAGS := -std=c++17 -DALWAYS -DBS=$(BLOCK)

ifeq ($(DEBUG),yes)
  CFLAGS += -g -DDEBUG
endif
ifeq ($(OPTIMIZE),yes)
  CFLAGS += -O3 -DFAST
else
  CFLAGS += -DSLOW
endif
ifneq ($(GPU), yes)
  CFLAGS += -DHOST_ONLY
else ifeq ($(CC),nvcc)
  CFLAGS += -DNVCC=1
else
  CFLAGS += -DOTHER
endif
ifdef UNSET_VAR
  CFLAGS += -DNOPE
endif
ifeq "$(CC)" "nvcc"
  CFLAGS += -DQUOTED
endif
"""


def test_defines_follow_makefile_conditionals(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    assert makefile_defines(tmp_path) == ["ALWAYS", "BS=256", "FAST", "NVCC=1", "QUOTED"]
    assert makefile_std(tmp_path) == "c++17"


def test_fast_math_only_from_an_active_nvcc_flag(tmp_path: Path) -> None:
    mk = tmp_path / "Makefile"
    mk.write_text("CC = nvcc\nOPTIMIZE = yes\nifeq ($(OPTIMIZE),yes)\n"
                  "  CFLAGS += -O3 -use_fast_math\nendif\n")
    assert makefile_fast_math(tmp_path)
    mk.write_text("CC = nvcc\nOPTIMIZE = no\nifeq ($(OPTIMIZE),yes)\n"
                  "  CFLAGS += -O3 --use_fast_math\nendif\n")
    assert not makefile_fast_math(tmp_path)
    # an OpenMP port's -ffast-math is not taken: the offload compiler kept accurate math
    mk.write_text("CC = clang++\nCFLAGS += -O3 -ffast-math -fopenmp\n")
    assert not makefile_fast_math(tmp_path)
