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

import importlib
import os
import struct
import sys
from typing import Any, Callable

if __package__:
    from . import _pyproc
else:  # run as a script from the source tree: the sibling module
    import _pyproc
BridgeError, describe = _pyproc.BridgeError, _pyproc.describe
NE_EIO, NE_ENOTFOUND, NE_EUNSUPPORTED = _pyproc.NE_EIO, _pyproc.NE_ENOTFOUND, _pyproc.NE_EUNSUPPORTED
CMD_QUIT = _pyproc.CMD_QUIT

# ---- the env protocol's fields (keep in sync with src/envs/gym/gym_proto.h) -------------------------
MAGIC = 0x5947454E
VERSION = 3
CMD_RESET, CMD_STEP = ord("R"), ord("S")
USER = _pyproc.OFF_USER
OFF_SEED, OFF_REWARD, OFF_TERMINATED, OFF_TRUNCATED = USER + 0, USER + 8, USER + 16, USER + 20
OFF_OBS_DIM, OFF_OBS_RANK, OFF_OBS_SHAPE = USER + 24, USER + 28, USER + 32
OFF_DISCRETE, OFF_N_ACTIONS, OFF_ACT_DIM, OFF_MAX_STEPS = USER + 44, USER + 48, USER + 52, USER + 56
OFF_HAS_THRESHOLD, OFF_THRESHOLD, OFF_ACT_LOW, OFF_ACT_HIGH = USER + 60, USER + 64, USER + 72, USER + 328
OFF_ACT, OFF_OBS = 3072, 4096
MAX_ACT = 32

# no TimeLimit inside the server: neuroevo applies the registered limit once, on the C side
NO_TIME_LIMIT = 1 << 62


class Server:
    """One Gymnasium env behind the shared block."""

    def __init__(self, channel: _pyproc.Channel, gym_id: str):
        self.channel = channel
        self.mem = channel.mem  # the block never grows for envs: views into it stay valid
        self.gym_id = gym_id
        self.env: Any = None
        self.np: Any = None
        self.obs: Any = None
        self.act: Any = None
        self.obs_start = 0
        self.act_start = 0
        self.put_obs: Callable[[Any], None] = self.put_box
        self.make_action: Callable[[], Any] = self.discrete_action

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
        env, mem, channel = self.env, self.mem, self.channel
        wait_request, reply = channel.wait_request, channel.reply
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
                channel.error(getattr(e, "code", NE_EIO), f"{'step' if cmd == CMD_STEP else 'reset'} raised {describe(e)}")
                continue
            reply(_pyproc.REPLY_OK)


def main(argv: list[str] | None = None) -> int:
    # run as a script, Python put this package's folder first on sys.path, where its modules would
    # shadow top-level ones; the working directory goes there instead, as with `python -m`, so that
    # gym:my_module:Env-v0 finds my_module.py beside the run
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path[0] = os.getcwd()
    p = _pyproc.arguments("neuroevo's Gymnasium env server (started by the C library)")
    p.add_argument("--env", required=True, help="Gymnasium id, optionally module:id")
    a = p.parse_args(argv)
    channel = _pyproc.Channel(a.sock, a.shm, a.shm_bytes, MAGIC, VERSION)
    server = Server(channel, a.env)
    try:
        server.make()
    except BridgeError as e:
        channel.error(e.code, str(e))
        return 1
    except Exception as e:  # an exception inside the env's constructor
        channel.error(NE_EIO, f"making the env raised {describe(e)}")
        return 1
    channel.reply(_pyproc.REPLY_HELLO)
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
