# SPDX-License-Identifier: MIT
"""The Python half of neuroevo's Gymnasium bridge (src/envs/gym/gym.c): one process per C env state.

It holds one Gymnasium env and serves reset/step requests from the C worker through a shared-memory
block (layout in src/envs/gym/gym_proto.h, repeated below) and one-byte doorbells on a socket, so the
C side never runs Python. A request is awaited by spinning on the block's request number for
NEUROEVO_GYM_SPIN_US (x86 only), then by sleeping in a read of the socket; the steady state of a
rollout thus costs no process wake-up on either side. It is started by the C library, never by hand:

    python -m neuroevo.envserver --sock 3 --shm 4 --shm-bytes N --env CartPole-v1

This file imports only the standard library, NumPy and Gymnasium, so it also runs as a plain script
from the source tree. Errors (unknown id, unsupported spaces, an exception inside the env) are sent
back as a code and a one-line message; the C side names the env and kills the server.
"""
from __future__ import annotations

import argparse
import importlib
import mmap
import os
import platform
import socket
import struct
import sys
import time
import traceback
from typing import Any, Callable

# ---- the shared block (keep in sync with src/envs/gym/gym_proto.h) --------------------------------
MAGIC = 0x5947454E
VERSION = 2
CMD_RESET, CMD_STEP, CMD_QUIT = ord("R"), ord("S"), ord("Q")
REPLY_HELLO, REPLY_OK, REPLY_ERROR = b"H", b"K", b"E"
OFF_MAGIC, OFF_VERSION, OFF_CODE, OFF_SEED = 0, 4, 8, 16
OFF_REWARD, OFF_TERMINATED, OFF_TRUNCATED = 24, 32, 36
OFF_OBS_DIM, OFF_OBS_RANK, OFF_OBS_SHAPE = 40, 44, 48
OFF_DISCRETE, OFF_N_ACTIONS, OFF_ACT_DIM, OFF_MAX_STEPS = 60, 64, 68, 72
OFF_HAS_THRESHOLD, OFF_THRESHOLD, OFF_ACT_LOW, OFF_ACT_HIGH = 76, 80, 88, 344
OFF_ERRMSG, ERRMSG_LEN, OFF_ACT, OFF_OBS = 1024, 1024, 2048, 4096
OFF_REQ_SEQ, OFF_REQ_CMD, OFF_REP_SEQ, OFF_REP_BYTE = 640, 644, 704, 708
MAX_ACT = 32

# spinning for requests: x86 keeps the C side's stores in order, so a request number seen in the
# block means its data is there; elsewhere only the socket's syscalls order them
SPIN_OK = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
SPIN_US = 50.0  # = gym.c's SPIN_US
SPIN_MAX_US = 10000.0  # = gym.c's SPIN_MAX_US
DRAIN_EVERY = 32  # doorbells received by spinning, read from the socket in batches
PROBE_EVERY = 128  # = gym.c's PROBE_EVERY

# NE_E* codes (include/neuroevo/error.h) the C side turns into its error
NE_EIO, NE_ENOTFOUND, NE_EUNSUPPORTED = -3, -5, -12

# no TimeLimit inside the server: neuroevo applies the registered limit once, on the C side
NO_TIME_LIMIT = 1 << 62


def spin_seconds() -> float:
    """NEUROEVO_GYM_SPIN_US in seconds (0 turns spinning off; at most SPIN_MAX_US), else SPIN_US, as
    gym.c reads it."""
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


