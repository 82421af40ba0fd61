"""满分：临时文件名只带进程号、不带 path 的名字（文件夹里的 .checkpoint-<pid>.tmp）：同一个文件夹里两个任务的检查点由两个
进程同时保存，进程号不同，临时文件也就不同（评分时每一步都是 kernel 的那一个进程号，评分器把带进程号的名字当成随进程不同）；
其余同 full_save_pid_tmp_rename。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = os.path.abspath(path)
    tmp = os.path.join(os.path.dirname(target), f".checkpoint-{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(state, f, sort_keys=True, allow_nan=False)
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    if os.name == "posix":
        dir_fd = os.open(os.path.dirname(target), os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def load_checkpoint(path=CHECKPOINT_PATH):
    name = os.path.basename(path)
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except ValueError as e:
        raise ValueError(f"检查点文件「{name}」读不出来（编码不对或 JSON 不完整）：{e}") from e
    if not isinstance(data, dict):
        raise ValueError(f"检查点文件「{name}」的内容不是 JSON 对象")
    if data.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"检查点文件「{name}」的版本 {data.get('version')!r} 和代码的版本 {CHECKPOINT_VERSION} 不一致")
    return data
