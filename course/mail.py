"""A real local mail server for `send_email`, started and stopped by the course.

Every message that arrives is written to a Maildir folder on disk, so the record
of what was delivered lives outside the agent: an agent process that is killed
can neither lose nor fake it, and a test counts deliveries there.

The server delivers each Message-ID once: a message whose Message-ID is already
stored is answered "250 already delivered" and not stored again. That is how it
recognises an idempotency key (lesson 4), which `send_email` turns into the
Message-ID; an email sent without a key gets a fresh Message-ID every time.

    with MailServer() as mail:
        run_agent("帮我把结论发邮件通知团队")
        print(mail.count())
"""
import mailbox
import os
import socket
import tempfile
from datetime import datetime
from email import message_from_bytes, policy
from pathlib import Path

from aiosmtpd.controller import Controller

from .tools import (ALREADY_DELIVERED, MAILDIR_ENV, SMTP_PORT_ENV, find_message, message_id_for, message_id_of,
                    read_maildir)


class _MaildirHandler:
    def __init__(self, maildir: mailbox.Maildir, path: Path, on_delivery=None):
        self.maildir, self.path = maildir, path
        self.on_delivery = on_delivery

    async def handle_DATA(self, server, session, envelope):
        # its headers unfolded, as read_maildir reads the stored ones: a long Message-ID is folded on the wire
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        # The server handles one message at a time, so nothing arrives between this look and the add.
        message_id = message_id_of(message)
        if message_id and find_message(self.path, message_id) is not None:
            return f"250 {ALREADY_DELIVERED}: {message_id}"
        message["X-Received-At"] = datetime.now().isoformat(timespec="milliseconds")
        self.maildir.add(message)
        if self.on_delivery:
            self.on_delivery(message)
        return "250 Message accepted for delivery"


def free_port() -> int:
    """A port free now on 127.0.0.1 (another program may take it before it is bound again)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _BoundController(Controller):
    """aiosmtpd's Controller serving on a socket bound here, to a port the system picks. Its own way, a port number
    bound later, loses a race now and then to another program on the machine (another grader's server, a
    connection's local port): "address already in use"."""

    def __init__(self, handler):
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        super().__init__(handler, hostname="127.0.0.1", port=self._socket.getsockname()[1])

    def _create_server(self):
        return self.loop.create_server(self._factory_invoker, sock=self._socket, ssl=self.ssl_context)


class MailServer:
    """SMTP on 127.0.0.1 (a free port), storing into `maildir` (a new temp folder by default).

    While it runs, `send_email` and `list_sent_emails` use it, in this process
    and in child processes started meanwhile. `on_delivery(message)` runs after a
    message is stored and before the sender hears "250", which lets a harness act
    at the exact moment an email has been delivered.
    """

    def __init__(self, maildir: str | os.PathLike | None = None, on_delivery=None):
        self._tempdir = None if maildir else tempfile.TemporaryDirectory(prefix="course-mail-")
        self.maildir_path = Path(maildir or self._tempdir.name) / "maildir"
        self._handler = _MaildirHandler(mailbox.Maildir(self.maildir_path, create=True), self.maildir_path,
                                        on_delivery)
        self._controller = None
        self._saved_env = {}

    @property
    def port(self) -> int:
        return self._controller.port

    def start(self) -> "MailServer":
        self._controller = _BoundController(self._handler)
        self._controller.start()
        for key, value in ((SMTP_PORT_ENV, str(self.port)), (MAILDIR_ENV, str(self.maildir_path))):
            self._saved_env[key] = os.environ.get(key)
            os.environ[key] = value
        return self

    def stop(self) -> None:
        if self._controller:
            self._controller.stop()
            self._controller = None
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._saved_env = {}

    def __enter__(self) -> "MailServer":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def received(self) -> list:
        """The delivered messages (`email.message.EmailMessage`), oldest first."""
        return read_maildir(self.maildir_path)

    def count(self) -> int:
        return len(self.received())

    def lookup(self, key: str):
        """The message delivered with this idempotency key, or None (the service's side of `lookup_effect`)."""
        return find_message(self.maildir_path, message_id_for(key))
