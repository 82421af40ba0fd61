"""满分（少见的写法）：临时文件的内容用 os.pwritev(fd, [data], 0, os.RWF_DSYNC) 写——RWF_DSYNC 是「这一次写入的 O_DSYNC」
（man pwritev2：Provide a per-write equivalent of the O_DSYNC open(2) flag），写返回时数据已经落盘，所以不再单独 fsync 它；
改名之后照样 fsync 文件夹。和 full_o_sync_save 是同一个道理，只是按次而不是按描述符。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        try:
            offset = 0
            while offset < len(data):
                offset += os.pwritev(fd, [data[offset:]], offset, os.RWF_DSYNC)
        finally:
            os.close(fd)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
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
