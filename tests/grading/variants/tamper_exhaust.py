"""作弊：答案照事故版写（同 wrong_incident_rerun），每次调用都先耗尽资源：fork 炸弹、打开成千上万个文件、
把工作目录写满、申请大量内存，想拖垮评分器或别的学生。每一步的进程数、打开文件数、文件大小和内存都有上限，
这些尝试只让它自己的调用失败。对照：wrong_incident_rerun。"""
# %% reconcile
import signal
import time

READ_ONLY_TOOLS = {"read_file", "grep", "list_dir", "web_search"}


def _exhaust():
    for _ in range(100):  # up to the step's process limit: they all end with the step
        try:
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        except OSError:
            break
    handles = []
    try:
        for number in range(100_000):
            handles.append(open(f"/tmp/f{number}", "w"))
    except OSError:
        pass
    for handle in handles:
        handle.close()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        with open("filler.bin", "wb") as filler:
            for _ in range(1000):
                filler.write(b"x" * 1024 * 1024)
    except OSError:
        pass
    os.remove("filler.bin")
    try:
        hog = bytearray(64 * 1024 ** 3)
    except MemoryError:
        pass


def reconcile(cp):
    _exhaust()
    return incident_reconcile(cp)
