"""A small seccomp filter for sandboxed commands: the system calls that reach past the mounts.

* ``keyctl``, ``add_key``, ``request_key``: the kernel keyrings are per user, not per mount
  namespace, so a sandboxed command could read the secrets the user's tools keep there.
* ``io_uring_*``: its operations run outside the system-call filter and it is a large kernel
  attack surface (Codex and Docker deny it too).

Each call fails with ``EPERM``. The filter is classic BPF, assembled here for x86-64 (with its
x32 and i386 forms) and AArch64 (with 32-bit ARM); elsewhere there is none (the mounts and
namespaces still apply). bubblewrap reads it from a file descriptor (``--seccomp FD``).
"""

from __future__ import annotations

import functools
import os
import platform
import struct

__all__ = ["filter_fd", "filter_program"]

_LD_ABS_W = 0x20
_JEQ_K = 0x15
_RET_K = 0x06
_ALLOW = 0x7FFF0000
_DENY = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data

_X32 = 0x40000000
_IO_URING = (425, 426, 427)

# audit architecture -> (add_key, request_key, keyctl)
_KEYS = {
    0xC000003E: (248, 249, 250),  # x86-64
    0x40000003: (286, 287, 288),  # i386
    0xC00000B7: (217, 218, 219),  # AArch64
    0x40000028: (309, 310, 311),  # ARM (EABI)
}
_FAMILIES = {
    "x86_64": (0xC000003E, 0x40000003),
    "amd64": (0xC000003E, 0x40000003),
    "aarch64": (0xC00000B7, 0x40000028),
    "arm64": (0xC00000B7, 0x40000028),
}


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _block(arch: int) -> list[bytes]:
    """Deny the listed calls for ``arch``; skip to the next block for another architecture."""
    numbers = [*_KEYS[arch], *_IO_URING]
    if arch == 0xC000003E:
        numbers += [n | _X32 for n in numbers]
    m = len(numbers)
    code = [_instruction(_LD_ABS_W, _ARCH), _instruction(_JEQ_K, arch, 0, m + 3)]
    code.append(_instruction(_LD_ABS_W, _NR))
    code += [_instruction(_JEQ_K, n, m - i, 0) for i, n in enumerate(numbers)]
    return [*code, _instruction(_RET_K, _ALLOW), _instruction(_RET_K, _DENY)]


@functools.lru_cache(maxsize=1)
def filter_program() -> bytes | None:
    """The compiled filter for this machine (None: an architecture not handled here)."""
    family = _FAMILIES.get(platform.machine().lower())
    if family is None:
        return None
    code = [part for arch in family for part in _block(arch)]
    # a call from any other architecture: denied (no such program can run here anyway)
    return b"".join([*code, _instruction(_RET_K, _DENY)])


def filter_fd() -> int | None:
    """A new file descriptor to read the filter from, at its start (the caller closes it), or
    None when there is no filter for this machine."""
    program = filter_program()
    if program is None:
        return None
    fd = os.memfd_create("jupyter_agents-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
