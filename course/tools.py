"""The lesson's tools: what the agent can do, and the schemas that tell the model so.

Read-only tools look at a small workspace shipped with the course (this week's
meeting notes), at an offline search corpus, and at the mail server's record of
what was sent. `send_email` is the one tool with an effect in the world: it
delivers a real message over SMTP to the local server of `course.mail`.

`execute_tool` never raises: a wrong tool name or bad input comes back as an
error string, the way a tool_result would carry it to the model.

Lesson 4 adds idempotency keys. `execute_tool(name, input, idempotency_key=...)`
hands the key to a tool that has an effect: `send_email` turns it into the
message's Message-ID, and the mail server delivers a Message-ID only once (a
retry gets "already delivered"). `lookup_effect(name, key)` asks the service,
read-only, whether a keyed call reached it.
"""
import json
import mailbox
import os
import smtplib
import time
from email import message_from_binary_file, policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import regex

WORKSPACE = Path(__file__).parent / "workspace"
WEB_CORPUS = Path(__file__).parent / "web_corpus.json"
GREP_SECONDS = 2.0  # one grep call at most

# Set by course.mail.MailServer while it runs; child processes inherit them.
SMTP_PORT_ENV = "COURSE_SMTP_PORT"
MAILDIR_ENV = "COURSE_MAILDIR"
# A keyed email's Message-ID is <key@IDEMPOTENCY_DOMAIN>; the server answers a repeat with ALREADY_DELIVERED.
IDEMPOTENCY_DOMAIN = "idempotency.example.com"
ALREADY_DELIVERED = "already delivered"

TOOLS = [
    {
        "name": "list_dir",
        "description": "列出工作区里一个文件夹的内容（只读）。",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "相对工作区的路径，如 ./notes"}},
            "required": ["path"],
        },
    },
    {
        "name": "read_file",
        "description": "读取工作区里一个文本文件的全部内容（只读）。",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "如 ./notes/meeting-08-25.md"}},
            "required": ["path"],
        },
    },
    {
        "name": "grep",
        "description": "在工作区的文件里按正则表达式查找行，返回“文件:行号: 内容”（只读）。",
        "input_schema": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "在哪个文件夹里找，默认整个工作区"},
            },
            "required": ["pattern"],
        },
    },
    {
        "name": "web_search",
        "description": "在离线语料库里搜索网页，返回标题、地址和摘要（只读）。",
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
    {
        "name": "list_sent_emails",
        "description": "查看邮件服务器上已经发出的邮件：时间、收件人、主题（只读）。发信前可以先查，避免重复。",
        "input_schema": {
            "type": "object",
            "properties": {"to": {"type": "string", "description": "只看发给这个地址的邮件（可选）"}},
        },
    },
    {
        "name": "send_email",
        "description": "真的发出一封邮件（高影响：发出后无法撤回）。",
        "input_schema": {
            "type": "object",
            "properties": {
                "to": {"type": "string"},
                "subject": {"type": "string"},
                "body": {"type": "string", "description": "正文（可选）"},
            },
            "required": ["to", "subject"],
        },
    },
]


class ToolError(Exception):
    """A failure the model should read about, not a crash of the loop."""


def _in_workspace(path: str) -> Path:
    target = (WORKSPACE / path).resolve()
    if target != WORKSPACE.resolve() and WORKSPACE.resolve() not in target.parents:
        raise ToolError(f"路径 {path} 不在工作区里")
    if not target.exists():
        raise ToolError(f"找不到 {path}")
    return target


def list_dir(path: str = ".") -> str:
    folder = _in_workspace(path)
    if not folder.is_dir():
        raise ToolError(f"{path} 不是文件夹")
    return "\n".join(p.name + ("/" if p.is_dir() else "") for p in sorted(folder.iterdir()))


def read_file(path: str) -> str:
    file = _in_workspace(path)
    if not file.is_file():
        raise ToolError(f"{path} 不是文件")
    return file.read_text(encoding="utf-8")


def grep(pattern: str, path: str = ".") -> str:
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise ToolError(f"正则表达式写错了：{exc}") from None
    root = _in_workspace(path)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    hits = []
    # the `regex` package, not `re`: a pattern that backtracks without end stops at the deadline, and
    # other threads (the grader's, the agent's) run meanwhile instead of waiting for the lock it holds
    deadline = time.monotonic() + GREP_SECONDS
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                found = compiled.search(line, timeout=left, concurrent=True)
            except TimeoutError:
                raise ToolError(f"正则表达式 {pattern!r} 匹配得太慢（超过 {GREP_SECONDS:g} 秒还没查完），"
                                "换一个简单些的写法") from None
            if found:
                hits.append(f"{file.relative_to(WORKSPACE)}:{number}: {line}")
    return "\n".join(hits) or "（没有匹配的行）"


def web_search(query: str) -> str:
    pages = json.loads(WEB_CORPUS.read_text(encoding="utf-8"))
    words = set(query.lower().split())
    scored = [(len(words & set((p["title"] + " " + p["text"]).lower().split())), p) for p in pages]
    found = [p for score, p in sorted(scored, key=lambda sp: -sp[0]) if score > 0][:3]
    return "\n\n".join(f"{p['title']}\n{p['url']}\n{p['text']}" for p in found) or "（没有搜到结果）"


def _mail_settings() -> tuple[int, Path]:
    port, maildir = os.environ.get(SMTP_PORT_ENV), os.environ.get(MAILDIR_ENV)
    if not port or not maildir:
        raise ToolError("邮件服务器没有运行：请在 `with MailServer():` 里运行 agent")
    return int(port), Path(maildir)


