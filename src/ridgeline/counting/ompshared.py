"""The variables a parallel region inside a teams region shares, as the GPU compiler sees them.

On the GPU, a ``#pragma omp parallel`` nested in ``#pragma omp target teams`` reaches the
team's variables (arrays declared in the teams region live in shared memory; the region's
firstprivate scalars in registers or the kernel's parameters) and the mapped buffers through
different address spaces, so its compiler knows that a store to a buffer leaves them alone.
The host build passes each of them to the outlined parallel function as a plain pointer, and a
store to any buffer of the same type makes every one of them load again: tqs's work loop
re-read the team's current task id and the captured offset after each update of its data queue,
so the loop was not folded into one addition (34.3 M integer ops counted in its first launch,
0.40 M measured).

:func:`scope_team_variables` runs on unoptimized IR. For each function that a teams region
forks as its parallel region it marks the pointer parameters ``noalias`` where that is true of
the program: the variable is the teams region's own (an ``alloca`` whose address goes nowhere
but to the forks) or a scalar (at most 8 bytes) passed down from the target region, and the
parallel region does not store its address anywhere but in its own locals. The team's
threads change those variables only between synchronization points (the counting runtime runs
them as cooperative fibers that switch at barriers and volatile accesses), so around each
runtime call that synchronizes (``__kmpc_*``, ``omp_*`` other than the thread and team
queries) the parameters the region writes are handed to an opaque function,
``__rl_omp_shared`` (a no-op in the runtime): their stores stay before the call and their
loads after it. A region that calls a function of the module that synchronizes (directly or
through others) is left as it is, since once inlined that function's barriers would have no
such calls around them; so is one that reaches a synchronizing call through ``invoke``.
"""

from __future__ import annotations

import re

from ridgeline.counting.instrument import _DEFINE, _split_params, split_top
from ridgeline.counting.irsyntax import DEF

__all__ = ["scope_team_variables", "SHARED_FN"]

#: the runtime's no-op that stands for "another thread may read or write this variable here"
SHARED_FN = "__rl_omp_shared"

_FORK = re.compile(r"@__kmpc_fork_(call|teams)\(")
_ALLOCA = re.compile(r"^\s*(%[-\w.$]+)\s*=\s*alloca\b")
_DEREF = re.compile(r"\bdereferenceable\((\d+)\)")
_QUERIES = ("omp_get_thread_num", "omp_get_team_num", "omp_get_num_threads",
            "omp_get_num_teams")
_SYNC_CALL = re.compile(r"^\s*(?:%[-\w.$]+\s*=\s*)?(?:tail\s+|notail\s+)?(call|invoke)\b"
                        r".*?@(__kmpc_\w+|omp_\w+|\"[^\"]+\"|[\w.$]+)\(")
_NOCAPTURE_CALLS = re.compile(r"@llvm\.(?:lifetime\.(?:start|end)|memset|memcpy|memmove)"
                              r"[\w.]*\(")


def _synchronizes(callee: str) -> bool:
    """Whether a call of *callee* is a runtime call that synchronizes the team (any
    ``__kmpc_*`` or ``omp_*`` but the thread and team queries)."""
    return callee.startswith(("__kmpc_", "omp_")) and callee not in _QUERIES


def _functions(lines: list[str]) -> dict[str, tuple[int, int]]:
    """name -> (index of its ``define`` line, index of its closing ``}``)."""
    out: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        m = _DEFINE.match(lines[i])
        if m and lines[i].rstrip().endswith("{"):
            j = i + 1
            while j < len(lines) and lines[j] != "}":
                j += 1
            out[m.group(1)] = (i, j)
            i = j
        i += 1
    return out


def _uses(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(name) + r"(?![-\w.$])")


def _derived(body: list[str], roots: set[str]) -> set[str]:
    """*roots* and every address computed from them (``getelementptr`` chains)."""
    out = set(roots)
    grew = True
    while grew:
        grew = False
        for ln in body:
            m = DEF.match(ln)
            if not m or m.group(1) in out or not m.group(2).startswith("getelementptr"):
                continue
            ops = split_top(m.group(2).split(None, 1)[1].removeprefix("inbounds "))
            if len(ops) > 1 and ops[1].split()[-1] in out:
                out.add(m.group(1))
                grew = True
    return out


