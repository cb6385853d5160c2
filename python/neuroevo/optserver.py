# SPDX-License-Identifier: MIT
"""neuroevo's optimizer server: the Python half of run.algorithm = nevergrad | python (src/algos/pyopt.c).

One process per run holds one ask/tell optimizer and answers the C side's init, ask, tell, pickle
and unpickle requests through the shared block of _pyproc.py (layout in src/algos/pyopt_proto.h,
repeated below). The C side evaluates the candidates on its executors (threads or Redis workers) and
tells the losses back in candidate order, so the optimizer sees the same sequence of calls however
the candidates were evaluated. It is started by the C library, never by hand:

    python -m neuroevo.optserver --sock 3 --shm 4 --shm-bytes N

Determinism: Python's and NumPy's global generators are seeded from the run seed at init, and
their states travel with the optimizer's pickle. Errors (a missing package or class, an unknown
optimizer name with the nearest names, an exception inside the optimizer) go back as a code and a
one-line message; the C side stops the run with it.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import pickle
import random
import struct
import sys
import warnings
from typing import Any

if __package__:
    from . import _pyproc
    from .adapters import Nevergrad, OptimizerError
else:  # run as a script from the source tree: the sibling modules
    import _pyproc
    from adapters import Nevergrad, OptimizerError  # type: ignore[no-redef]

# ---- the optimizer protocol's fields (keep in sync with src/algos/pyopt_proto.h) -----------------
MAGIC = 0x54504F4E
VERSION = 1
CMD_INIT, CMD_ASK, CMD_TELL, CMD_SAVE, CMD_LOAD = (ord(c) for c in "IATSL")
USER = _pyproc.OFF_USER
OFF_DIM, OFF_COUNT, OFF_FLAG, OFF_LEN, OFF_LIMIT = USER + 0, USER + 4, USER + 8, USER + 16, USER + 24
OFF_DATA = 4096
WHAT = {CMD_INIT: "init", CMD_ASK: "ask", CMD_TELL: "tell", CMD_SAVE: "pickle", CMD_LOAD: "unpickle"}

BridgeError, describe = _pyproc.BridgeError, _pyproc.describe


def load_class(spec: str) -> Any:
    """module:Class (Class may be dotted), /path/file.py:Class (the file imported as a module of its
    own: a script's `if __name__ == "__main__":` part does not run) or pickle:/path (a class pickled
    by value, e.g. a notebook's, by neuroevo.algorithms.PythonOptimizer) -> the class."""
    if spec.startswith("pickle:"):
        try:
            with open(spec[7:], "rb") as f:
                return pickle.load(f)
        except Exception as e:
            raise BridgeError(_pyproc.NE_ENOTFOUND, f"cannot load the class from {spec[7:]}: {describe(e)}") from e
    module, _, name = spec.rpartition(":") if spec.count(":") > 1 else spec.partition(":")
    try:
        if module.endswith(".py"):
            obj: Any = _import_file(module)
        else:
            obj = importlib.import_module(module)
    except ImportError as e:
        raise BridgeError(_pyproc.NE_ENOTFOUND, f"cannot import '{module}' in {sys.executable}: {e}") from e
    for part in name.split("."):
        if not hasattr(obj, part):
            raise BridgeError(_pyproc.NE_ENOTFOUND, f"module '{module}' has no '{name}'")
        obj = getattr(obj, part)
    return obj


def _import_file(path: str) -> Any:
    """A .py file as the module __neuroevo_main__ (registered, so that its objects pickle and unpickle
    by reference); its folder joins sys.path for its own imports."""
    name = "__neuroevo_main__"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError as e:
        del sys.modules[name]
        raise ImportError(str(e)) from e
    return module


def keyword_options(text: str, names: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """``a=1, b=x0 * 2`` -> ([], {"a": 1, "b": ...}): call syntax, each value an expression over names."""
    if not text.strip():
        return [], {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError as e:
        raise BridgeError(_pyproc.NE_EINVAL, f"options = {text}: not keyword arguments ({e.msg})") from e
    assert isinstance(call, ast.Call)

    def value(node: ast.expr) -> Any:
        return eval(compile(ast.Expression(node), "<options>", "eval"), {"__builtins__": {}}, dict(names))

    try:
        return [value(a) for a in call.args], {k.arg: value(k.value) for k in call.keywords if k.arg}
    except Exception as e:
        raise BridgeError(_pyproc.NE_EINVAL, f"options = {text}: {describe(e)}") from e


class Driver:
    """Drives one optimizer object: batch classes (``ask()`` returns every candidate) or, with
    population N > 0, one-candidate classes (``ask()`` called N times, ``tell`` once per candidate)."""

    def __init__(self, obj: Any, dim: int, population: int, maximize: bool, recommend: bool):
        self.obj, self.dim, self.population, self.maximize = obj, dim, population, maximize
        self.pending: Any = None
        if recommend and not any(hasattr(obj, a) for a in ("recommend", "provide_recommendation", "mean")):
            raise BridgeError(_pyproc.NE_EINVAL, f"{type(obj).__name__} has no recommend() (nor a mean): add one, or set "
                                                 "eval_recommendation = false")

    def rows(self, batch: Any) -> Any:
        import numpy as np

        x = np.asarray(batch, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.dim or x.shape[0] < 1:
            raise BridgeError(_pyproc.NE_EINVAL, f"ask() returned candidates of shape {x.shape}, not (n, {self.dim})"
                              + (" (one candidate per ask: set population = N)" if x.ndim == 1 else ""))
        if not np.isfinite(x).all():
            raise BridgeError(_pyproc.NE_EINVAL, "ask() returned a candidate with NaN or infinite components")
        with np.errstate(over="ignore"):
            x32 = x.astype(np.float32)  # what the policy gets
        if not np.isfinite(x32).all():
            raise BridgeError(_pyproc.NE_ERANGE, f"ask() returned a candidate with components beyond float32's range "
                                                 f"(largest |x| = {np.abs(x).max():.3g}): the optimizer diverged")
        return x32

    def ask(self) -> Any:
        if self.population > 0:
            self.pending = [self.obj.ask() for _ in range(self.population)]
        else:
            self.pending = self.obj.ask()
        return self.rows(self.pending)

    def tell(self, losses: list[float]) -> None:
        if self.pending is None:
            raise BridgeError(_pyproc.NE_ESTATE, "tell without ask")
        values = [-v for v in losses] if self.maximize else losses
        if len(values) != len(self.pending):
            raise BridgeError(_pyproc.NE_EINVAL, f"{len(values)} losses for {len(self.pending)} candidates")
        if self.population > 0:
            for cand, v in zip(self.pending, values):
                self.obj.tell(cand, v)
        else:
            self.obj.tell(self.pending, values)
        self.pending = None

    def recommend(self) -> Any:
        obj = self.obj
        if hasattr(obj, "recommend"):
            x = obj.recommend()
        elif hasattr(obj, "provide_recommendation"):  # a bare Nevergrad optimizer
            x = obj.provide_recommendation().value
        else:
            x = obj.mean
        return self.rows([x])


class Server:
    """The optimizer behind the shared block."""

    def __init__(self, channel: _pyproc.Channel):
        self.channel = channel
        self.driver: Driver | None = None
        self.recommend = False
        self.dim = 0

    # ---- requests ------------------------------------------------------------------------------
    def init(self) -> None:
        import numpy as np

        mem = self.channel.mem
        dim, n = struct.unpack_from("<I", mem, OFF_DIM)[0], struct.unpack_from("<Q", mem, OFF_LEN)[0]
        x0 = np.frombuffer(mem, dtype=np.float64, count=dim, offset=OFF_DATA).copy()
        spec = json.loads(bytes(mem[OFF_DATA + 8 * dim:OFF_DATA + 8 * dim + n]).decode("utf-8"))
        seed = int(spec["seed"])
        seed32 = seed % 0xFFFFFFFF + 1  # pycma and others treat 0 as "seed from the clock"
        random.seed(seed)
        np.random.seed(seed32)
        self.dim, self.recommend = dim, bool(spec["recommend"])
        if spec["kind"] == "nevergrad":
            try:
                obj = Nevergrad(x0, optimizer=spec["optimizer"], population=int(spec["population"]),
                                budget=int(spec["budget"]), sigma=float(spec["sigma"]), seed=seed)
            except OptimizerError as e:
                raise BridgeError(_pyproc.NE_ENOTFOUND if e.missing else _pyproc.NE_EINVAL, str(e)) from e
            self.driver = Driver(obj, dim, 0, False, self.recommend)
            return
        cls = load_class(spec["class"])
        names = {"x0": x0.copy(), "dim": dim, "seed": seed32, "budget": None, "np": np}
        args, kwargs = keyword_options(spec["options"], names)
        obj = cls(*args, **kwargs)
        self.driver = Driver(obj, dim, int(spec["population"]), bool(spec["maximize"]), self.recommend)

    def ask(self) -> None:
        import numpy as np

        d = self.live()
        rows = d.ask()
        if self.recommend:
            rows = np.concatenate([rows, d.recommend()])
        ch = self.channel
        ch.reserve(OFF_DATA + rows.nbytes)
        ch.mem[OFF_DATA:OFF_DATA + rows.nbytes] = rows.tobytes()
        struct.pack_into("<II", ch.mem, OFF_COUNT, len(rows) - int(self.recommend), int(self.recommend))

    def tell(self) -> None:
        mem = self.channel.mem
        count = struct.unpack_from("<I", mem, OFF_COUNT)[0]
        self.live().tell(list(struct.unpack_from(f"<{count}d", mem, OFF_DATA)))

    def save(self) -> None:
        import numpy as np

        try:  # an optimizer whose class came by value (a notebook's) pickles by value too
            import cloudpickle as dumper
        except ImportError:
            dumper = pickle  # type: ignore[assignment]
        data = dumper.dumps({"optimizer": self.live().obj, "numpy": np.random.get_state(), "random": random.getstate()},
                            protocol=pickle.HIGHEST_PROTOCOL)
        ch = self.channel
        limit = struct.unpack_from("<Q", ch.mem, OFF_LIMIT)[0]
        fits = len(data) <= limit
        if fits:
            ch.reserve(OFF_DATA + len(data))
            ch.mem[OFF_DATA:OFF_DATA + len(data)] = data
        struct.pack_into("<I", ch.mem, OFF_FLAG, int(fits))
        struct.pack_into("<Q", ch.mem, OFF_LEN, len(data))

    def load(self) -> None:
        import numpy as np

        mem = self.channel.mem
        n = struct.unpack_from("<Q", mem, OFF_LEN)[0]
        state = pickle.loads(bytes(mem[OFF_DATA:OFF_DATA + n]))
        d = self.live()
        d.obj, d.pending = state["optimizer"], None
        np.random.set_state(state["numpy"])
        random.setstate(state["random"])

    def live(self) -> Driver:
        if self.driver is None:
            raise BridgeError(_pyproc.NE_ESTATE, "no optimizer yet (init first)")
        return self.driver

    # ---- the loop -------------------------------------------------------------------------------
    def serve(self) -> None:
        """Answers requests until told to quit or the C side goes away."""
        ch = self.channel
        handlers = {CMD_INIT: self.init, CMD_ASK: self.ask, CMD_TELL: self.tell, CMD_SAVE: self.save,
                    CMD_LOAD: self.load}
        while True:
            cmd = ch.wait_request()
            if cmd == _pyproc.CMD_QUIT:
                return
            ch.follow()
            what = WHAT.get(cmd, f"command {cmd:#04x}")
            try:
                handler = handlers.get(cmd)
                if handler is None:
                    raise BridgeError(_pyproc.NE_EIO, f"unknown command byte {cmd:#04x}")
                handler()
            except BridgeError as e:
                ch.error(e.code, f"{what}: {e}")
                continue
            except OptimizerError as e:  # the adapter's own diagnosis
                ch.error(_pyproc.NE_EINVAL, f"{what}: {e}")
                continue
            except MemoryError as e:
                ch.error(_pyproc.NE_ENOMEM, f"{what} raised {describe(e)}")
                continue
            except Exception as e:  # the optimizer's own failure: the C side stops the run with it
                ch.error(_pyproc.NE_EIO, f"{what} raised {describe(e)}")
                continue
            ch.reply(_pyproc.REPLY_OK)


def main(argv: list[str] | None = None) -> int:
    # run as a script, Python put this package's folder first on sys.path, where its modules would
    # shadow top-level ones; the working directory goes there instead, as with `python -m`, so that
    # python.class = my_module:Opt finds my_module.py beside the run
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path[0] = os.getcwd()
    # a script imported for its optimizer class must not start optimizers of its own (PythonOptimizer
    # checks this): that is what its `if __name__ == "__main__":` is for
    os.environ["NEUROEVO_IN_OPTIMIZER_SERVER"] = "1"
    # pycma's note that it cannot plot (no matplotlib) is no news in a server
    warnings.filterwarnings("ignore", message="Could not import matplotlib")
    a = _pyproc.arguments("neuroevo's optimizer server (started by the C library)").parse_args(argv)
    channel = _pyproc.Channel(a.sock, a.shm, a.shm_bytes, MAGIC, VERSION, keep_fd=True)
    try:
        import numpy  # noqa: F401  (every optimizer's vectors)
    except ImportError as e:
        channel.error(_pyproc.NE_ENOTFOUND, f"{e} in {sys.executable} (set NEUROEVO_PYTHON to a Python with numpy)")
        return 1
    channel.reply(_pyproc.REPLY_HELLO)
    try:
        Server(channel).serve()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the C side went away: nothing left to serve
    return 0


if __name__ == "__main__":
    sys.exit(main())
