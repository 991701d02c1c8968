"""Makefile reading: defines from active branches only, with the Makefile's own defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.counting.program import (
    compile_commands_defines,
    default_run_args,
    makefile_defines,
    makefile_fast_math,
    makefile_host_openmp,
    makefile_nvcc_flags,
    makefile_run_command,
    makefile_std,
    sources_of,
)

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


def test_nvcc_language_switches_from_active_lines(tmp_path: Path) -> None:
    # what a kernel's own compile needs (hausdorff's kernels call std::min, a constexpr
    # host function); debug and optimisation flags are left to the code-size compile
    (tmp_path / "Makefile").write_text(
        "CC = nvcc\nDEBUG = no\nCFLAGS := -std=c++14 -expt-relaxed-constexpr -O3\n"
        "ifeq ($(DEBUG),yes)\n  CFLAGS += --extended-lambda -G\nendif\n"
        "CFLAGS += --expt-relaxed-constexpr --expt-extended-lambda\n")
    assert makefile_nvcc_flags(tmp_path) == ["--expt-relaxed-constexpr",
                                             "--expt-extended-lambda"]


def test_sources_from_the_link_rule_and_a_sibling_port(tmp_path: Path) -> None:
    # no source/obj list: the program's link rule names the objects, one built from a
    # sub-folder (divergence-cuda's timer/timer.cpp)
    cu = tmp_path / "div-cuda"
    (cu / "timer").mkdir(parents=True)
    for f in ("div.cu", "timer/timer.cpp", "unused.cu"):
        (cu / f).write_text("int x;\n")
    (cu / "Makefile").write_text(
        "program = div\n$(program): div.o timer.o\n\t$(CC) $^ -o $@\n"
        "div.o: div.cu div.hpp\n\t$(CC) -c $<\ntimer.o: timer/timer.cpp timer/timer.hpp\n"
        "\t$(CC) -c $< -o $@\n")
    assert sources_of(cu, "cuda") == [(cu / "div.cu").resolve(), (cu / "timer/timer.cpp").resolve()]
    # an OpenMP port whose objects come from its CUDA sibling's .cu files (-x c++)
    omp = tmp_path / "div-omp"
    omp.mkdir()
    (omp / "sim.cpp").write_text("int y;\n")
    (omp / "Makefile").write_text(
        "obj = main.o sim.o\n$(program): $(obj)\n\t$(CC) $(obj) -o $@\n"
        "main.o: ../div-cuda/div.cu\n\t$(CC) -x c++ -c $< -o $@\n"
        "sim.o: sim.cpp\n\t$(CC) -x c++ -c $< -o $@\n")
    assert sources_of(omp, "omp") == [(cu / "div.cu").resolve(), (omp / "sim.cpp").resolve()]
    # an object without a source to be found: every source file of the folder
    (omp / "Makefile").write_text("obj = main.o gone.o sim.o\nmain.o: ../div-cuda/div.cu\n")
    assert sources_of(omp, "omp") == [omp / "sim.cpp"]


def test_object_rules_name_their_sources_through_makefile_variables(tmp_path: Path) -> None:
    # boxfilter-cuda: ``shrUtils.o : $(SPATH)/shrUtils.cpp`` with SPATH = ../boxfilter-sycl
    _program(tmp_path / "bf-sycl", ("shrUtils.cpp", "reference.cpp"), "")
    bf = _program(tmp_path / "bf-cuda", ("main.cu",),
                  "SPATH = ../bf-sycl\nobj = main.o shrUtils.o reference.o\n"
                  "main: $(obj)\n\tnvcc $(obj) -o $@\n"
                  "main.o: main.cu $(SPATH)/shrUtils.h\n\tnvcc -c $< -o $@\n"
                  "shrUtils.o : $(SPATH)/shrUtils.cpp $(SPATH)/shrUtils.h\n\tnvcc -c $< -o $@\n"
                  "reference.o : $(SPATH)/reference.cpp\n\tnvcc -c $< -o $@\n")
    assert [p.relative_to(tmp_path.resolve()).as_posix() for p in sources_of(bf, "cuda")] == \
        ["bf-cuda/main.cu", "bf-sycl/shrUtils.cpp", "bf-sycl/reference.cpp"]


def _relative(prog: Path) -> list[str]:
    """The CUDA sources of *prog*, relative to it."""
    return [p.relative_to(prog.resolve()).as_posix() for p in sources_of(prog, "cuda")]


def _program(root: Path, files: tuple[str, ...], makefile: str) -> Path:
    """A program folder with *files* (sub-folders made as needed) and its Makefile."""
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("int x;\n")
    (root / "Makefile").write_text(makefile)
    return root


def test_sources_from_the_default_goal_over_continued_lines(tmp_path: Path) -> None:
    # heartwall-cuda: no source/obj list and no $(program) rule; the first rule names the
    # executable itself and its objects over continued lines, from sub-folders
    hw = _program(
        tmp_path / "hw-cuda",
        ("main.cu", "kernel/kernel.cu", "util/timer/timer.c", "unused.cu"),
        "CC = nvcc\nheartwall:\t./main.o \\\n\t./kernel/kernel.o \\\n"
        "\t./util/timer/timer.o\n\t$(CC) ./main.o ./kernel/kernel.o -o heartwall\n"
        "./main.o: ./main.h ./main.cu\n\t$(CC) -c ./main.cu\n"
        "./kernel/kernel.o: ./kernel/kernel.cu\n\t$(CC) -c ./kernel/kernel.cu\n"
        "./util/timer/timer.o: ./util/timer/timer.c\n\tgcc -c $<\n")
    assert _relative(hw) == ["main.cu", "kernel/kernel.cu", "util/timer/timer.c"]
    # a first rule that is not a link (all: the program): every source of the folder
    (hw / "Makefile").write_text("all: heartwall\nheartwall: main.cu\n\tnvcc $< -o $@\n")
    assert [p.name for p in sources_of(hw, "cuda")] == ["main.cu", "unused.cu"]


def test_host_openmp_from_the_makefile(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("CFLAGS := -std=c++14 -Xcompiler -fopenmp -I../openmp-omp\n")
    assert makefile_host_openmp(tmp_path)
    (tmp_path / "Makefile").write_text("CFLAGS := -I../openmp-omp\n# -fopenmp\n")
    assert not makefile_host_openmp(tmp_path)


def test_sources_in_subfolders_as_the_makefile_gathers_them(tmp_path: Path) -> None:
    # nothing in the folder itself: $(wildcard $(SRC_DIR)/*.cu) lists (ans-cuda's src/)
    ans = tmp_path / "ans-cuda"
    (ans / "src").mkdir(parents=True)
    (ans / "include").mkdir()
    for f in ("src/main.cu", "src/table.cc", "src/decode.cu", "include/util.cc"):
        (ans / f).write_text("int x;\n")
    (ans / "Makefile").write_text(
        "SRC_DIR = src\nSRC_FILES := $(wildcard $(SRC_DIR)/*.cc)\n"
        "CU_SRC_FILES := $(wildcard $(SRC_DIR)/*.cu)\n")
    assert _relative(ans) == ["src/table.cc", "src/decode.cu", "src/main.cu"]
    # $(shell find DIR -name '*.ext') over two folders, recursively (minimap2-cuda)
    mm = _program(
        tmp_path / "mm-cuda",
        ("src/main.cpp", "device/k.cu", "device/deep/k2.cu", "device/note.txt"),
        "SRC_PATH = src\nCUDA_PATH = device\nSRC_EXT = cpp\n"
        "SOURCES = $(shell find $(SRC_PATH) -name '*.$(SRC_EXT)' | sort)\n"
        "CUDA_SOURCES = $(shell find $(CUDA_PATH) -name '*.cu' | sort)\n"
        "MISSING = $(shell find build -name '*.cu')\n")
    assert _relative(mm) == ["src/main.cpp", "device/deep/k2.cu", "device/k.cu"]
    # a source in the folder itself: the subfolders are not searched
    (mm / "top.cu").write_text("int y;\n")
    assert sources_of(mm, "cuda") == [mm / "top.cu"]


def test_compile_commands_definitions(tmp_path: Path) -> None:
    import json

    cc = tmp_path / "compile_commands.json"
    cc.write_text(json.dumps([
        {"file": "/h/src/md-cuda/main.cu",
         "command": "clang++ -I/h/src/md-cuda -O3 -DNDEBUG -D__NVCC__ -D N=4 -x cuda -c x"},
        {"file": "/h/src/md-cuda/util.cu", "arguments": ["clang++", "-DNDEBUG", "-DFAST"]},
        {"file": "/h/src/md-omp/main.cpp", "command": "clang++ -Dreal=float -c main.cpp"},
        {"file": "/h/src/plain-cuda/main.cu", "command": "clang++ -O3 -c main.cu"},
    ]))
    # in order, each once; compiler-reserved names left out
    assert compile_commands_defines(cc, "md-cuda") == ["NDEBUG", "N=4", "FAST"]
    assert compile_commands_defines(cc, "md-omp") == ["real=float"]
    assert compile_commands_defines(cc, "plain-cuda") == []  # built, with no definitions
    assert compile_commands_defines(cc, "other-cuda") is None  # not in this build
    cc.write_text("{not json")
    with pytest.raises(ValueError, match="not a readable compile_commands.json"):
        compile_commands_defines(cc, "md-cuda")


def test_compile_commands_fast_math(tmp_path: Path) -> None:
    import json

    from ridgeline.counting.program import compile_commands_fast_math

    cc = tmp_path / "compile_commands.json"
    cc.write_text(json.dumps([
        {"file": "/src/bs-cuda/main.cu", "command": "nvcc -O3 --use_fast_math -c main.cu"},
        {"file": "/src/other-cuda/main.cu", "arguments": ["nvcc", "-O3", "-c", "main.cu"]},
    ]))
    assert compile_commands_fast_math(cc, "bs-cuda")
    assert not compile_commands_fast_math(cc, "other-cuda")
    assert not compile_commands_fast_math(cc, "absent-cuda")


def test_default_arguments_from_the_makefile_then_the_run_script(tmp_path: Path) -> None:
    (tmp_path / "run").write_text(
        "# There are three datasets:\n"
        "bin/other ../data/x.txt\n"
        "./hotspot 512 2 2 ../../data/temp_512 'out file.txt' > result.txt # first\n"
        "./hotspot 1024 2 2 ../../data/temp_1024 out.txt\n")
    assert default_run_args(tmp_path) == ["512", "2", "2", "../../data/temp_512",
                                          "out file.txt"]
    (tmp_path / "Makefile").write_text("program = main\nrun: $(program)\n"
                                       "\t./$(program) 100 7\n")
    assert default_run_args(tmp_path) == ["100", "7"]


def test_no_default_arguments_without_a_command_of_the_folder(tmp_path: Path) -> None:
    assert default_run_args(tmp_path) == []
    (tmp_path / "run.sh").write_text("cuda/lud_cuda -s 256 -v\n./ | ls\n")
    assert default_run_args(tmp_path) == []
    (tmp_path / "run.sh").write_text("./pathfinder 100000 100 20|tee log\n")
    assert default_run_args(tmp_path) == ["100000", "100", "20"]
    # a run target that starts the program without arguments is a command: no script
    (tmp_path / "Makefile").write_text("program = main\nrun: $(program)\n"
                                       "\t$(LAUNCHER) ./$(program)\n")
    assert default_run_args(tmp_path) == []


@pytest.mark.parametrize(("recipe", "args"), [
    # a comment line of any indent inside the recipe, a commented-out command
    ("        # compression\n\t#$(LAUNCHER) ./$(program) 9\n"
     "\t$(LAUNCHER) ./$(program) msg.out 1\n", ["msg.out", "1"]),
    # another command first; the program under make variables; a redirection
    ("\t$(LAUNCHER) ulimit -s unlimited\n\t./$(OBJ_DIR)/$(EXEC_NAME) 10 2>err > out\n",
     ["10"]),
    # environment assignments and a launcher before the program; variables expanded
    ("\tGSL_RNG_SEED=123 ./$(program) $(DATA)/f9 -n 4\n", ["data/in/f9", "-n", "4"]),
    ("\tmpirun -n 4 ./$(program) --num 40\n", ["--num", "40"]),
    # continued lines; a quoted argument holding a ;
    ("\t./$(program) -a 1 \\\n\t  -b 2\n", ["-a", "1", "-b", "2"]),
    ("\t./$(program) -c 'read x.aig; resyn2'\n", ["-c", "read x.aig; resyn2"]),
    # no command of the folder: another folder's, or run from another folder
    ("\tmpirun -np 2 main\n", None),
    ("\tcd dataset && ../$(program) mcmd.inp && cd ..\n", None),
])
def test_run_target_commands_of_the_folder(tmp_path: Path, recipe: str,
                                           args: list[str] | None) -> None:
    (tmp_path / "Makefile").write_text("program = main\nOBJ_DIR = obj\nEXEC_NAME = prog\n"
                                       "DATA = data/in\nrun: build $(program)\n" + recipe +
                                       "\nclean:\n\t./$(program) 5\n")
    assert makefile_run_command(tmp_path) == args


def test_a_lowercase_makefile_is_read(tmp_path: Path) -> None:
    (tmp_path / "kernel").mkdir()
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "kernel" / "k.cu").write_text("__global__ void k(void) {}\n")
    (tmp_path / "makefile").write_text(
        "a.out: main.o kernel/k.o\n\tnvcc main.o kernel/k.o\n"
        "main.o: main.c\n\tgcc -c main.c\nkernel/k.o: kernel/k.cu\n\tnvcc -c kernel/k.cu\n"
        "run: a.out\n\t./a.out -boxes1d 10\n")
    assert [p.name for p in sources_of(tmp_path, "cuda")] == ["main.c", "k.cu"]
    assert makefile_run_command(tmp_path) == ["-boxes1d", "10"]