def _store_parts(ln: str) -> tuple[str, str] | None:
    """(value operand, pointer operand) of a ``store`` line."""
    m = re.match(r"^\s*store\s+(?:atomic\s+)?(?:volatile\s+)?(.*)$", ln)
    if not m:
        return None
    ops = split_top(m.group(1))
    return (ops[0], ops[1]) if len(ops) >= 2 else None


def _accesses(body: list[str], names: set[str], skip: set[int]) -> tuple[bool, bool]:
    """(written, escapes) for the memory *names* point to, over *body* (lines *skip* aside;
    the definitions of *names* are not uses): written when something stores through them or
    a call receives them, escapes when their value is stored, converted or merged (anything
    but a load, a store, an address computation, a comparison or a call)."""
    written = escapes = False
    pats = [_uses(n) for n in names]
    for k, ln in enumerate(body):
        if k in skip or not any(p.search(ln) for p in pats):
            continue
        m = DEF.match(ln)
        rest = m.group(2) if m else ln.strip()
        if m and m.group(1) in names:
            continue
        if re.match(r"load\b", rest):
            continue
        st = _store_parts(ln)
        if st is not None:
            if any(p.search(st[0]) for p in pats):
                escapes = True
            written = True
            continue
        if _NOCAPTURE_CALLS.search(ln):
            written = written or "lifetime" not in ln
            continue
        if re.match(r"(?:atomicrmw|cmpxchg)\b", rest):
            written = True
            continue
        if re.match(r"icmp\b", rest):
            continue
        # a callee reads and writes through it (LLVM sees what it keeps once inlined)
        written = True
        escapes = escapes or not re.match(r"(?:(?:tail|notail|musttail)\s+)?(?:call|invoke)\b",
                                          rest)
    return written, escapes


def _private_slot(body: list[str], slot: str) -> bool:
    """Whether *slot* (an ``alloca``) is only loaded from and stored to: a local variable
    that the optimizer keeps in a register."""
    pat = _uses(slot)
    for ln in body:
        if not pat.search(ln):
            continue
        m = DEF.match(ln)
        if m and m.group(1) == slot:
            continue
        if m and re.match(r"load\b", m.group(2)):
            continue
        st = _store_parts(ln)
        if st is not None and not pat.search(st[0]):
            continue
        if "@llvm.lifetime." in ln:
            continue
        return False
    return True


def _follow(body: list[str], roots: set[str]) -> tuple[set[str], set[int]]:
    """The pointer values *roots* reach in *body*: the addresses computed from them and what
    is loaded back from the function's own local variables they are stored in (unoptimized
    code keeps every parameter and local in a stack slot); and the lines that store them
    there."""
    allocas = {m.group(1) for ln in body if (m := _ALLOCA.match(ln))}
    vals, slot_stores = set(roots), set[int]()
    grew = True
    while grew:
        vals = _derived(body, vals)
        grew = False
        for k, ln in enumerate(body):
            st = _store_parts(ln)
            if k in slot_stores or st is None or not st[0].startswith("ptr ") \
                    or st[0].split()[-1] not in vals:
                continue
            slot = st[1].split()[-1]
            if slot not in allocas or not _private_slot(body, slot):
                continue
            slot_stores.add(k)
            grew = True
            pat = _uses(slot)
            for ln2 in body:
                m = DEF.match(ln2)
                if m and re.match(r"load\s+ptr,", m.group(2)) and pat.search(m.group(2)):
                    vals.add(m.group(1))
    return vals, slot_stores


