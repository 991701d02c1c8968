# CUDA tools for compiled features: nvcc (CUDA toolkit on PATH or /usr/local/cuda, else PyPI
# nvidia-cuda-nvcc) and cuobjdump/nvdisasm (PyPI nvidia-cuda-cuobjdump / -nvdisasm).
# Sourced by scripts/test.sh ($PY available).
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  "$PY" -c "import glob,sys; sys.exit(0 if glob.glob(sys.prefix+'/lib/python3*/site-packages/nvidia/*/bin/nvcc') else 1)" \
    || "$PY" -m pip install -q nvidia-cuda-nvcc
fi
if ! command -v cuobjdump >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/cuobjdump ]; then
  "$PY" -c "import glob,sys; sys.exit(0 if glob.glob(sys.prefix+'/lib/python3*/site-packages/nvidia/*/bin/cuobjdump') else 1)" \
    || "$PY" -m pip install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
fi
