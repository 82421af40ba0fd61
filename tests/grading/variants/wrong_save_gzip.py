"""错误：为了「大检查点省空间」，save_checkpoint 把 JSON 用 gzip 压缩后再写（flush、fsync、改名、fsync 文件夹都做了），load_checkpoint 先解压再读。自己读得回来，课程的 load_checkpoint 和别的程序却读不了：检查点要写成 UTF-8 的 JSON 文本。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    """把 state 原子地、持久地写进 path。

    先写同一文件夹里的临时文件（写完、flush、fsync 之后不再写它），再 os.replace 到 path，
    最后 fsync 文件夹（只有 Windows 上省掉这一步：os.name == "nt" 时打不开文件夹）。
    中途出错时删掉临时文件并把异常抛出去：path 上原来的检查点必须保持可读。
    """
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        import gzip
        data = gzip.compress(json.dumps(state, ensure_ascii=False).encode("utf-8"))
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()  # Python 自己缓冲区里的内容先交给操作系统
            os.fsync(tmp.fileno())  # 内容先落盘，名字才指向它
        os.replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    if os.name != "nt":  # Windows 不能用 os.open 打开文件夹
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)  # 改名记在目录里：目录落盘，改名才扛得住断电
        finally:
            os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    """读出 path 上的检查点。

    文件不存在：返回 None。
    下面几种情况抛 ValueError，中文信息里写出路径：不是 UTF-8 文本；不是合法的 JSON；
    是 JSON 但不是一个对象（dict）；没有 version，或 version 不等于 CHECKPOINT_VERSION（信息里写出两个版本号）。
    """
    path = Path(path)
    try:
        import gzip
        raw = path.read_bytes()
        try:
            raw = gzip.decompress(raw)
        except OSError:
            pass  # 不是 gzip：按普通文本读
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本，文件可能已损坏：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
