"""错误：append_ledger 新建台账时，为了 fsync 文件夹先 os.chdir 到台账所在的文件夹、os.open(".") 再 fsync，却不切回来：
之后当前文件夹变了，相对路径（"runs/a/checkpoint.json"、台账的相对路径）都指向别处（第 3 课的 wrong_save_chdir_left）。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
    created = not path.exists()
    with open(path, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(record, ensure_ascii=False) + "\n")
        ledger.flush()
        os.fsync(ledger.fileno())
    if created:
        os.chdir(path.parent)
        folder = os.open(".", os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
