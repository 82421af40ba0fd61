"""错误：append_ledger 用一个锁文件（ledger.jsonl.lock，O_CREAT | O_EXCL 建出来，追加完删掉）防止两个进程同时追加。
进程在追加的中途被杀（课程的崩溃矩阵就杀在「每次追加台账的中途」），锁文件留了下来，没有人会删它：
重启后的续跑每次追加都等满 5 秒再抛 TimeoutError，任务再也跑不下去。fcntl.flock 这类锁在进程死后由内核释放，不会这样。"""
# %% append_ledger
import time


def append_ledger(path, record):
    path = Path(path)
    lock = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + 5
    while True:
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            break
        except FileExistsError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"台账 {path} 被另一个进程锁着（{lock}）")
            time.sleep(0.05)
    try:
        created = not path.exists()
        with open(path, "a", encoding="utf-8") as ledger:
            ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
            ledger.flush()
            os.fsync(ledger.fileno())
        if created:
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    finally:
        os.unlink(lock)
