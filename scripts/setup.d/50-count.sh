# Execution counting (ridgeline.counting): clang/opt of LLVM 15 build instrumented CPU
# executables from CUDA and OpenMP sources, LLVM's libomp runs OpenMP target regions on the
# host. Sourced by scripts/test.sh (apt_install available).
apt_install clang-15 llvm-15 libomp-15-dev
