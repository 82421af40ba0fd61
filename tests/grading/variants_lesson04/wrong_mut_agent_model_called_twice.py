"""错误（变异测试）：run_agent 每一轮调用两次模型（第一次的回复丢掉，只用第二次的），turns 只加一。"""
# %% run_agent
def run_agent(task, client=None, path=CHECKPOINT_PATH):
    """第 3 课的 run_agent，改两处：续跑时 reconcile(state, ledger_path(path))；执行工具走 execute_with_ledger。

    path 上有检查点就续跑，没有就从头开始；每一轮在存档点 A 和存档点 B 各 save_checkpoint(state, path) 一次。
    """
    client = client or make_client()
    ledger = ledger_path(path)
    state = load_checkpoint(path)
    if state is None:
        state = {'version': CHECKPOINT_VERSION, 'task': task, 'turns': 0, 'tokensUsed': 0, 'messages': [{'role': 'user', 'content': task}], 'pendingToolUse': None}
    elif state['pendingToolUse'] is not None:
        state = reconcile(state, ledger)
        save_checkpoint(state, path)
    while state['turns'] < MAX_TURNS:
        state['turns'] += 1
        response = client.messages.create(messages=state['messages'], **request_params())
        response = client.messages.create(messages=state['messages'], **request_params())
        state['tokensUsed'] = response.usage.input_tokens + response.usage.output_tokens
        state['messages'].append(assistant_message(response))
        tool_use = next((block for block in response.content if block.type == 'tool_use'), None)
        state['pendingToolUse'] = {'id': tool_use.id, 'name': tool_use.name, 'input': tool_use.input} if tool_use else None
        save_checkpoint(state, path)
        if tool_use is None:
            break
        output = execute_with_ledger(state['pendingToolUse'], ledger)
        state['messages'].append({'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': tool_use.id, 'content': output}]})
        state['pendingToolUse'] = None
        save_checkpoint(state, path)
    return state
