"""Read a makefile as ``make`` would see it: active branches, expanded variables, and the
preprocessor flags (``-D``, ``-I``, ``-std``) its lines give the compilers."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["active_lines", "defines_in", "includes_in", "std_in"]

_ASSIGN = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*([?:+]?)=\s*(.*)$")
_COND = re.compile(r"^\s*(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$")
_VAR = re.compile(r"\$[({]([A-Za-z_][\w.]*)[)}]")


def _expand(text: str, env: dict[str, str], depth: int = 0) -> str:
    if depth > 8:
        return text
    return _VAR.sub(lambda m: _expand(env.get(m.group(1), ""), env, depth + 1), text)


def _cond_true(kind: str, arg: str, env: dict[str, str]) -> bool:
    if kind in ("ifdef", "ifndef"):
        defined = bool(env.get(arg.strip(), "").strip())
        return defined if kind == "ifdef" else not defined
    arg = arg.strip()
    if arg.startswith("(") and arg.endswith(")"):
        parts = arg[1:-1].split(",", 1)
    else:
        parts = [a or b for a, b in re.findall(r"\"([^\"]*)\"|'([^']*)'", arg)]
    if len(parts) != 2:
        return kind == "ifneq"
    same = _expand(parts[0], env).strip() == _expand(parts[1], env).strip()
    return same if kind == "ifeq" else not same


def active_lines(text: str) -> list[str]:
    """A makefile's lines outside false ``ifeq/ifneq/ifdef/ifndef`` branches, continued lines
    joined, comments dropped and variables expanded with the file's own defaults
    (``-DBLOCK_SIZE=$(BLOCK_SIZE)`` -> ``-DBLOCK_SIZE=256``; ``DEBUG = no`` keeps ``-DDEBUG``
    out)."""
    env: dict[str, str] = {}
    stack: list[tuple[bool, bool]] = []  # (this branch active, some branch taken)
    out: list[str] = []
    for raw in text.replace("\\\n", " ").splitlines():
        line = raw.split("#", 1)[0]
        active = all(a for a, _ in stack)
        m = _COND.match(line)
        if m:
            val = active and _cond_true(m.group(1), m.group(2), env)
            stack.append((val, val))
            continue
        st = line.strip()
        if st.startswith("else") and stack:
            _, taken = stack.pop()
            rest = st[4:].strip()
            mm = _COND.match(rest)
            parent = all(a for a, _ in stack)
            if mm and not taken:
                val = parent and _cond_true(mm.group(1), mm.group(2), env)
                stack.append((val, val))
            else:
                stack.append((parent and not taken, True))
            continue
        if st == "endif" and stack:
            stack.pop()
            continue
        if not active:
            continue
        a = _ASSIGN.match(line)
        if a and not line.startswith("\t"):
            name, op, value = a.group(1), a.group(2), a.group(3).strip()
            if op == "?" and name in env:
                pass
            elif op == "+":
                env[name] = (env.get(name, "") + " " + value).strip()
            else:
                env[name] = _expand(value, env) if op == ":" else value
        out.append(_expand(line, env))  # -DBLOCK_SIZE=$(BLOCK_SIZE) -> -DBLOCK_SIZE=256
    return out


_DEFINE = re.compile(r"(?<![\w-])-D\s*([A-Za-z_]\w*(?:=[^\s\"']+)?)")


def defines_in(lines: list[str]) -> list[str]:
    """``-DNAME[=VALUE]`` flags of *lines*, in order, each once (``__STRICT_ANSI__`` left
    out: it describes the compiler, not the program)."""
    out: list[str] = []
    for line in lines:
        for m in _DEFINE.finditer(line):
            if m.group(1) not in out and not m.group(1).startswith("__STRICT_ANSI"):
                out.append(m.group(1))
    return out


def includes_in(lines: list[str], base: Path) -> list[Path]:
    """``-I DIR`` folders of *lines* that exist, resolved against *base*, each once."""
    out: list[Path] = []
    for line in lines:
        for m in re.finditer(r"(?<![\w-])-I\s*([^\s\"'$]+)", line):
            p = (base / m.group(1)).resolve()
            if p.is_dir() and p not in out:
                out.append(p)
    return out


def std_in(lines: list[str]) -> str | None:
    """The first C++ ``-std=`` of *lines* (None: none)."""
    m = re.search(r"-std=((?:c|gnu)\+\+\w+)", "\n".join(lines))
    return m.group(1) if m else None
