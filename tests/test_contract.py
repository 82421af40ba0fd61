"""Each equivalence of autograder.contract, and what it does not accept."""
import copy

import pytest

from autograder import contract
from autograder.contract import checkpoint_differences, error_kind, same, same_messages

CALL = {"id": "toolu_01X", "name": "read_file", "input": {"path": "./notes/meeting-08-25.md"}}


def checkpoint(**fields) -> dict:
    state = {"version": 1, "task": "整理纪要", "turns": 3, "tokensUsed": 1200,
             "messages": [{"role": "user", "content": "整理纪要"},
                          {"role": "assistant", "content": [{"type": "text", "text": "先读。"},
                                                            {"type": "tool_use", **CALL}]}],
             "pendingToolUse": dict(CALL)}
    return {**state, **fields}


def answered(content, **result) -> dict:
    state = checkpoint(pendingToolUse=None)
    state["messages"].append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": CALL["id"], "content": content, **result}]})
    return state


def test_key_order_is_no_difference_but_types_are():
    assert same({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1})
    for other in (1.0, True, "1"):
        assert not same(1, other)
    assert not same({"a": 1}, {"a": 1, "b": None})


def test_the_task_as_a_string_or_as_a_text_block():
    assert same_messages([{"role": "user", "content": "整理纪要"}],
                         [{"role": "user", "content": [{"type": "text", "text": "整理纪要"}]}])
    assert not same_messages([{"role": "user", "content": "整理纪要"}],
                             [{"role": "user", "content": [{"type": "text", "text": "整理会议纪要"}]}])
    assert not same_messages([{"role": "user", "content": "整理纪要"}], [{"role": "assistant", "content": "整理纪要"}])


def test_a_tool_result_as_text_or_text_blocks():
    assert checkpoint_differences(answered([{"type": "text", "text": "结论："}, {"type": "text", "text": "一"}]),
                                  answered("结论：一")) == []
    assert checkpoint_differences(answered("结论：二"), answered("结论：一")) == ["messages"]


def test_no_content_is_an_empty_content():
    """An empty output's result with content "", [] or no content at all: the API's content is optional. The three
    alike for same_messages, first_difference (also judging the output) and checkpoint_differences."""
    empty = answered("")
    no_content = copy.deepcopy(empty)
    del no_content["messages"][-1]["content"][0]["content"]
    judged = {CALL["id"]: lambda content: contract.carries_output(content, "")}
    for mine in (no_content, answered([])):
        for wanted in (empty, no_content):
            assert same_messages(mine["messages"], wanted["messages"])
            assert contract.first_difference(mine["messages"], wanted["messages"]) is None
            assert contract.first_difference(mine["messages"], wanted["messages"], judged) is None
            assert checkpoint_differences(mine, wanted) == [] and checkpoint_differences(mine, wanted, judged) == []
    assert contract.first_difference(no_content["messages"], answered("结论")["messages"]) == (
        "messages[2].content[0].content", contract.MISSING, [{"type": "text", "text": "结论"}])
    assert not same_messages(answered(None)["messages"], empty["messages"])  # null is no content the API reads
    assert checkpoint_differences(no_content, answered("", is_error=True)) == ["messages"]


def test_is_error_false_is_is_error_left_out_but_no_string_is_a_boolean():
    assert checkpoint_differences(answered("结论", is_error=False), answered("结论")) == []
    assert checkpoint_differences(answered("结论", is_error="true"), answered("结论", is_error=True)) == ["messages"]
    assert checkpoint_differences(answered("结论", is_error=1), answered("结论", is_error=True)) == ["messages"]
    assert checkpoint_differences(answered("结论"), answered("结论", is_error=True)) == ["messages"]


