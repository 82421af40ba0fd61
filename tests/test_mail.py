"""Idempotency keys at the mail server (lesson 4): a key is delivered once, and can be looked up."""
import json

import pytest

from course import MailServer, ServiceUnavailable, execute_tool, lookup_effect
from course.ledger import ledger_path, read_ledger

EMAIL = {"to": "team@example.com", "subject": "本周结论"}


def test_a_key_is_delivered_once_and_the_retry_is_told_so(mail):
    first = execute_tool("send_email", EMAIL, idempotency_key="toolu_01B")
    again = execute_tool("send_email", EMAIL, idempotency_key="toolu_01B")
    assert first.startswith("已发送") and "toolu_01B" in first
    assert again.startswith(first) and "之前已经送达" in again
    assert mail.count() == 1
    execute_tool("send_email", EMAIL, idempotency_key="toolu_01C")  # another call, another key
    assert mail.count() == 2


def test_a_key_long_enough_to_fold_its_header_is_delivered_once(mail):
    """A Message-ID past a header line's 78 characters is folded on the wire: the server compares it unfolded, as
    it reads its stored ones (a key made of a file's path sent the email twice)."""
    key = "/home/student/work/017e709f7143/work/ledger.jsonl"
    first = execute_tool("send_email", EMAIL, idempotency_key=key)
    again = execute_tool("send_email", EMAIL, idempotency_key=key)
    assert "之前已经送达" in again and again.startswith(first)
    assert mail.count() == 1
    assert lookup_effect("send_email", key) == first


def test_without_a_key_every_send_is_a_new_email(mail):
    for _ in range(2):
        assert "之前已经送达" not in execute_tool("send_email", EMAIL)
    assert mail.count() == 2


def test_read_only_tools_ignore_a_key(mail):
    assert execute_tool("list_dir", {"path": "./notes"}, idempotency_key="toolu_01X") == \
        execute_tool("list_dir", {"path": "./notes"})


def test_lookup_by_key_reads_what_was_delivered_and_sends_nothing(mail):
    assert lookup_effect("send_email", "toolu_01B") is None
    sent = execute_tool("send_email", EMAIL, idempotency_key="toolu_01B")
    assert lookup_effect("send_email", "toolu_01B") == sent
    assert mail.lookup("toolu_01B")["Subject"] == EMAIL["subject"]
    assert mail.lookup("toolu_01Z") is None
    assert mail.count() == 1


def test_a_new_server_on_the_same_maildir_still_knows_the_key(tmp_path):
    with MailServer(maildir=tmp_path):
        execute_tool("send_email", EMAIL, idempotency_key="toolu_01B")
    with MailServer(maildir=tmp_path) as restarted:
        assert "之前已经送达" in execute_tool("send_email", EMAIL, idempotency_key="toolu_01B")
        assert restarted.count() == 1


def test_the_service_that_cannot_answer_says_so(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_SMTP_PORT", raising=False)
    with pytest.raises(ServiceUnavailable, match="无法回答"):
        lookup_effect("send_email", "toolu_01B")  # no server running
    with MailServer() as server:
        port = server.port
    monkeypatch.setenv("COURSE_SMTP_PORT", str(port))  # a server that was there and is gone
    monkeypatch.setenv("COURSE_MAILDIR", str(tmp_path))
    with pytest.raises(ServiceUnavailable):
        lookup_effect("send_email", "toolu_01B")
    with MailServer(), pytest.raises(ServiceUnavailable, match="不支持"):
        lookup_effect("delete_branch", "toolu_01B")


def test_the_ledger_reader_drops_and_cuts_a_torn_last_line(tmp_path):
    path = ledger_path(tmp_path / "checkpoint.json")
    assert path == tmp_path / "ledger.jsonl" and read_ledger(path) == []
    path.write_text('{"type": "intent", "toolUseId": "toolu_01B"}\n{"type": "outc', encoding="utf-8")
    assert read_ledger(path) == [{"type": "intent", "toolUseId": "toolu_01B"}]
    assert path.read_text(encoding="utf-8").endswith("}\n")  # the next append starts on its own line
    with path.open("a", encoding="utf-8") as file:
        file.write('{"type": "outcome", "toolUseId": "toolu_01B", "output": "已发送"}\n')
    assert [r["type"] for r in read_ledger(path)] == ["intent", "outcome"]


def test_a_damaged_line_in_the_middle_is_an_error(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_text('{"type": "intent"}\nnot json\n{"type": "outcome"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="第 2 行"):
        read_ledger(path)


def test_a_ledger_record_holding_a_line_separator_is_one_record(tmp_path):
    """json.dumps(ensure_ascii=False), as the lesson asks, leaves U+2028 and U+0085 in a line: only "\\n" ends one."""
    record = {"type": "outcome", "toolUseId": "toolu_01B", "output": "第一段\u2028第二段\x85第三段"}
    path = tmp_path / "ledger.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_ledger(path) == [record]


def test_the_server_binds_the_port_it_is_given_at_once(monkeypatch):
    """A port found free and bound later may be taken in between (another grader's server on the machine): the
    server binds the one the system picks at once, so a port taken meanwhile cannot stop it."""
    import socket

    import course.mail

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setattr(course.mail, "free_port", lambda: taken.getsockname()[1])  # as if the race were lost
        with MailServer() as mail:
            port = mail.port
            assert port != taken.getsockname()[1]
            execute_tool("send_email", EMAIL, idempotency_key="toolu_01P")
            assert mail.count() == 1
    with pytest.raises(ConnectionRefusedError):  # stopped: nothing listens there any more
        socket.create_connection(("127.0.0.1", port), 1).close()
