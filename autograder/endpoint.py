"""The sandbox's doors out, two Unix sockets bound into the sandbox at /run/user/1000
(isolation.SOCKET_DIR_INSIDE):

- an HTTP server: every model call, tool call, lookup by key, stand-in and progress report of a step
  arrives here and goes to its scenario's run (autograder.scenario_run);
- the hand-off socket: before any student code runs, each step's first process connects here once, the
  kernel names its pid (SO_PEERCRED), so that the step can be killed from outside, and it hands over
  the step's SMTP port (a listening socket, SCM_RIGHTS), which the grader serves (autograder.mail_door).
"""
import json
import os
import socket
import socketserver
import struct
import threading
from http import HTTPStatus

from .protocol import ZYGOTE_TOKEN, Endpoint

MAX_REQUEST_BYTES = 16 * 1024 * 1024
MAX_HEADER_LINE, MAX_HEADERS = 65536, 100  # what http.server allows
CRASH_WAIT = 10.0  # seconds a killed step's process may take to be gone
INTERRUPT_WAIT = 2.0  # seconds an interrupted call's caller may take to give up its connection (else it was not)
MAX_SCENARIO_BYTES = 128 * 1024 * 1024  # all requests of one scenario: a child cannot fill the grader's memory


class Handler(socketserver.StreamRequestHandler):
    """One connection from inside the sandbox: HTTP/1.1 requests with a Content-Length body, answered in order.

    That is all the SDK and the step's poster send, so only that is read: a request line, header lines and the
    body, within fixed limits; anything else is answered with an error and the connection closed.
    (http.server parsed every request's headers with the email package: a fifth of the grader's own CPU.)
    """

    path = ""
    close_connection = False

    def setup(self):
        super().setup()
        self.server.sandbox.connections.opened()

    def handle(self):
        try:
            while not self.close_connection:
                self._one_request()
        except ConnectionResetError:  # after what it sent was read: the process left replies it did not wait for
            pass

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.sandbox.connections.closed()

    def _one_request(self):
        self.close_connection = True
        line = self.rfile.readline(MAX_HEADER_LINE + 1)
        if not line:
            return
        parts = line.split()
        if len(line) > MAX_HEADER_LINE or len(parts) != 3 or parts[2] not in (b"HTTP/1.1", b"HTTP/1.0"):
            return self._reply(400, {"error": "bad request line"})
        headers = {}
        for _ in range(MAX_HEADERS + 1):
            line = self.rfile.readline(MAX_HEADER_LINE + 1)
            if line in (b"\r\n", b"\n", b""):
                break
            name, colon, value = line.partition(b":")
            if len(line) > MAX_HEADER_LINE or not colon:
                return self._reply(400, {"error": "bad header"})
            headers[name.strip().lower()] = value.strip()
        else:
            return self._reply(400, {"error": "too many headers"})
        length = headers.get(b"content-length", b"0")
        if parts[0] != b"POST" or b"transfer-encoding" in headers or not length.isdigit():
            return self._reply(400, {"error": "only POST with a Content-Length"})
        self.close_connection = parts[2] == b"HTTP/1.0" or headers.get(b"connection", b"").lower() == b"close"
        self.path = parts[1].decode("latin-1")
        self.do_POST(int(length))

    def _peer_pid(self) -> int:
        return peer_pid(self.connection)

    def do_POST(self, length: int):
        sandbox = self.server.sandbox
        parts = self.path.split("?", 1)[0].split("/", 3)  # "", "s", token, rest
        run = sandbox.runs.get(parts[2]) if len(parts) == 4 and parts[1] == "s" else None
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True
            return self._reply(413, {"error": "too much data"})
        if run is None:
            self.rfile.read(length)
            if parts[1:] == ["s", ZYGOTE_TOKEN, Endpoint.HELLO]:
                sandbox.zygote_hello(self._peer_pid())
                self.close_connection = True  # so that, between steps, no connection is open
                return self._reply(200, {})
            return self._reply(404, {"error": "unknown"})
        with run.lock:
            run.received += length
            if run.received > MAX_SCENARIO_BYTES:
                self.close_connection = True
                return self._reply(413, {"error": "too much data"})
        raw = self.rfile.read(length)
        endpoint, _, detail = parts[3].partition("/")
        try:
            payload = json.loads(raw)
        except ValueError:
            return self._reply(400, {"error": "bad json"})
        if not isinstance(payload, dict):
            return self._reply(400, {"error": "bad json"})
        if endpoint == Endpoint.MODEL:
            return self._reply_unless_given_up(run.model_call(payload))
        if endpoint == Endpoint.EVENT:
            return self._reply(200, run.event(payload))
        if endpoint == Endpoint.FAILURE:
            run.failure = str(payload.get("traceback"))[-4000:]
            return self._reply(200, {})
        if endpoint == Endpoint.TOOL:
            reply = run.tool_call(payload)
            if reply is None:  # the grader is killing the step on purpose: no reply, not even a closed connection
                self.close_connection = True  # (a caller would send again); it ends when the caller is gone
                self.connection.settimeout(CRASH_WAIT)
                try:
                    while self.connection.recv(65536):
                        pass
                except OSError:
                    pass
                return
            return self._reply_unless_given_up(reply)
        if endpoint == Endpoint.LOOKUP:
            return self._reply(200, run.lookup(payload))
        if endpoint == Endpoint.STANDIN:
            return self._reply(200, run.standin(detail, payload))
        return self._reply(404, {"error": "unknown"})

    def _reply_unless_given_up(self, reply: dict):
        """The reply to a model or tool call, unless the call was interrupted and its caller gave up waiting for it."""
        if reply.pop("interrupted", False) and self._closed_within(INTERRUPT_WAIT):
            return None
        return self._reply(200, reply)

    def _closed_within(self, seconds: float) -> bool:
        """Whether the caller closes the connection within `seconds`, sending nothing (a caller waits for its reply)."""
        self.close_connection = True
        self.connection.settimeout(seconds)
        try:
            if not self.connection.recv(1):
                return True
        except TimeoutError:
            self.close_connection = False
        except OSError:
            return True
        finally:
            self.connection.settimeout(None)
        return False

    def _reply(self, status: int, body: dict):
        data = json.dumps(body, ensure_ascii=False).encode()
        closing = "Connection: close\r\n" if self.close_connection else ""
        # every status sent is a standard one (the grader's own, or course.model's 200 and 400)
        head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nServer: grader\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nrequest-id: req_grader\r\n"
                f"{closing}\r\n")
        try:
            self.wfile.write(head.encode("ascii") + data)
        except OSError:
            pass


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def peer_pid(connection: socket.socket) -> int:
    """The pid of the process on the other end, as the kernel names it in the grader's pid namespace."""
    pid, _, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid


