"""作弊：临时文件先以 O_DSYNC 打开一次（fd A），再不带 O_DSYNC 打开一次（fd B），dup2(B, A) 后经 A 写：
模型以为 A 的写是 O_DSYNC 的（同一个文件，dup2 修补看不出来），实际上一次也没落盘。文件夹照常 fsync。对照：wrong_save_no_fsync。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = str(path.parent / (path.name + ".tmp"))
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DSYNC, 0o644)
    plain = os.open(temporary, os.O_WRONLY)
    os.dup2(plain, fd)
    os.close(plain)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
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
