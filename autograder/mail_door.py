"""A step's SMTP port, served from outside the sandbox.

The step's first process listens on 127.0.0.1 in the step's own network namespace and hands the
listening socket to the grader (autograder.endpoint's hand-off) before any student code runs;
the step's environment names the port, as course.MailServer's does in the notebook. The grader
accepts every connection made to it and carries the bytes to and from the scenario's mail server
(course.MailServer, outside, counting deliveries by Message-ID). So a send counts whatever path it
takes: execute_tool, course.tools.send_email, or smtplib written by hand. With the service down,
each connection is reset at once, as a server that is not there would.
"""
import socket
import struct
import threading

MAX_CONNECTIONS = 32  # at once, per step: more are reset
CHUNK = 65536


class MailDoor:
    """Accepts on `listener` until closed; each connection is carried to the mail server at `port`."""

    def __init__(self, listener: socket.socket, port: int, down: bool):
        self.listener, self.port, self.down = listener, port, down
        self.open = threading.BoundedSemaphore(MAX_CONNECTIONS)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed: the step is over
                return
            if self.down or not self.open.acquire(blocking=False):
                _reset(connection)
                continue
            threading.Thread(target=self._carry, args=(connection,), daemon=True).start()

    def _carry(self, connection: socket.socket):
        try:
            with connection, socket.create_connection(("127.0.0.1", self.port), timeout=30) as server:
                back = threading.Thread(target=_pump, args=(server, connection), daemon=True)
                back.start()
                _pump(connection, server)
                back.join()
        except OSError:
            pass
        finally:
            self.open.release()

    def close(self):
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self.listener.close()


def _pump(source: socket.socket, target: socket.socket):
    """Bytes from source to target until source ends, then the end passed on."""
    try:
        while chunk := source.recv(CHUNK):
            target.sendall(chunk)
    except OSError:
        pass
    try:
        target.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _reset(connection: socket.socket):
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()
