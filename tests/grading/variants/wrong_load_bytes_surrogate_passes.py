"""错：load_checkpoint 用 json.loads(path.read_bytes())，把 ValueError 都换成带路径的中文信息：json 自己给字节猜编码、用 surrogatepass 解码，
UTF-8 不允许的单独代理码位（\xed\xa0\x80 这类）也被当成好的读了进来，读出的状态再存成 UTF-8 时就会出错（课文：不是 UTF-8 就报 ValueError）。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            json.dump(state, tmp, ensure_ascii=False, indent=2)
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
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        state = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON，文件可能已损坏：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
    ### END SOLUTION