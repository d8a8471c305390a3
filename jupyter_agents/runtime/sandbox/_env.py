"""The environment a command gets: an allowlist of ordinary variables, never secrets.

A denylist of secret-looking names always misses one (``PGPASSWORD``, ``DATABASE_URL``,
``SENTRY_DSN``, a socket address), so only the names below pass, plus those the person allows
by name. Allowed names whose value carries credentials in a URL (``http://user:pass@proxy``)
are still dropped, unless the person allowed that very name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["ALLOWED_ENV", "scrubbed_env"]

ALLOWED_ENV = frozenset(
    {
        # who and where
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "TZDIR", "HOSTNAME",
        # language and terminal
        "LANG", "LANGUAGE", "TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR",
        "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "PAGER", "EDITOR", "VISUAL",
        # the user's folders (not XDG_RUNTIME_DIR: sockets)
        "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
        "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
        # Python and its environments
        "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE", "CONDA_SHLVL",
        "PYTHONPATH", "PYTHONHOME", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONWARNINGS", "PYTHONNOUSERSITE",
        "PYTHONSAFEPATH", "MPLBACKEND", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR",
        "JUPYTER_DATA_DIR", "JUPYTER_PLATFORM_DIRS",
        # libraries and devices a notebook's code may need
        "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
        "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
        # certificates and proxies (credentials in a proxy URL are dropped)
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS", "PIP_CERT", "GIT_SSL_CAINFO",
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
        "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    }
)  # fmt: skip
"""Variables every command gets (when set). ``LC_*`` locale variables pass too."""

_CREDENTIALS_IN_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s]*@", re.I)
"""A URL with a user (and perhaps a password) before the host."""


def _ordinary(name: str, value: str) -> bool:
    allowed = name in ALLOWED_ENV or (name.startswith("LC_") and name[3:].isupper())
    return allowed and not _CREDENTIALS_IN_URL.search(value)


def scrubbed_env(env: Mapping[str, str], allow: Sequence[str] = ()) -> dict[str, str]:
    """The variables of ``env`` a command may see: ``ALLOWED_ENV`` (and ``LC_*``) unless
    their value holds credentials in a URL, and every name in ``allow`` as it is."""
    return {k: v for k, v in env.items() if k in allow or _ordinary(k, v)}
