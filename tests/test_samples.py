"""The lesson's sample checkpoints are complete, consistent, and resume to the end."""
import pytest

from course import execute_tool, load_sample
from course.model import check_tool_pairing, scripted_reply
from course.samples import SAMPLE_NAMES

LESSON_VALUES = {
    "cpA": ("帮我整理这周的会议纪要", 6, 18420, None),
    "cpB": ("帮我整理这周的会议纪要", 7, 19310,
            {"id": "toolu_01A", "name": "read_file", "input": {"path": "./notes/meeting-08-25.md"}}),
    "cpC": ("帮我把结论发邮件通知团队", 9, 24003,
            {"id": "toolu_01B", "name": "send_email", "input": {"to": "team@example.com", "subject": "本周结论"}}),
}


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_lesson_values(name):
    cp = load_sample(name)
    assert set(cp) == {"version", "task", "turns", "tokensUsed", "messages", "pendingToolUse"}
    assert (cp["task"], cp["turns"], cp["tokensUsed"], cp["pendingToolUse"]) == LESSON_VALUES[name]
    assert cp["version"] == 1 and cp["messages"][0] == {"role": "user", "content": cp["task"]}
    assert sum(m["role"] == "assistant" for m in cp["messages"]) == cp["turns"]


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_messages_follow_the_model_and_the_tools(name):
    """Each assistant turn is what the scripted model does there; each result is what the tool returns now."""
    messages = load_sample(name)["messages"]
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            expected = scripted_reply({"messages": messages[:i]})["content"]
            strip = lambda blocks: [{k: v for k, v in b.items() if k != "id"} for b in blocks]
            assert strip(message["content"]) == strip(expected), f"{name} messages.{i}"
        elif i > 0:
            (result,) = message["content"]
            (call,) = [b for b in messages[i - 1]["content"] if b["type"] == "tool_use"]
            assert result["tool_use_id"] == call["id"]
            assert result["content"] == execute_tool(call["name"], call["input"])


def test_pending_samples_are_dangling_and_cpA_is_not():
    for name in ("cpB", "cpC"):
        messages = load_sample(name)["messages"]
        assert messages[-1]["content"][-1]["id"] == LESSON_VALUES[name][3]["id"]
        with pytest.raises(Exception, match="without `tool_result`"):
            check_tool_pairing(messages)
    check_tool_pairing(load_sample("cpA")["messages"])


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_each_sample_resumes_to_completion(name, reference, client, mail, tmp_path):
    path = tmp_path / "checkpoint.json"
    reference.save_checkpoint(load_sample(name), path)
    final = reference.run_agent("ignored: resuming", client=client, path=path)
    assert final["pendingToolUse"] is None
    assert final["turns"] > LESSON_VALUES[name][1]
    last = final["messages"][-1]
    assert last["role"] == "assistant" and all(b["type"] == "text" for b in last["content"])
    check_tool_pairing(final["messages"])
    assert reference.load_checkpoint(path) == final
    # cpC on a fresh server: is_error, the model checks the sent mail, finds none, sends once.
    assert mail.count() == (1 if name == "cpC" else 0)
