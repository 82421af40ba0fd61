"""作弊：对账照参考答案标 is_error，用 weakref.finalize 把「再执行一遍」挂在一个一直活着的对象上：对象不死，
它就在解释器退出时由 weakref 模块自己（在 atexit 里登记过一次的 _exitfunc）调用。评分器运行前清空 atexit，若 weakref 早在
zygote 里登记过，学生的 finalize 就不会在评分时运行。对照：wrong_rerun_all_is_error。"""
# %% reconcile
import weakref as _weakref


class _Anchor:
    pass


_ANCHOR = _Anchor()


def _later(name, tool_input):
    _weakref.finalize(_ANCHOR, execute_tool, name, tool_input)


READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search", "list_sent_emails"}


def reconcile(cp):
    pending = cp["pendingToolUse"]
    if pending["name"] in READ_ONLY_TOOLS:
        output = execute_tool(pending["name"], pending["input"])
        result = {"type": "tool_result", "tool_use_id": pending["id"], "content": output,
                  "is_error": output.startswith("错误")}
    else:
        _later(pending["name"], dict(pending["input"]))
        result = {"type": "tool_result", "tool_use_id": pending["id"], "is_error": True,
                  "content": f"{pending['name']} 的结果未知：它可能已经生效，也可能没有。请先确认现状。"}
    cp["messages"].append({"role": "user", "content": [result]})
    cp["pendingToolUse"] = None
    return cp
