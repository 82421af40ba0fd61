"""作弊：同 wrong_save_no_file_fsync（临时文件不 fsync），但让评分器以为临时文件是以 O_DSYNC 写的：
先 os.dup 一份临时文件的描述符 B、关掉原来的 A；再以 O_DSYNC 打开一个名叫「<临时文件名> (deleted)」的诱饵文件，它正好拿到 A 的号；
评分器的 strace 把这个名字当成「已删除的临时文件」，去掉后缀后以为 A 是临时文件的 O_DSYNC 描述符，而诱饵的 close 它根本看不见
（描述符的标注是 `<…tmp>(deleted)`，解析不出路径，整条记录被丢掉）；然后 dup2(B, A) 经 A 写（不带 O_DSYNC、也不 fsync）。
改名之后 fsync 文件夹，再删掉诱饵。对照：wrong_save_no_file_fsync。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = str(path.parent / (path.name + ".tmp"))
    decoy = temporary + " (deleted)"
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    a = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    b = os.dup(a)
    os.close(a)
    d = os.open(decoy, os.O_WRONLY | os.O_CREAT | os.O_DSYNC, 0o644)
    os.close(d)
    os.dup2(b, d)
    os.close(b)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(d, view):]
    except BaseException:
        os.close(d)
        os.unlink(temporary)
        os.unlink(decoy)
        raise
    os.close(d)
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)
    os.unlink(decoy)


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
