"""满分（另一种写法）：run_agent 每轮用 IPython.display 显示进度：clear_output(wait=True) 之后 display(Markdown(...))
写出第几轮、模型要了什么工具；进度条用 tqdm.notebook（ipywidgets 的进度条），正常结束时 bar.close()，调用模型抛出异常时
不关（没有 try/finally：notebook 里进度条停在那里，tqdm 的监视线程一直睡着，什么也不做）。tqdm_notebook 的
self.disp = self.display 是一个引用环，抛出异常后这个进度条只有 gc 才收得掉：之前评分器的学生进程在等线程的 3 秒里
不做 gc，进度条还开着，监视线程算作还在运行（test_run_agent 4/5）；现在 child._idle_tqdm_monitor 先 gc 一次。"""
# %% run_agent
from IPython.display import Markdown, clear_output, display
from tqdm.notebook import tqdm


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    client = client or make_client()
    state = load_checkpoint(path)
    if state is None:
        state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                 "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
    elif state["pendingToolUse"] is not None:
        state = reconcile(state)
        save_checkpoint(state, path)
    elif state["messages"][-1]["role"] == "assistant":
        return state

    bar = tqdm(total=MAX_TURNS, initial=state["turns"])
    while state["turns"] < MAX_TURNS:
        state["turns"] += 1
        bar.update(1)
        response = client.messages.create(messages=state["messages"], **request_params())
        state["tokensUsed"] = response.usage.input_tokens + response.usage.output_tokens
        state["messages"].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == "tool_use"), None)
        state["pendingToolUse"] = (
            {"id": tool_use.id, "name": tool_use.name, "input": tool_use.input} if tool_use else None)
        save_checkpoint(state, path)  # 存档点 A
        clear_output(wait=True)
        display(Markdown(f"**第 {state['turns']} 轮**：" + (f"`{tool_use.name}`" if tool_use else "结束")))
        if tool_use is None:
            break
        output = execute_tool(tool_use.name, tool_use.input)
        result = {"type": "tool_result", "tool_use_id": tool_use.id, "content": output,
                  "is_error": output.startswith("错误")}
        state["messages"].append({"role": "user", "content": [result]})
        state["pendingToolUse"] = None
        save_checkpoint(state, path)  # 存档点 B
    bar.close()
    return state
