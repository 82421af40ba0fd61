"""满分（少见的写法）：学生把路径一律转成字节串（os.fsencode），临时文件名、os.replace、打开文件夹都用字节路径
（POSIX 的系统调用本来就收字节；文件名里有编码不了的字符也不怕）。步骤和参考答案一样：写临时文件、flush、fsync、
os.replace、fsync 文件夹；出错时删掉临时文件再抛出去。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = os.fsencode(path)
    folder = os.path.dirname(target) or b"."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(target) + b".", suffix=b".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(state, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(os.fsdecode(path))
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
