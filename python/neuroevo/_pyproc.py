# SPDX-License-Identifier: MIT
"""The Python half of src/core/pyproc.c: a server process that the C library starts and talks to
through a shared-memory block and one-byte doorbells on a socket.

Used by the Gymnasium env server (envserver.py) and the optimizer server (optserver.py). A request is
awaited by spinning on the block's request number for NEUROEVO_GYM_SPIN_US (x86 only), then by
sleeping in a read of the socket; a reply is published by writing its byte and number into the block,
then ringing the doorbell. The block can grow: ``reserve`` enlarges the shared file before this side
writes past its end, and ``follow`` maps a block the C side grew. Only the standard library is
imported here, so the servers also run as plain scripts from the source tree.
"""
from __future__ import annotations

import argparse
import mmap
import os
import platform
import socket
import struct
import time
import traceback

# ---- the common header (keep in sync with src/core/pyproc.h) --------------------------------------
OFF_MAGIC, OFF_VERSION, OFF_CODE, OFF_BYTES = 0, 4, 8, 16
OFF_REQ_SEQ, OFF_REQ_CMD, OFF_REP_SEQ, OFF_REP_BYTE = 64, 68, 128, 132
OFF_ERRMSG, ERRMSG_LEN, OFF_USER = 1024, 1024, 2048
CMD_QUIT = ord("Q")
REPLY_HELLO, REPLY_OK, REPLY_ERROR = b"H", b"K", b"E"

# NE_E* codes (include/neuroevo/error.h) the C side turns into its error
NE_EINVAL, NE_ENOMEM, NE_EIO, NE_ENOTFOUND, NE_ERANGE, NE_ESTATE, NE_EUNSUPPORTED = -1, -2, -3, -5, -6, -7, -12

# spinning for requests: x86 keeps the C side's stores in order, so a request number seen in the
# block means its data is there; elsewhere only the socket's syscalls order them
SPIN_OK = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
SPIN_US = 50.0  # = pyproc.c's SPIN_US
SPIN_MAX_US = 10000.0  # = pyproc.c's SPIN_MAX_US
DRAIN_EVERY = 32  # doorbells received by spinning, read from the socket in batches
PROBE_EVERY = 128  # = pyproc.c's PROBE_EVERY


def spin_seconds() -> float:
    """NEUROEVO_GYM_SPIN_US in seconds (0 turns spinning off; at most SPIN_MAX_US), else SPIN_US, as
    pyproc.c reads it."""
    try:
        v = float(os.environ.get("NEUROEVO_GYM_SPIN_US", SPIN_US))
    except ValueError:
        v = SPIN_US
    if not v >= 0:
        v = SPIN_US
    return min(v, SPIN_MAX_US) * 1e-6


class BridgeError(Exception):
    """A failure with the NE_E* code the C side should report."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def describe(exc: BaseException) -> str:
    """One line: the exception and the innermost frame it came from."""
    text = f"{type(exc).__name__}: {exc}".strip()
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        f = frames[-1]
        text += f" (at {os.path.basename(f.filename)}:{f.lineno} in {f.name})"
    return " ".join(text.split())


def arguments(description: str) -> argparse.ArgumentParser:
    """The command line every server takes (the C side passes these), plus its own options."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--sock", type=int, required=True, help="socket fd for the doorbells")
    p.add_argument("--shm", type=int, required=True, help="fd of the shared block")
    p.add_argument("--shm-bytes", type=int, required=True, help="size of the shared block")
    return p


