# libclang (PyPI) and a clang resource folder with the builtin headers (opencl-c-base.h,
# stddef.h): Debian's libclang-common-15-dev. Sourced by scripts/test.sh ($PY, apt_install).
apt_install libclang-common-15-dev
"$PY" -c "import clang.cindex" 2>/dev/null || "$PY" -m pip install -q 'libclang>=16'
