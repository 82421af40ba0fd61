"""满分：答题单元格里用了 IPython 的写法——%load_ext、%matplotlib inline、!echo 这些行魔法和命令，
%%time 单元格魔法，还有不用导入就能调用的 display()。它们在学生的 notebook 里都能用，评分器也要能用。"""
# %% read_only_tools
%load_ext autoreload
%autoreload 2
%matplotlib inline
!echo 只读工具定好了
READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}
# %% reconcile
%%time
def reconcile(cp):
    call = cp["pendingToolUse"]
    display(call)
    if call["name"] in READ_ONLY_TOOLS:
        text = execute_tool(call["name"], call["input"])
        block = {"type": "tool_result", "tool_use_id": call["id"], "content": text, "is_error": text.startswith("错误")}
    else:
        block = {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                 "content": f"{call['name']} 可能已经执行过，也可能没有（崩溃时结果还没记下），所以没有重做；请先核实。"}
    cp["messages"].append({"role": "user", "content": [block]})
    cp["pendingToolUse"] = None
    return cp
