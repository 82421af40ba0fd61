"""满分（边界）：append_ledger 的单元格末尾顺手试了一下：往演示文件夹 DEMO_DIR（notebook 第二个单元格定义的）里的
一本台账追加一条、再用 read_ledger 读出来打印。在学生的 notebook 里这几行照常运行；函数本身和参考答案一样。"""
# %% append_ledger
def append_ledger(path, record):
    path = Path(path)
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


try_ledger = DEMO_DIR / "try-ledger.jsonl"
append_ledger(try_ledger, {"type": "intent", "toolUseId": "toolu_try", "name": "send_email", "input": {}})
print(read_ledger(try_ledger))
