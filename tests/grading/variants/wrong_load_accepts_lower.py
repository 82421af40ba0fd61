"""错：load_checkpoint 只拒绝比代码新的版本，版本 0、负数或不是整数的版本照样读进来（或者比较时抛 TypeError）。
旧格式的字段可能不一样，按新规则去读同样会错位，版本不等于 1 就要报错。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(state, file, ensure_ascii=False)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as error:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{error}") from error
    try:
        state = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    if not isinstance(state, dict) or "version" not in state:
        raise ValueError(f"检查点 {path} 里没有版本号")
    if state["version"] > CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {state['version']}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
