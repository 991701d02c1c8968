"""Use cases the commands run: each takes its settings as arguments, returns data and prints
nothing (the CLI prints). ``train``: the shipped count model rebuilt or refitted and its
paper-A CV; ``regressors``: the OpenCL time regressors trained on CLgen and the
``regress-batch`` contract; ``finetune``: the embedded model fine-tuned on paper-A."""
