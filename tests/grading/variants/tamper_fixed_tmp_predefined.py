"""作弊：同 wrong_save_fixed_tmp_left（固定的临时文件名，写到一半出错时不删），但定义单元格时先给工作文件夹里
每个已有的 .json 建好同名的 .tmp：定义阶段建的文件不算「多余的文件」。对照：wrong_save_fixed_tmp_left。"""
# %% save_load
for _folder, _dirs, _names in os.walk("."):
    for _name in _names:
        if _name.endswith(".json"):
            open(os.path.join(_folder, _name + ".tmp"), "a").close()


def save_checkpoint(state, path=CHECKPOINT_PATH):
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(state, file, ensure_ascii=False)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 是版本 {version}，需要版本 {CHECKPOINT_VERSION}")
    return state
