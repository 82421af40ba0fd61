"""满分：run_agent 包着一个类——Agent 记住 client 和 path，方法分别负责恢复、调用模型、执行工具和存档。"""
# %% run_agent
class Agent:
    def __init__(self, client, path):
        self.client = client if client is not None else make_client()
        self.path = path
        self.state = None

    def save(self):
        save_checkpoint(self.state, self.path)

    def restore(self, task):
        self.state = load_checkpoint(self.path)
        if self.state is None:
            self.state = {"version": CHECKPOINT_VERSION, "task": task, "turns": 0, "tokensUsed": 0,
                          "messages": [{"role": "user", "content": task}], "pendingToolUse": None}
        elif self.state["pendingToolUse"] is not None:
            self.state = reconcile(self.state)
            self.save()
        return self.state["messages"][-1]["role"] == "user"  # 最后是模型的收尾回复：已经做完

    def ask_model(self):
        self.state["turns"] += 1
        reply = self.client.messages.create(messages=self.state["messages"], **request_params())
        self.state["tokensUsed"] = reply.usage.input_tokens + reply.usage.output_tokens
        self.state["messages"].append(assistant_message(reply))
        call = next((b for b in reply.content if b.type == "tool_use"), None)
        self.state["pendingToolUse"] = None if call is None else {"id": call.id, "name": call.name, "input": call.input}
        self.save()  # 存档点 A
        return self.state["pendingToolUse"]

    def run_tool(self, call):
        output = execute_tool(call["name"], call["input"])
        self.state["messages"].append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call["id"], "content": output, "is_error": output[:2] == "错误"}]})
        self.state["pendingToolUse"] = None
        self.save()  # 存档点 B

    def run(self, task):
        unfinished = self.restore(task)
        while unfinished and self.state["turns"] < MAX_TURNS:
            call = self.ask_model()
            if call is None:
                break
            self.run_tool(call)
        return self.state


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    return Agent(client, path).run(task)
