"""错误：os.sync() 写在 with 块里面，json.dump 的内容还在 Python 的缓冲区里，没交给操作系统；
sync 落盘的是空的临时文件，改名之后一断电，checkpoint.json 可能是空的。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = os.fspath(path)
    temporary = path + ".partial"
    try:
        with open(temporary, "w", encoding="utf-8") as out:
            json.dump(state, out, ensure_ascii=False)
            os.sync()
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
    os.sync()


def load_checkpoint(path=CHECKPOINT_PATH):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None
    try:
        state = json.loads(raw.decode("utf-8"))
    except ValueError as error:
        raise ValueError(f"读不出检查点 {path}：{error}") from error
    if not isinstance(state, dict) or state.get("version") != CHECKPOINT_VERSION:
        found = state.get("version") if isinstance(state, dict) else None
        raise ValueError(f"检查点 {path} 的版本是 {found}，这里只认版本 {CHECKPOINT_VERSION}")
    return state
