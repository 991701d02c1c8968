"""Credentials inside endpoint URLs. A base URL may carry a key as userinfo
(``http://user:sk-...@host/v1``) or as a query parameter (``?api_key=...``): the request
still sends it, but what identifies the endpoint (cache key, cache file, provenance) drops
it, and what a person reads (logs, errors, result files) shows ``***`` in its place."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

__all__ = ["EndpointURL", "is_secret_param", "mask_urls"]

#: query parameter names that carry credentials (api_key, apikey, access_token, sig, ...)
_SECRET_NAME = re.compile(
    r"key|token|secret|passw|pwd|sig|auth|credential|session", re.IGNORECASE
)
_USERINFO = re.compile(r"(?<=://)[^/?#@\s]+@")
_PARAM = re.compile(r"(?P<lead>[?&;](?P<name>[^=&#\s]+)=)(?P<value>[^&#\s'\"]*)")


def is_secret_param(name: str) -> bool:
    """True for a query parameter whose value is a credential (by its name)."""
    return bool(_SECRET_NAME.search(name))


def mask_urls(text: str) -> str:
    """*text* with the userinfo and the credential parameters of every URL in it shown as
    ``***``: the last line of defence for any message or log line."""
    text = _USERINFO.sub("***@", text)

    def repl(m: re.Match[str]) -> str:
        if m.group("value") and is_secret_param(m.group("name")):
            return m.group("lead") + "***"
        return m.group(0)

    return _PARAM.sub(repl, text)


@dataclass(frozen=True)
class EndpointURL:
    """A base URL split into the part that names the endpoint and its credentials."""

    base: str  # scheme://host[:port]/path: no userinfo, no query
    userinfo: str = ""  # "user:password" as written (percent-encoded)
    params: tuple[tuple[str, str], ...] = ()  # every query parameter, in order

    @classmethod
    def parse(cls, url: str) -> EndpointURL:
        parts = urlsplit(url.strip())
        userinfo, _, hostport = parts.netloc.rpartition("@")
        base = urlunsplit((parts.scheme, hostport, parts.path.rstrip("/"), "", ""))
        return cls(base, userinfo, tuple(parse_qsl(parts.query, keep_blank_values=True)))

    @property
    def public(self) -> str:
        """The endpoint's identity: credentials removed (for cache keys and provenance)."""
        kept = [(k, v) for k, v in self.params if not is_secret_param(k)]
        return self.base + (f"?{urlencode(kept)}" if kept else "")

    @property
    def shown(self) -> str:
        """The URL as messages show it: credentials replaced by ``***``."""
        parts = urlsplit(self.base)
        netloc = f"***@{parts.netloc}" if self.userinfo else parts.netloc
        shown = [(k, "***" if is_secret_param(k) else v) for k, v in self.params]
        query = "&".join(f"{k}={v}" if v == "***" else urlencode([(k, v)]) for k, v in shown)
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every credential value, raw and decoded, to scrub from any text."""
        vals = [v for k, v in self.params if is_secret_param(k)]
        if self.userinfo:
            user, _, password = self.userinfo.partition(":")
            vals.append(password or user)
        out = {s for v in vals for s in (v, unquote(v)) if s}
        return tuple(sorted(out, key=len, reverse=True))

    def auth_headers(self) -> dict[str, str]:
        """HTTP Basic authentication from the userinfo (as curl sends it), if any."""
        if not self.userinfo:
            return {}
        user, _, password = self.userinfo.partition(":")
        token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
        return {"Authorization": f"Basic {token}"}

    def wire(self, url: str) -> str:
        """*url* (built on :attr:`base`) with the base URL's query parameters added: what is
        actually requested."""
        if not self.params:
            return url
        return url + ("&" if "?" in url else "?") + urlencode(self.params)
