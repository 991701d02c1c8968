"""Small trained artifacts shipped with ridgeline (the learned predictor's model and the
derived feature table it was trained on; no third-party source code)."""