def test_lesson4_flags_a_failure_either_way_a_success_never_an_unknown_always():
    """Lesson 4's is_error: a failed tool's result (its output begins with "错误") flagged or not, a success's never,
    an unknown outcome's always; only True and False are flags. first_difference judges it so where given `flags`
    (lesson 4), and compares it with the wanted one where not (lesson 3, whose reference flags a failure)."""
    failure, success = "错误：read_file 没有完成：文件不存在", "结论一"
    for flag in (True, False, contract.MISSING):
        assert contract.error_flag_right(flag, failure)
    for output in (success, "", "结论一\n09:14 错误：磁盘空间不足（一行日志）", "ERROR disk quota exceeded"):
        assert contract.error_flag_right(False, output) and contract.error_flag_right(contract.MISSING, output)
        assert not contract.error_flag_right(True, output)
    assert contract.error_flag_right(True, contract.UNKNOWN)
    for flag in (False, contract.MISSING, "true", 1, None):
        assert not contract.error_flag_right(flag, contract.UNKNOWN)
    for flag in ("true", 1, None):
        assert not contract.error_flag_right(flag, failure) and not contract.error_flag_right(flag, success)

    flagged, plain = answered(failure, is_error=True)["messages"], answered(failure)["messages"]
    where = "messages[2].content[0].is_error"
    assert contract.first_difference(flagged, plain) == (where, True, contract.MISSING)
    for mine, wanted in ((flagged, plain), (plain, flagged), (answered(failure, is_error=False)["messages"], plain)):
        assert contract.first_difference(mine, wanted, flags={CALL["id"]: failure}) is None
    assert contract.first_difference(answered(failure, is_error="true")["messages"], plain,
                                     flags={CALL["id"]: failure}) == (where, "true", contract.MISSING)
    assert contract.first_difference(answered(success, is_error=True)["messages"], answered(success)["messages"],
                                     flags={CALL["id"]: success}) == (where, True, contract.MISSING)
    unknown = answered("结果未知，请先确认", is_error=True)["messages"]
    judged = {CALL["id"]: contract.free_text}
    assert contract.first_difference(answered("不知道做没做，先查一下", is_error=True)["messages"], unknown, judged,
                                     {CALL["id"]: contract.UNKNOWN}) is None
    assert contract.first_difference(answered("结果未知，请先确认")["messages"], unknown, judged,
                                     {CALL["id"]: contract.UNKNOWN}) == (where, contract.MISSING, True)


def test_the_output_may_have_words_around_it():
    assert contract.carries_output([{"type": "text", "text": "重新读到：结论一"}], "结论一")
    assert not contract.carries_output("结论二", "结论一")
    assert contract.carries_output("结论一", "\n结论一\n")  # the whitespace around it left off: the same text to read
    assert not contract.carries_output("结论", "结论一\n")
    judged = {CALL["id"]: lambda content: contract.carries_output(content, "结论一")}
    assert checkpoint_differences(answered("重新读到：结论一"), answered("结论一"), judged) == []
    assert checkpoint_differences(answered("结论二"), answered("结论一"), judged) == ["messages"]
    assert checkpoint_differences(answered("重新读到：结论一"), answered("结论一")) == ["messages"]  # only where judged


def test_the_wording_of_an_unknown_outcome_is_free_but_not_empty():
    expected = answered("send_email 的结果未知", is_error=True)
    free = {CALL["id"]: contract.free_text}
    assert checkpoint_differences(answered("不知道发没发出去，请先查一下", is_error=True), expected, free) == []
    assert checkpoint_differences(answered(" ", is_error=True), expected, free) == ["messages"]
    assert checkpoint_differences(answered("不知道", is_error=False), expected, free) == ["messages"]
    assert checkpoint_differences(answered("不知道", is_error=True), expected) == ["messages"]  # only where free


def test_a_new_dict_or_the_changed_argument():
    given = checkpoint()
    reference = answered("结论")
    mutated = given
    mutated["messages"].append(reference["messages"][-1])
    mutated["pendingToolUse"] = None
    fresh = copy.deepcopy(reference)
    for value in (mutated, fresh):
        assert checkpoint_differences(contract.returned_state(value), reference) == []
    assert contract.returned_state(None) is None


def test_a_function_that_only_decides_leaves_its_argument():
    before = checkpoint()
    assert contract.untouched(before, copy.deepcopy(before))
    assert not contract.untouched(before, {**before, "pendingToolUse": None})


def test_six_fields_and_no_more():
    assert checkpoint_differences(checkpoint(), checkpoint()) == []
    assert checkpoint_differences({**checkpoint(), "savedAt": "12:00"}, checkpoint()) == ["savedAt"]
    without = {k: v for k, v in checkpoint().items() if k != "turns"}
    assert checkpoint_differences(without, checkpoint()) == ["turns"]
    dumped = checkpoint(pendingToolUse={**CALL, "type": "tool_use"})
    assert checkpoint_differences(dumped, checkpoint()) == ["pendingToolUse"]
    assert checkpoint_differences(None, checkpoint()) == list(contract.CHECKPOINT_FIELDS)