def read_maildir(maildir: Path) -> list[EmailMessage]:
    """The messages the mail server stored, oldest first, with headers decoded."""
    parse = lambda file: message_from_binary_file(file, policy=policy.default)  # noqa: E731
    return sorted(mailbox.Maildir(maildir, factory=parse, create=False), key=lambda m: m["X-Received-At"])


def message_id_for(key: str) -> str:
    """The Message-ID a key becomes: a retry with the same key carries the same id."""
    return f"<{key}@{IDEMPOTENCY_DOMAIN}>"


def message_id_of(message: EmailMessage) -> str:
    """A message's Message-ID as sent: a long one is folded onto a line of its own, which unfolds to a leading
    space."""
    return str(message["Message-ID"] or "").strip()


def find_message(maildir: Path, message_id: str) -> EmailMessage | None:
    """The stored message with this Message-ID, if the server has one."""
    return next((m for m in read_maildir(maildir) if message_id_of(m) == message_id), None)


def sent_text(to: str, subject: str, message_id: str) -> str:
    """What send_email answers for a delivered message, and what a lookup by key answers for it."""
    return f"已发送给 {to}，主题「{subject}」，Message-ID {message_id}"


def _sent_text(message: EmailMessage) -> str:
    return sent_text(message["To"], message["Subject"], message_id_of(message))


def list_sent_emails(to: str | None = None) -> str:
    _, maildir = _mail_settings()
    sent = [m for m in read_maildir(maildir) if to is None or m["To"] == to]
    if not sent:
        return "（服务器上还没有发出过邮件）" if to is None else f"（服务器上没有发给 {to} 的邮件）"
    return "\n".join(f"{m['X-Received-At']}  收件人 {m['To']}  主题「{m['Subject']}」" for m in sent)


def send_email(to: str, subject: str, body: str = "", idempotency_key: str | None = None) -> str:
    port, _ = _mail_settings()
    message = EmailMessage()
    message["From"] = "agent@example.com"
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id_for(idempotency_key) if idempotency_key else make_msgid(domain="example.com")
    message.set_content(body or "（无正文）")
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            # Step by step rather than send_message, which drops the server's reply to DATA: that reply
            # says whether this Message-ID was delivered now or already before.
            smtp.ehlo()
            for code, reply in (smtp.mail(message["From"]), smtp.rcpt(to)):
                if code != 250:
                    raise smtplib.SMTPResponseException(code, reply)
            code, reply = smtp.data(message.as_bytes())
            if code != 250:
                raise smtplib.SMTPResponseException(code, reply)
    except (OSError, smtplib.SMTPException) as exc:
        raise ToolError(f"邮件没有发出去：{exc}") from None
    if ALREADY_DELIVERED.encode() in reply:
        return _sent_text(message) + "（服务器认出了这个幂等键：这封信之前已经送达，这次没有再投递）"
    return _sent_text(message)


class ServiceUnavailable(ToolError):
    """The service cannot say whether a keyed call reached it."""


def _lookup_email(key: str) -> str | None:
    try:
        port, maildir = _mail_settings()
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            smtp.noop()  # is the server there to answer at all?
    except (ToolError, OSError, smtplib.SMTPException) as exc:
        raise ServiceUnavailable(f"邮件服务器无法回答：{exc}") from None
    message = find_message(maildir, message_id_for(key))
    return None if message is None else _sent_text(message)


_LOOKUPS = {"send_email": _lookup_email}  # the tools whose service can be asked by key


def lookup_effect(name: str, key: str) -> str | None:
    """Ask the service behind a tool whether the call with this idempotency key reached it (read-only).

    Returns what the call's result was (the same text the tool returned), or None when the service has no
    such call. Raises ServiceUnavailable when it cannot tell: the server is down, or the tool has no lookup.
    """
    lookup = _LOOKUPS.get(name)
    if lookup is None:
        raise ServiceUnavailable(f"{name} 背后的服务不支持按幂等键查询")
    return lookup(key)


_TOOL_FUNCTIONS = {f.__name__: f for f in (list_dir, read_file, grep, web_search, list_sent_emails, send_email)}
_KEYED_TOOLS = {"send_email"}  # the tools that take an idempotency key


def execute_tool(name: str, input: dict, idempotency_key: str | None = None) -> str:
    """Run one tool call and return its output as text; failures become error text.

    A tool with an effect gets `idempotency_key` (lesson 4: the pending call's tool_use id); the others ignore it.
    """
    function = _TOOL_FUNCTIONS.get(name)
    if function is None:
        return f"错误：没有名为 {name!r} 的工具。可用的工具：{', '.join(_TOOL_FUNCTIONS)}"
    if not isinstance(input, dict):
        return f"错误：工具 {name} 的参数必须是一个对象（dict），收到的是 {type(input).__name__}"
    if "idempotency_key" in input:  # the key is the call's, not the tool's: no tool's input_schema has it
        return (f"错误：工具 {name} 的参数里没有 idempotency_key：幂等键要作为 execute_tool 的参数传进来"
                "（execute_tool(name, input, idempotency_key=...)），不要放进 input")
    options = {"idempotency_key": idempotency_key} if idempotency_key and name in _KEYED_TOOLS else {}
    try:
        return function(**input, **options)
    except TypeError as exc:
        return f"错误：工具 {name} 的参数不对（{exc}）"
    except (ToolError, OSError, UnicodeDecodeError) as exc:
        return f"错误：{exc}"
