"""满分：临时文件名带进程号（f"{path}.{os.getpid()}.tmp"，同一个进程里不会两个保存同时进行），"w" 打开（上次被杀
留下的同名残骸直接覆盖），json.dump 带 sort_keys、allow_nan=False、默认的 ensure_ascii，os.rename 改名（POSIX 上
覆盖已有的 path），fsync 用 os.open(文件夹, O_RDONLY | O_DIRECTORY)，文件夹取 os.path.abspath 的 dirname；
读的时候 json.load 整个文件，except ValueError（UnicodeDecodeError 和 JSONDecodeError 都是它），报错信息里只写文件名。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = os.path.abspath(path)
    tmp = f"{target}.{os.getpid()}.tmp"
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