@pytest.mark.parametrize("error, kind", [
    (ValueError("坏了"), "value_error"), (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), "value_error"),
    (IsADirectoryError(21, "folder"), "os_error"), (PermissionError(13, "denied"), "os_error"),
    (FileNotFoundError(2, "gone"), "other"), (TypeError("x"), "other"),
    ({"type": "JSONDecodeError", "value_error": True}, "value_error"),
    ({"type": "PermissionError", "value_error": False}, "os_error"),
    ({"type": "FileNotFoundError", "value_error": False}, "other"),
    ({"type": "KeyError", "value_error": False}, "other"),
])
def test_errors_by_their_kind(error, kind):
    assert error_kind(error) == kind


def test_the_first_difference_of_two_conversations_is_where_the_api_reads_them_apart():
    """first_difference agrees with same_messages and checkpoint_differences, and names the place."""
    judged = {CALL["id"]: lambda content: contract.carries_output(content, "结论一")}
    for mine, wanted, results in ((answered("结论一", is_error=False), answered("结论一"), None),
                                  (answered([{"type": "text", "text": "结论"}, {"type": "text", "text": "一"}]),
                                   answered("结论一"), None),
                                  (answered("重新读到：结论一"), answered("结论一"), judged)):
        assert contract.first_difference(mine["messages"], wanted["messages"], results) is None
    assert contract.first_difference(answered("结论一", is_error=True)["messages"], answered("结论一")["messages"]) == (
        "messages[2].content[0].is_error", True, contract.MISSING)
    assert contract.first_difference(answered("结论二")["messages"], answered("结论一")["messages"], judged) == (
        "messages[2].content[0].content", [{"type": "text", "text": "结论二"}], [{"type": "text", "text": "结论一"}])
    shorter = checkpoint()["messages"]
    assert contract.first_difference(shorter, answered("结论一")["messages"])[:2] == ("messages[2]", contract.MISSING)
    assert contract.first_difference([{"role": "user", "content": "整理纪要"}],
                                     [{"role": "user", "content": "整理会议纪要"}]) == (
        "messages[0].content[0].text", "整理纪要", "整理会议纪要")


def test_a_null_field_is_not_a_field_left_out():
    """is_error: False is the one default the contract fills in; model_dump()'s nulls (caller: null) are differences."""
    call = {"type": "tool_use", **CALL}
    dumped = [{"role": "assistant", "content": [{**call, "caller": None, "toolset_name": None}]}]
    assert not same_messages(dumped, [{"role": "assistant", "content": [call]}])
    assert contract.first_difference(dumped, [{"role": "assistant", "content": [call]}]) == (
        "messages[0].content[0].caller", None, contract.MISSING)


@pytest.mark.parametrize("a, b, equal", [
    ({"a": [1, {"b": 2}], "c": "x"}, {"c": "x", "a": [1, {"b": 2}]}, True),  # key order does not count
    ([1], [1.0], False), ({"a": True}, {"a": 1}, False), ({1: "x"}, {1.0: "x"}, False),  # Python's == says equal
    ([{"a": 1}], [{"a": 1, "b": None}], False), ("1", 1, False),
    ({"s": {1, 2}}, {"s": {2, 1}}, True), ({"s": {1}}, {"s": {1.0}}, True),  # no JSON: compared as Python values
])
def test_same_is_equality_as_json_data(a, b, equal):
    assert contract.same(a, b) is equal and contract.same(b, a) is equal


def test_a_list_of_records_may_come_as_any_iterable_of_them():
    records = [{"type": "intent", "toolUseId": "toolu_01X"}, {"type": "outcome", "toolUseId": "toolu_01X"}]
    assert "read_ledger" in contract.RETURNS_A_LIST
    for given in (records, iter(records), (r for r in records), tuple(records)):
        assert same(contract.listed(given), records)
    for other in ("intent\n", b"{}\n", {"type": "intent"}, None, 3):  # no list of records: judged as it is
        assert contract.listed(other) is other