class Server:
    """One Gymnasium env behind the shared block."""

    def __init__(self, sock: int, mem: mmap.mmap, gym_id: str):
        self.sock = sock
        self.conn = socket.socket(fileno=sock)  # recv(MSG_DONTWAIT) for draining; closes sock when collected
        self.mem = mem
        self.words = memoryview(mem).cast("I")  # the block as uint32 words (sequence numbers)
        self.seq = 1  # number of the last reply: 1 is the startup reply
        self.undrained = 0
        self.spin_max = self.spin_s = spin_seconds() if SPIN_OK else 0.0
        self.since_probe = 0
        self.gym_id = gym_id
        self.env: Any = None
        self.np: Any = None
        self.obs: Any = None
        self.act: Any = None
        self.obs_start = 0
        self.act_start = 0
        self.put_obs: Callable[[Any], None] = self.put_box
        self.make_action: Callable[[], Any] = self.discrete_action

    # ---- replies ------------------------------------------------------------------------------
    def reply(self, byte: bytes) -> None:
        """Publishes reply number self.seq (its data was written before), then rings the doorbell."""
        words = self.words
        words[OFF_REP_BYTE >> 2] = byte[0]
        words[OFF_REP_SEQ >> 2] = self.seq
        os.write(self.sock, byte)

    def wait_request(self) -> int:
        """-> the next request's command byte, or CMD_QUIT when the C side is gone. Spins first with
        the adaptive budget of gym.c's spin_adaptive (full after a request caught in time, quartered
        after a miss or a late catch, retried every PROBE_EVERY requests once at 0), then sleeps on
        the socket."""
        words, want = self.words, (self.seq + 1) & 0xFFFFFFFF
        slot, budget = OFF_REQ_SEQ >> 2, self.spin_s
        if budget <= 0 < self.spin_max:
            self.since_probe += 1
            if self.since_probe >= PROBE_EVERY:
                self.since_probe, budget = 0, self.spin_max
        if budget > 0:  # never yields: see gym.c's spin_for_reply
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

    def error(self, code: int, message: str) -> None:
        data = message.encode("utf-8", "replace")[: ERRMSG_LEN - 1] + b"\0"
        self.mem[OFF_ERRMSG:OFF_ERRMSG + len(data)] = data
        struct.pack_into("<i", self.mem, OFF_CODE, code)
        self.reply(REPLY_ERROR)

    # ---- startup ------------------------------------------------------------------------------
    def make(self) -> None:
        """Makes the env and writes its spaces into the block."""
        try:
            import numpy as np
            import gymnasium as gym
        except ImportError as e:
            raise BridgeError(NE_ENOTFOUND, f"{e} in {sys.executable} (set NEUROEVO_PYTHON to a Python with "
                                            "gymnasium and numpy)") from e
        self.np = np
        module, _, name = self.gym_id.rpartition(":")
        try:
            if module:
                importlib.import_module(module)
            spec = gym.spec(name)
        except (ImportError, gym.error.Error) as e:
            raise BridgeError(NE_ENOTFOUND, f"{type(e).__name__}: {e}") from e
        self.env = gym.make(name, max_episode_steps=NO_TIME_LIMIT)
        self.describe_obs(self.env.observation_space)
        self.describe_act(self.env.action_space)
        struct.pack_into("<iid", self.mem, OFF_MAX_STEPS, int(spec.max_episode_steps or 0),
                         int(spec.reward_threshold is not None), float(spec.reward_threshold or 0.0))

    def describe_obs(self, space: Any) -> None:
        np, spaces = self.np, sys.modules["gymnasium"].spaces
        view_shape: tuple[int, ...] = ()
        if isinstance(space, spaces.Box):
            shape = tuple(int(d) for d in space.shape) or (1,)
            n = int(np.prod(shape))
            rank_shape = (3, shape) if len(shape) == 3 else (3, shape + (1,)) if len(shape) == 2 else (1, (n, 0, 0))
            view_shape = tuple(int(d) for d in space.shape)  # obs are written without reshaping
            self.put_obs = self.put_box
        elif isinstance(space, spaces.Discrete):
            n, rank_shape = int(space.n), (1, (int(space.n), 0, 0))
            self.obs_start = int(space.start)
            self.put_obs = self.put_onehot
        elif isinstance(space, (spaces.MultiBinary, spaces.MultiDiscrete)):
            n = int(np.prod(space.shape))
            rank_shape = (1, (n, 0, 0))
            view_shape = tuple(int(d) for d in space.shape)
            self.put_obs = self.put_box
        else:
            raise BridgeError(NE_EUNSUPPORTED, f"observation space {space} is not supported (the bridge carries Box, "
                                               "Discrete, MultiBinary and MultiDiscrete; wrap the env with "
                                               "gymnasium.wrappers.FlattenObservation)")
        if OFF_OBS + 4 * n > len(self.mem):
            raise BridgeError(NE_EUNSUPPORTED, f"observations of {n} values do not fit the shared block")
        self.obs = np.frombuffer(self.mem, dtype=np.float32, count=n, offset=OFF_OBS)
        if view_shape:
            self.obs = self.obs.reshape(view_shape)
        rank, dims = rank_shape
        struct.pack_into("<ii3i", self.mem, OFF_OBS_DIM, n, rank, *dims)

    def describe_act(self, space: Any) -> None:
        np, spaces = self.np, sys.modules["gymnasium"].spaces
        self.act = np.frombuffer(self.mem, dtype=np.float32, count=MAX_ACT, offset=OFF_ACT)
        if isinstance(space, spaces.Discrete):
            self.act_start = int(space.start)
            struct.pack_into("<iii", self.mem, OFF_DISCRETE, 1, int(space.n), 1)
            self.make_action = self.discrete_action
            return
        if isinstance(space, spaces.Box) and 1 <= int(np.prod(space.shape)) <= MAX_ACT:
            n = int(np.prod(space.shape))
            self.act_shape, self.act_dtype, self.act_n = space.shape, space.dtype, n
            low = np.broadcast_to(space.low, space.shape).astype(np.float64).ravel()
            high = np.broadcast_to(space.high, space.shape).astype(np.float64).ravel()
            struct.pack_into("<iii", self.mem, OFF_DISCRETE, 0, 0, n)
            struct.pack_into(f"<{n}d", self.mem, OFF_ACT_LOW, *low)
            struct.pack_into(f"<{n}d", self.mem, OFF_ACT_HIGH, *high)
            self.make_action = self.box_action
            return
        raise BridgeError(NE_EUNSUPPORTED, f"action space {space} is not supported (the bridge carries Discrete and "
                                           f"Box with at most {MAX_ACT} components)")

    # ---- per step -------------------------------------------------------------------------------
    def discrete_action(self) -> int:
        return int(struct.unpack_from("<f", self.mem, OFF_ACT)[0]) + self.act_start

    def box_action(self) -> Any:
        return self.act[: self.act_n].astype(self.act_dtype).reshape(self.act_shape)

    def put_box(self, obs: Any) -> None:
        self.obs[...] = obs  # casts to float32; a wrong shape raises and is reported

    def put_onehot(self, obs: Any) -> None:
        self.obs[:] = 0.0
        self.obs[int(obs) - self.obs_start] = 1.0

    def serve(self) -> None:
        """Answers commands until told to quit or the C side goes away."""
        env, mem, wait_request = self.env, self.mem, self.wait_request
        pack_into, unpack_from = struct.pack_into, struct.unpack_from
        while True:
            cmd = wait_request()
            if cmd == CMD_QUIT:
                return
            try:
                if cmd == CMD_STEP:
                    obs, reward, terminated, truncated, _ = env.step(self.make_action())
                    self.put_obs(obs)
                    pack_into("<dii", mem, OFF_REWARD, float(reward), bool(terminated), bool(truncated))
                elif cmd == CMD_RESET:
                    obs, _ = env.reset(seed=unpack_from("<Q", mem, OFF_SEED)[0])
                    self.put_obs(obs)
                else:
                    raise BridgeError(NE_EIO, f"unknown command byte {cmd:#04x}")
            except Exception as e:  # the env's own failure: report it, the C side restarts us
                self.error(getattr(e, "code", NE_EIO), f"{'step' if cmd == CMD_STEP else 'reset'} raised {describe(e)}")
                continue
            self.reply(REPLY_OK)


