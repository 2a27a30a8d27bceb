"""NAOqi 2.x's ``qi``: a ``Session`` whose ``service("ALMotion")`` / ``service("ALRobotPosture")``
give the suite's clients (``nao_motion.naoqi``), and an ``Application`` that makes one from
``--qi-url``.

    session = qi.Session()
    session.connect("tcp://" + ip + ":" + str(port))   # RuntimeError: bad URL or no suite
    motion_service = session.service("ALMotion")
"""

from __future__ import annotations

import threading
from urllib.parse import urlsplit

from . import broker

DEFAULT_URL = "tcp://127.0.0.1:9559"


def parse_url(url: object) -> tuple[str, int]:
    """(host, port) of a qi URL (``tcp://host:port``, ``tcps://``, or ``host[:port]``)."""
    if not isinstance(url, str) or not url.strip():
        raise RuntimeError(f"invalid URL {url!r}: expected tcp://<ip>:<port>")
    parts = urlsplit(url if "://" in url else "tcp://" + url)
    try:
        port = parts.port if parts.port is not None else 9559
    except ValueError as err:
        raise RuntimeError(f"invalid URL {url!r}: {err}") from None
    if parts.scheme not in ("tcp", "tcps") or not parts.hostname:
        raise RuntimeError(f"invalid URL {url!r}: expected tcp://<ip>:<port>")
    broker.check_address(parts.hostname, port)
    return parts.hostname, port


class Session:
    """A connection to the robot: the suite in the ROS graph (the URL is checked, not dialled)."""

    def __init__(self) -> None:
        self.url: str | None = None

    def connect(self, url: str = DEFAULT_URL) -> None:
        parse_url(url)
        broker.motion_client()
        self.url = url

    def isConnected(self) -> bool:  # noqa: N802 (qi's name)
        return self.url is not None

    def service(self, name: str):
        if self.url is None:
            raise RuntimeError(f"service({name!r}) on a session that is not connected: connect(url) first")
        return broker.service(name)

    def close(self) -> None:
        """This session is closed; the process's client stays for the other proxies and sessions."""
        self.url = None


class Application:
    """qi's Application: the session of ``--qi-url`` (else DEFAULT_URL), connected by ``start()``;
    ``run()`` blocks until ``stop()``."""

    def __init__(self, args: list[str] | None = None, url: str | None = None) -> None:
        self.url = url or _qi_url(list(args or [])) or DEFAULT_URL
        self.session = Session()
        self._stopped = threading.Event()

    def start(self) -> None:
        self.session.connect(self.url)

    def run(self) -> None:
        if not self.session.isConnected():
            self.start()
        self._stopped.wait()

    def stop(self) -> None:
        self._stopped.set()


def _qi_url(args: list[str]) -> str | None:
    for i, arg in enumerate(args):
        if arg.startswith("--qi-url="):
            return arg.split("=", 1)[1]
        if arg == "--qi-url" and i + 1 < len(args):
            return args[i + 1]
    return None
