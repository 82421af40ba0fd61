"""错：run_agent 写成一个类，状态的默认值写成类属性（messages = []）；新任务从 `self.messages` 开始，同一个 kernel 里
第二个新任务的 messages 里还留着上一个任务的整段对话（类属性被所有实例共用）。"""
# %% run_agent
class Agent:
    messages = []  # 所有实例共用同一个列表
    turns = 0
    tokens_used = 0
    pending = None

    def __init__(self, task, client, path):
        self.client, self.path = client, path
        loaded = load_checkpoint(path)
        self.task = task if loaded is None else loaded["task"]
        if loaded is None:
            self.messages.append({"role": "user", "content": task})
        else:
            self.messages = loaded["messages"]
            self.turns, self.tokens_used, self.pending = loaded["turns"], loaded["tokensUsed"], loaded["pendingToolUse"]
        self.fresh = loaded is None

    def state(self):
        return {"version": CHECKPOINT_VERSION, "task": self.task, "turns": self.turns, "tokensUsed": self.tokens_used,
                "messages": self.messages, "pendingToolUse": self.pending}

    def save(self):
        save_checkpoint(self.state(), self.path)

    def run(self):
        if self.pending is not None:
            reconciled = reconcile(self.state())
            self.messages, self.pending = reconciled["messages"], reconciled["pendingToolUse"]
            self.save()
        elif not self.fresh and self.messages[-1]["role"] == "assistant":
            return self.state()
        while self.turns < MAX_TURNS:
            self.turns += 1
            response = self.client.messages.create(messages=self.messages, **request_params())
            self.tokens_used = response.usage.input_tokens + response.usage.output_tokens
            self.messages.append(assistant_message(response))
            call = next((b for b in response.content if b.type == "tool_use"), None)
            self.pending = None if call is None else {"id": call.id, "name": call.name, "input": call.input}
            self.save()
            if call is None:
                break
            output = execute_tool(call.name, call.input)
            self.messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                                               "content": output, "is_error": output.startswith("错误")}]})
            self.pending = None
            self.save()
        return self.state()


def run_agent(task, client=None, path=CHECKPOINT_PATH):
    return Agent(task, client or make_client(), path).run()
