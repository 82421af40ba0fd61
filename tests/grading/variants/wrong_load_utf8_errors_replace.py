"""错：load_checkpoint 用 read_text(encoding="utf-8", errors="replace") 读，「免得遇到怪字符就崩」：GBK 存的检查点不再报错，
中文被换成 U+FFFD 之后照样解析成功、当成好文件续跑。课程：不是 UTF-8 文本就抛 ValueError，读不出来的检查点要人来看一眼。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if not isinstance(state, dict) or version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}（或者它不是一个 JSON 对象）")
    return state
