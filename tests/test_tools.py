"""The tools: read-only ones change nothing, send_email is counted at the SMTP server."""
import threading

from course import MailServer, TOOLS, execute_tool
from course.tools import WORKSPACE


def workspace_snapshot():
    return {p: p.read_bytes() for p in WORKSPACE.rglob("*") if p.is_file()}


def test_schemas_name_every_tool():
    names = {tool["name"] for tool in TOOLS}
    assert names == {"read_file", "grep", "list_dir", "web_search", "list_sent_emails", "send_email"}
    assert all(tool["input_schema"]["type"] == "object" for tool in TOOLS)


def test_read_only_tools_read_and_change_nothing(mail):
    before = workspace_snapshot()
    assert "meeting-08-25.md" in execute_tool("list_dir", {"path": "./notes"})
    assert "OOM Killer" in execute_tool("read_file", {"path": "./notes/meeting-08-25.md"})
    assert "notes/meeting-08-27.md" in execute_tool("grep", {"pattern": "高影响", "path": "./notes"})
    assert "issues/473" in execute_tool("web_search", {"query": "tool_use tool_result interrupted"})
    assert "还没有" in execute_tool("list_sent_emails", {})
    assert workspace_snapshot() == before
    assert mail.count() == 0


def test_send_email_delivers_to_the_server(mail):
    output = execute_tool("send_email", {"to": "team@example.com", "subject": "本周结论", "body": "见附件"})
    assert "已发送" in output
    assert mail.count() == 1
    message = mail.received()[0]
    assert (message["To"], message["Subject"]) == ("team@example.com", "本周结论")
    assert "本周结论" in execute_tool("list_sent_emails", {"to": "team@example.com"})
    execute_tool("send_email", {"to": "team@example.com", "subject": "本周结论"})
    assert mail.count() == 2  # the server counts every delivery, duplicates included


def test_bad_calls_come_back_as_error_text():
    cases = [("delete_everything", {}), ("read_file", {}), ("read_file", {"path": "../../etc/passwd"}),
             ("read_file", {"path": "./nope.md"}), ("grep", {"pattern": "("}), ("read_file", "notes"),
             ("list_dir", {"path": "./notes", "extra": 1}), ("send_email", {"to": "a", "subject": "b"})]
    for name, tool_input in cases:
        output = execute_tool(name, tool_input)
        assert isinstance(output, str) and output.startswith("错误"), (name, output)


def test_a_key_put_in_the_input_is_refused(mail):
    """The key goes to execute_tool, not into the tool's input (no input_schema has it): a send keyed that way is
    an error, and nothing is sent (probe 23: it used to go out keyed, as if the key had been given right)."""
    output = execute_tool("send_email", {"to": "team@example.com", "subject": "本周结论", "idempotency_key": "toolu_01K"})
    assert output.startswith("错误") and "idempotency_key" in output
    assert mail.count() == 0
    assert "已发送" in execute_tool("send_email", {"to": "team@example.com", "subject": "本周结论"},
                                    idempotency_key="toolu_01K")


def test_mail_server_leaves_no_thread_and_restores_env(monkeypatch):
    monkeypatch.delenv("COURSE_SMTP_PORT", raising=False)
    threads = threading.active_count()
    with MailServer() as server:
        assert server.port > 0
        execute_tool("send_email", {"to": "x@example.com", "subject": "s"})
    assert server.count() == 1  # still readable after stop
    assert threading.active_count() == threads
    assert "COURSE_SMTP_PORT" not in __import__("os").environ


def test_grep_is_bounded_per_call(tmp_path, monkeypatch):
    import time

    import course.tools

    started = time.monotonic()
    # catastrophic for the standard library's `re` on these lines (it never returns), immediate here
    assert execute_tool("grep", {"pattern": "(.|.)*X", "path": "."}) == "（没有匹配的行）"
    assert time.monotonic() - started < 1
    (tmp_path / "big.txt").write_text("a line\n" * 200_000, encoding="utf-8")
    monkeypatch.setattr(course.tools, "WORKSPACE", tmp_path)
    monkeypatch.setattr(course.tools, "GREP_SECONDS", 0.05)
    started = time.monotonic()
    output = execute_tool("grep", {"pattern": "nothing", "path": "."})
    assert "太慢" in output and time.monotonic() - started < 2, output