class HandOffHandler(socketserver.BaseRequestHandler):
    """A step's first process: its scenario's token, and with it the step's listening SMTP socket. Taken once
    per job (later ones, a student's included, are closed unread); answered with one byte when taken."""

    def handle(self):
        self.request.settimeout(10)
        try:
            message, fds, _, _ = socket.recv_fds(self.request, 256, 4)
        except OSError:
            return
        listener, extra = (fds[0], fds[1:]) if fds else (None, [])
        for fd in extra:
            os.close(fd)
        run = self.server.sandbox.runs.get(message.decode("ascii", errors="replace"))
        try:
            listener = socket.socket(fileno=listener) if listener is not None else None
        except OSError:  # not a socket
            os.close(listener)
            listener = None
        taken = run is not None and listener is not None and run.handed_off(peer_pid(self.request), listener)
        if not taken and listener is not None:
            listener.close()
        try:
            self.request.sendall(b"1")
        except OSError:
            pass


class HandOffServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class Connections:
    """How many connections the server is still reading: after a step's processes are gone, what they sent
    (some of it without waiting for the reply) is all read once this is back to zero."""

    def __init__(self):
        self.count = 0
        self.changed = threading.Condition()

    def opened(self):
        with self.changed:
            self.count += 1

    def closed(self):
        with self.changed:
            self.count -= 1
            self.changed.notify_all()

    def wait_until_read(self, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.count == 0, timeout)
