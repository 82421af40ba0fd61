"""Reading what one reconcile call did, for test_reconcile, and what the reference does on the same input."""
import copy
from dataclasses import dataclass

from autograder.contract import carries_output, checkpoint_differences, free_text, returned_state
from autograder.protocol import StepStatus

from .helpers import (api_advice, emails_in_step, expect, fail, output_said, pairing_problem, problem, same, short,
                      text_of, tools_answering)
from .shrink import counterexample, smallest_failing

NOT_RUN = "（评分器：你的代码没有执行这个工具）"  # what the reference's tool returns when the student's did not run it


@dataclass
class Reconciled:
    pending: dict  # the dangling call
    original: list  # the messages before reconcile
    returned: object  # what reconcile returned
    state: dict  # the checkpoint afterwards (the returned one, or the argument if it returned None)
    calls: list  # the tool calls that reached the grader's execute_tool during the call
    checkpoint: dict  # the checkpoint reconcile was given, as it was
    emails: int  # emails the grader's mail server received during the call, whatever way they were sent
    again: bool = False  # the same checkpoint was reconciled earlier in the process

    @property
    def again_said(self) -> str:
        return ("（这份检查点在同一个进程里第二次对账：对账之后、存档写完之前崩溃，磁盘上仍是存档点 A，重启后要再对账一次，"
                "每次都照样补上结果）") if self.again else ""

    def changed_fields(self) -> list:
        """The fields reconcile has no business changing (all but messages and pendingToolUse) that it changed."""
        return [key for key in ("version", "task", "turns", "tokensUsed")
                if key not in self.state or not same(self.state[key], self.checkpoint[key])]

    @property
    def tool(self) -> str:
        return self.pending["name"]

    def added(self) -> list:
        """The messages after the original ones (all of them if the original ones were changed)."""
        messages = self.state.get("messages")
        if not isinstance(messages, list):
            return []
        count = len(self.original)
        return messages[count:] if same(messages[:count], self.original) else messages[-1:]

    def result_block(self) -> dict:
        """The tool_result reconcile added; fail if there is none."""
        for message in reversed(self.added()):
            content = message.get("content") if isinstance(message, dict) else None
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
                if isinstance(content, list) else []
            if blocks:
                content = blocks[0].get("content")
                expect(content is None or isinstance(content, (str, list)),
                       f"{self.tool} 的 tool_result 里 content 是一个 {type(content).__name__}：content 只能是字符串，"
                       '或内容块的列表（[{"type": "text", "text": ...}]），这样的对话 API 会回 400')
                return blocks[0]
        fail(f"悬空的是 {self.tool}{self.again_said}：reconcile 没有追加 tool_result，这次调用在对话里仍然没有结果")


def reconciled(outcome, index: int) -> Reconciled:
    """Fail with a message if reconcile did not finish; else what it did."""
    checkpoint = outcome.scenario.meta["checkpoints"][index]
    pending = checkpoint["pendingToolUse"]
    what = f"reconcile（悬空的是 {pending['name']}）"
    message = problem(outcome, index, what)
    if message:
        fail(message)
    step = outcome.steps[index]
    value = step["value"]
    state = value
    if value is None and step.get("args_after"):
        state = step["args_after"][0]
    expect(isinstance(state, dict), f"{what} 应该返回检查点（一个 dict），你的函数返回了 {short(value)}")
    again = any(same(earlier, checkpoint) for earlier in outcome.scenario.meta["checkpoints"][:index])
    return Reconciled(pending, checkpoint["messages"], value, state, outcome.student_tool_calls(index), checkpoint,
                      len(emails_in_step(outcome, index)), again)


def check_rerun(result: Reconciled) -> None:
    """The read-only call went through execute_tool exactly once and its real output is the result."""
    names = [c["name"] for c in result.calls]
    expect(names == [result.tool], f"悬空的是只读的 {result.tool}：reconcile 应该通过 execute_tool 把它恰好再执行一次"
                                   f"（实际通过 execute_tool 执行的是：{short(names) if names else '什么也没有'}）")
    expect(same(result.calls[0]["input"], result.pending["input"]), f"重新执行 {result.tool} 时要用悬空调用原来的 input")
    block = result.result_block()
    expect(carries_output(block.get("content"), result.calls[0]["output"]),
           f"{result.tool} 的 tool_result 内容应该是 execute_tool 这次返回的真实输出{output_said(result.calls[0]['output'])}")


