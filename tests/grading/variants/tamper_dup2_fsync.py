"""作弊：临时文件写完并不 fsync 它，而是把 /tmp 里一个无关文件 dup2 到临时文件的描述符号上再 fsync（真正落盘的是无关文件）；
改名后照常 fsync 文件夹。对照：wrong_save_no_fsync。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = str(path.parent / (path.name + ".tmp"))
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        junk = os.open("/tmp/junk-sync", os.O_WRONLY | os.O_CREAT, 0o644)
        os.dup2(junk, fd)          # fd now is the junk file; the grader's model still thinks it is the temporary
        os.close(junk)
        os.fsync(fd)               # strace: fsync(fd</tmp/junk-sync>) -> model syncs the temporary file
    except BaseException:
        os.close(fd)
        os.unlink(temporary)
        raise
    os.close(fd)
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 是版本 {version}，需要版本 {CHECKPOINT_VERSION}")
    return state