class Channel:
    """The server's end: the block, the doorbell socket and the request/reply numbers."""

    def __init__(self, sock: int, shm: int, shm_bytes: int, magic: int, version: int, keep_fd: bool = False):
        self.sock = sock
        self.conn = socket.socket(fileno=sock)  # recv(MSG_DONTWAIT) for draining; closes sock when collected
        self.fd = shm if keep_fd else -1  # kept open by servers whose block may grow
        self.mem = mmap.mmap(shm, shm_bytes)
        if not keep_fd:
            os.close(shm)
        self.words = memoryview(self.mem).cast("I")  # the block as uint32 words (sequence numbers)
        struct.pack_into("<II", self.mem, OFF_MAGIC, magic, version)
        self.seq = 1  # number of the last reply: 1 is the startup reply
        self.undrained = 0
        self.spin_max = self.spin_s = spin_seconds() if SPIN_OK else 0.0
        self.since_probe = 0

    # ---- the block ---------------------------------------------------------------------------
    def _map(self, size: int) -> None:
        self.words.release()
        self.mem.close()  # views into the old map must be gone (the servers make them per request)
        self.mem = mmap.mmap(self.fd, size)
        self.words = memoryview(self.mem).cast("I")

    def follow(self) -> None:
        """Maps the block again if the C side grew it."""
        size = struct.unpack_from("<Q", self.mem, OFF_BYTES)[0]
        if size > len(self.mem):
            self._map(size)

    def reserve(self, size: int) -> None:
        """Grows the block to at least size bytes (a power of two) before writing that far."""
        if size <= len(self.mem):
            return
        new = len(self.mem)
        while new < size:
            new *= 2
        os.ftruncate(self.fd, new)
        self._map(new)
        struct.pack_into("<Q", self.mem, OFF_BYTES, new)

    # ---- replies ------------------------------------------------------------------------------
    def reply(self, byte: bytes) -> None:
        """Publishes reply number self.seq (its data was written before), then rings the doorbell."""
        words = self.words
        words[OFF_REP_BYTE >> 2] = byte[0]
        words[OFF_REP_SEQ >> 2] = self.seq
        os.write(self.sock, byte)

    def error(self, code: int, message: str) -> None:
        data = message.encode("utf-8", "replace")[: ERRMSG_LEN - 1] + b"\0"
        self.mem[OFF_ERRMSG:OFF_ERRMSG + len(data)] = data
        struct.pack_into("<i", self.mem, OFF_CODE, code)
        self.reply(REPLY_ERROR)

    # ---- requests -----------------------------------------------------------------------------
    def wait_request(self) -> int:
        """-> the next request's command byte, or CMD_QUIT when the C side is gone. Spins first with
        the adaptive budget of pyproc.c's spin_adaptive (full after a request caught in time,
        quartered after a miss or a late catch, retried every PROBE_EVERY requests once at 0), then
        sleeps on the socket."""
        words, want = self.words, (self.seq + 1) & 0xFFFFFFFF
        slot, budget = OFF_REQ_SEQ >> 2, self.spin_s
        if budget <= 0 < self.spin_max:
            self.since_probe += 1
            if self.since_probe >= PROBE_EVERY:
                self.since_probe, budget = 0, self.spin_max
        if budget > 0:  # never yields: see pyproc.c's spin_for_reply
            clock = time.perf_counter
            end = clock() + budget
            while True:
                for _ in range(32):
                    if words[slot] == want:
                        in_time = clock() <= end
                        self.seq = want
                        self.spin_s = self.spin_max if in_time else budget / 4
                        self.undrained += 1
                        if self.undrained >= DRAIN_EVERY:
                            self.drain()
                        return words[OFF_REQ_CMD >> 2]
                if clock() > end:
                    break
            self.spin_s = 0.0 if budget / 4 < 1e-6 else budget / 4
        # sleep on the socket: the doorbell wakes us, a closed socket means the C side went away
        while words[slot] != want:
            if not self.conn.recv(256):
                return CMD_QUIT
            self.undrained = 0
        self.seq = want
        return words[OFF_REQ_CMD >> 2]

    def drain(self) -> None:
        """Reads the doorbells of requests that spinning already caught, without blocking."""
        self.undrained = 0
        try:
            while len(self.conn.recv(256, socket.MSG_DONTWAIT)) == 256:
                pass
        except (BlockingIOError, InterruptedError):
            pass