def the_result(result: Reconciled) -> dict:
    """The one tool_result block reconcile appended, checked strictly for pairing."""
    pending = result.pending
    messages = result.state.get("messages")
    expect(isinstance(messages, list), "对账之后的检查点里 messages 应该还是一个 list")
    count = len(result.original)
    expect(same(messages[:count], result.original),
           "原来的消息要原样保留，尤其是末尾那条发起工具调用的 assistant 消息：删掉它，模型就忘了自己做过的决定，"
           "已经发生的副作用也撤销不了")
    added = messages[count:]
    expect(added, f"悬空的是 {pending['name']}{result.again_said}：reconcile 没有追加 tool_result，tool_use 仍然没有配对，"
                  "API 会返回 400")
    expect(len(added) == 1, f"reconcile 应该在 messages 末尾追加恰好一条消息，你的追加了 {len(added)} 条")
    message = added[0]
    expect(isinstance(message, dict) and message.get("role") == "user",
           '追加的应该是一条 user 消息：{"role": "user", "content": [tool_result 块]}')
    content = message.get("content")
    expect(isinstance(content, list) and content, "追加的 user 消息的 content 应该是一个列表，里面放 tool_result 块")
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    expect(len(results) == 1, f"追加的消息里应该恰好有一个 tool_result 块，你的有 {len(results)} 个")
    block = results[0]
    expect(block is content[0], "tool_result 块要放在 content 的最前面")
    expect(same(block.get("tool_use_id"), pending["id"]),
           f"tool_result 的 tool_use_id 要等于悬空调用的 id（这里是 {pending['id']}），你的是 {short(block.get('tool_use_id'))}")
    trouble = pairing_problem(messages)
    if trouble and "is_error" in trouble:
        trouble = None  # a non-boolean is_error is the is_error check's business, not the pairing's
    if trouble and "must be non-empty" in trouble:
        trouble = api_advice(trouble)  # an empty text block: the output was wrapped, not the pairing that is off
    expect(trouble is None, f"对账之后的对话过不了 API 的配对检查：{short(trouble, 160)}")
    return block


def expected(reference, checkpoint: dict, calls: list) -> tuple:
    """(state, free): the reference's reconcile on the same checkpoint, each call of its tools answered with what
    the student's same call got; `free`: whether the wording of the result is free (the reference ran no tool)."""
    ran = []

    def execute_tool(name, tool_input):  # the same call: the same input as JSON data, whatever its keys' order
        ran.append(name)
        return next((c["output"] for c in calls if c["name"] == name and same(c["input"], tool_input)), NOT_RUN)

    with tools_answering(reference, execute_tool=execute_tool):
        state = reference.reconcile(copy.deepcopy(checkpoint))
    return state, not ran


def differences(reference, checkpoint: dict, value, calls: list) -> list:
    """The checkpoint fields where what reconcile returned differs from the reference's, by the contract: the
    result of a call not run is any text; of a call run again, one that carries the output it got."""
    state, free = expected(reference, checkpoint, calls)
    output = text_of(state["messages"][-1]["content"][0].get("content"))
    judge = free_text if free else (lambda content: carries_output(content, output))
    return checkpoint_differences(returned_state(value), state, {checkpoint["pendingToolUse"]["id"]: judge})


def check_same_as_reference(grading, outcome, index: int):
    """The checkpoint reconcile returned is the reference's, up to what the contract allows; if not, the
    smallest drawn checkpoint that still shows it."""
    result = reconciled(outcome, index)
    wrong = differences(grading.reference, result.checkpoint, result.returned, result.calls)
    if not wrong:
        return

    def still_wrong(shrunk, i, case):
        step = shrunk.steps[i]
        return step["status"] != StepStatus.RETURNED or bool(differences(grading.reference, case, step.get("value"),
                                                                shrunk.student_tool_calls(i)))

    smallest = smallest_failing(grading, f"reconcile_{outcome.scenario.name}_{index}", "reconcile",
                                result.checkpoint, still_wrong, outcome.scenario.steps[index].get("outputs"))
    fail(f"对账之后的检查点和课程规定的不一样（{'、'.join(wrong)}；悬空的是 {result.tool}）"
         + counterexample(smallest, grading.seed))
