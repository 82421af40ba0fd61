"""满分：save_checkpoint 用 try/finally 收尾——没有换上去就删掉临时文件，不管出的是什么异常
（磁盘满的 OSError，JSON 存不了的 TypeError）；文件夹用 O_DIRECTORY 打开再 fsync。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    handle, scratch = tempfile.mkstemp(dir=path.parent, suffix=".json.tmp")
    replaced = False
    try:
        with open(handle, "w", encoding="utf-8") as out:
            json.dump(state, out, ensure_ascii=False, indent=1)
            out.flush()
            os.fsync(out.fileno())
        os.replace(scratch, path)
        replaced = True
    finally:
        if not replaced:
            os.unlink(scratch)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
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
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
