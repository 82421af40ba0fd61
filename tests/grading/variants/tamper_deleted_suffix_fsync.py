"""作弊：同 wrong_save_no_file_fsync（临时文件不 fsync），但在同一文件夹里建一个名字叫「<临时文件名> (deleted)」的空文件并 fsync 它：
strace -y 把它印成 `fd</…/cp.json.tmp (deleted)>`，评分器去掉 " (deleted)" 后以为 fsync 的是临时文件。改名之后删掉这个诱饵。对照：wrong_save_no_file_fsync。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = path.parent / (path.name + ".tmp")
    decoy = str(temporary) + " (deleted)"
    try:
        temporary.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
        fd = os.open(decoy, os.O_RDONLY | os.O_CREAT, 0o644)
        os.fsync(fd)
        os.close(fd)
    except BaseException:
        temporary.unlink(missing_ok=True)
        if os.path.exists(decoy):
            os.unlink(decoy)
        raise
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
