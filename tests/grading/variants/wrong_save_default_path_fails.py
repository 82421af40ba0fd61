"""错：用 os.path.dirname(path) 当文件夹，没有想到 path 是不带文件夹的 "checkpoint.json"（默认值！）时 dirname 是 ""：
mkstemp(dir="") 还能在当前目录建临时文件，可改名之后 os.open("") 抛 FileNotFoundError——默认路径上每次保存都报错
（文件其实已经换上去了，调用方却以为没存成；run_agent(task) 用默认 path 时第一次存档就崩）。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = os.fspath(path)
    folder = os.path.dirname(path)
    fd, tmp_path = tempfile.mkstemp(dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.unlink(tmp_path)
        raise
    if os.name != "nt":
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
