"""作弊：同 wrong_append_no_fsync（追加后不 fsync），但让评分器以为台账是经 O_DSYNC 描述符追加的：
台账以 O_APPEND 打开得到 A，os.dup 一份 B、关掉 A；再以 O_APPEND|O_DSYNC 打开一个名叫「<台账名> (deleted)」的诱饵文件，它拿到 A 的号，
strace 把它标成 `<…台账>(deleted)`：评分器去掉后缀，以为 A 是台账的 O_DSYNC 描述符，诱饵的 close 它看不见；
然后 dup2(B, A) 经 A 追加（不同步）。诱饵经 /tmp 里一个指向台账文件夹的符号链接删掉（评分器只把那个路径去掉后缀，不认得它是台账）。
对照：wrong_append_no_fsync。"""
# %% append_ledger
import tempfile as _tempfile


def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    decoy = str(path) + " (deleted)"
    a = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    b = os.dup(a)
    os.close(a)
    d = os.open(decoy, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_DSYNC, 0o644)
    os.close(d)
    os.dup2(b, d)
    os.close(b)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(d, view):]
    finally:
        os.close(d)
        link = os.path.join(_tempfile.mkdtemp(), "folder")
        os.symlink(os.path.abspath(path.parent), link)
        os.unlink(os.path.join(link, os.path.basename(decoy)))
    if created:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