def main(argv: list[str] | None = None) -> int:
    # run as a script, Python put this package's folder first on sys.path, where its modules would
    # shadow top-level ones; the working directory goes there instead, as with `python -m`, so that
    # gym:my_module:Env-v0 finds my_module.py beside the run
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path[0] = os.getcwd()
    p = argparse.ArgumentParser(description="neuroevo's Gymnasium env server (started by the C library)")
    p.add_argument("--sock", type=int, required=True, help="socket fd for the doorbells")
    p.add_argument("--shm", type=int, required=True, help="fd of the shared block")
    p.add_argument("--shm-bytes", type=int, required=True, help="size of the shared block")
    p.add_argument("--env", required=True, help="Gymnasium id, optionally module:id")
    a = p.parse_args(argv)
    mem = mmap.mmap(a.shm, a.shm_bytes)
    os.close(a.shm)
    struct.pack_into("<II", mem, OFF_MAGIC, MAGIC, VERSION)
    server = Server(a.sock, mem, a.env)
    try:
        server.make()
    except BridgeError as e:
        server.error(e.code, str(e))
        return 1
    except Exception as e:  # an exception inside the env's constructor
        server.error(NE_EIO, f"making the env raised {describe(e)}")
        return 1
    server.reply(REPLY_HELLO)
    try:
        server.serve()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the C side went away: nothing left to serve
    finally:
        try:
            server.env.close()
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