def scope_team_variables(text: str) -> str:
    """Mark the team variables of each teams region's parallel region as the GPU compiler
    knows them (see the module's docstring). Works on unoptimized IR; unchanged text when the
    module has no ``__kmpc_fork_call`` inside a function a ``__kmpc_fork_teams`` starts."""
    if "@__kmpc_fork_teams(" not in text or "@__kmpc_fork_call(" not in text:
        return text
    lines = text.split("\n")
    funcs = _functions(lines)
    # callee -> (caller, "call" or "teams", the fork's arguments to the callee)
    forks: dict[str, list[tuple[str, str, list[str]]]] = {}
    for caller, (a, b) in funcs.items():
        for k in range(a + 1, b):
            m = _FORK.search(lines[k])
            if not m:
                continue
            args = split_top(_split_params(lines[k][m.end():])[0])
            if len(args) >= 3:
                callee = args[2].split()[-1].lstrip("@")
                forks.setdefault(callee, []).append((caller, m.group(1), args[3:]))
    teams = {f for f, sites in forks.items() if any(kind == "teams" for _, kind, _ in sites)}
    # functions of the module that synchronize, directly or through others: once inlined,
    # their barriers would have no opaque calls around them
    calls = {f: {m.group(2) for k in range(a + 1, b) if (m := _SYNC_CALL.match(lines[k]))}
             for f, (a, b) in funcs.items()}
    sync_fns = {f for f, cs in calls.items() if any(map(_synchronizes, cs))}
    grew = True
    while grew:
        grew = False
        for f, cs in calls.items():
            if f not in sync_fns and cs & sync_fns:
                sync_fns.add(f)
                grew = True
    inserts: dict[int, tuple[list[str], list[str]]] = {}
    for par, sites in forks.items():
        if par not in funcs or len(sites) != 1:
            continue
        caller, kind, args = sites[0]
        if caller not in teams or kind != "call":
            continue
        d0, d1 = funcs[par]
        head = lines[d0]
        open_at = head.index(f"@{par}(") + len(par) + 2
        plist, tail = _split_params(head[open_at:])
        params = split_top(plist)
        if len(params) != len(args) + 2 or not all(p.startswith("ptr") for p in params[2:]):
            continue  # a combined construct's loop bounds come by value: not this shape
        c0, c1 = funcs[caller]
        cbody = lines[c0 + 1:c1]
        body = lines[d0 + 1:d1]
        caller_allocas = {m.group(1) for ln in cbody if (m := _ALLOCA.match(ln))}
        # the forks (this one, and others to parallel regions after it) pass a variable for
        # the length of the call only
        forks_at = {k for k, ln in enumerate(cbody) if "@__kmpc_fork_call(" in ln}
        safe: list[int] = []
        for j, (param, arg) in enumerate(zip(params[2:], args, strict=True), start=2):
            value = arg.split()[-1]
            if value in caller_allocas:
                vals, slot_stores = _follow(cbody, {value})
                if not _accesses(cbody, vals, forks_at | slot_stores)[1]:
                    safe.append(j)
            else:
                size = _DEREF.search(param)
                if size and int(size.group(1)) <= 8:
                    safe.append(j)
        if not safe:
            continue
        # the region itself must not store a team variable's address where other pointers
        # come from (quicksort's lqsort: s = mys for the team's current sequence)
        written = []
        for j in list(safe):
            name = params[j].split()[-1]
            written_j, escapes = _accesses(body, *_follow(body, {name}))
            if escapes:
                safe.remove(j)
            elif written_j:
                written.append(name)
        sync: list[int] = []
        bad = False
        for k in range(d0 + 1, d1):
            m = _SYNC_CALL.match(lines[k])
            if not m:
                continue
            callee = m.group(2)
            if callee in sync_fns or (m.group(1) == "invoke" and _synchronizes(callee)):
                bad = True  # a helper that synchronizes, or an invoke: left as it is
                break
            if _synchronizes(callee):
                sync.append(k)
        if bad:
            continue
        for k in sync if written else []:
            touch = [f"  call void @{SHARED_FN}(ptr {n})" for n in written]
            inserts[k] = (touch, touch)
        for j in safe:
            params[j] = params[j].replace("ptr ", "ptr noalias ", 1) \
                if " noalias " not in f" {params[j]} " else params[j]
        lines[d0] = head[:open_at] + ", ".join(params) + tail
    out: list[str] = []
    for k, ln in enumerate(lines):
        before, after = inserts.get(k, ([], []))
        out += before + [ln] + after
    if inserts:
        out.append(f"declare void @{SHARED_FN}(ptr nocapture) nounwind")
    return "\n".join(out)

