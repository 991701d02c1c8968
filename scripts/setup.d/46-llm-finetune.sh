# LLM fine-tuning (ridgeline llm finetune): peft for LoRA adapters on the embedded model.
# After 45-torch.sh, so the CPU torch build is already there and pip keeps it.
# Sourced by scripts/test.sh with $PY set.
"$PY" -c "import peft" 2>/dev/null || nice -n 5 "$PY" -m pip install -q 'peft>=0.13'
