"""错（第 3 课的路径也可以是 str）：学生把路径当成 Path 用，不先 Path(path)：path.parent、path.with_name、path.exists()、
path.read_text()。notebook 的可见检查 check_save_load 就存到 str 的 "checkpoint.json"，这样写在 notebook 里也过不了；
评分器的「相对路径」也以 str 传入，load_checkpoint 抛 AttributeError（第 18 轮探查：第 4 课 notebook 里的路径都是 Path，
那里这样写是对的，见 variants_lesson04/full_append_pathlib_methods）。其余和参考答案一样。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            json.dump(state, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load_checkpoint(path=CHECKPOINT_PATH):
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"检查点 {path} 读不出来：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
