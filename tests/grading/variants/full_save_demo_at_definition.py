"""满分：保存/读取的单元格末尾顺手演示了一遍：定义完函数就把一个小检查点存到 demo-checkpoint.json 再读回来。
这是单元格定义时留下的文件，不是哪一次 save_checkpoint 调用留下的多余文件。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(state, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as error:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{error}") from error
    try:
        state = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"检查点 {path} 不是完整的 JSON：{error}") from error
    if not isinstance(state, dict):
        raise ValueError(f"检查点 {path} 里不是一个 JSON 对象")
    if state.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state.get('version')}，这里只认版本 {CHECKPOINT_VERSION}")
    return state


demo = {"version": CHECKPOINT_VERSION, "task": "演示", "turns": 0, "tokensUsed": 0,
        "messages": [{"role": "user", "content": "演示"}], "pendingToolUse": None}
save_checkpoint(demo, "demo-checkpoint.json")
print("读回来一样吗？", load_checkpoint("demo-checkpoint.json") == demo)
