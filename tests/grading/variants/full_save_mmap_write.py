"""满分（probe10a）：临时文件用 mmap 写：mkstemp、ftruncate 到数据的长度、mmap 写入、mm.flush()、关掉 mmap，再 os.fsync(fd)、
关掉 fd、os.replace、fsync 文件夹。mmap 内部 dup 了一个描述符，mm.close() 关上它。
这样写是对的，评分器却看不见 mmap 的写入（strace 只记 write 这类调用，fs_trace 不跟 mmap、msync）：断电模型里临时文件全是零字节，
test_durable 丢 1 分（已知的缝，docs/grading.md 第 2 节），反馈说明这是评分器看不见、请改用 write 写。"""
# %% save_load
import mmap


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    data = json.dumps(state, ensure_ascii=False, indent=2).encode("utf-8")
    fd, tmp_path = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        try:
            os.ftruncate(fd, len(data))
            with mmap.mmap(fd, len(data)) as mm:
                mm[:] = data
                mm.flush()
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp_path, path)
    except BaseException:
        Path(tmp_path).unlink(missing_ok=True)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是 UTF-8 文本：{exc}") from exc
    try:
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"检查点 {path} 不是合法的 JSON：{exc}") from exc
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 的版本是 {version}，这段代码只认版本 {CHECKPOINT_VERSION}")
    return state
