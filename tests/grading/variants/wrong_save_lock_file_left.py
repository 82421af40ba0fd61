"""错（边界）：save_checkpoint 照课文写（mkstemp、flush、fsync、os.replace、fsync 文件夹），外面再套一把 fcntl.flock 文件锁，锁文件 <path>.lock 用完留在原处：保存之后 path 旁边多了一个空文件。课程要求保存之后文件夹里只有 path（可见检查「保存完成后文件夹里多出了文件」也这样说）；评分器分不出它和一次失败的保存留下的空临时文件（json.dump 在写出任何字节之前就抛错），所以照样扣分，反馈说明它是空文件、不是检查点，以及要加锁可以锁文件夹本身。"""
# %% save_load
import fcntl


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    with open(path.parent / (path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
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
