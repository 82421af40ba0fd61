"""错：save_checkpoint 直接覆盖目标文件（不用临时文件和 os.replace），写到一半失败就留下半个文件。"""
# %% save_load
def save_checkpoint(state, path=CHECKPOINT_PATH):
    with open(path, "w", encoding="utf-8") as file:
        json.dump(state, file, ensure_ascii=False, indent=2)


def load_checkpoint(path=CHECKPOINT_PATH):
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:  # UnicodeDecodeError 和 JSONDecodeError 都是 ValueError
        raise ValueError(f"检查点 {path} 已损坏：{error}") from error
    version = state.get("version") if isinstance(state, dict) else None
    if version != CHECKPOINT_VERSION:
        raise ValueError(f"检查点 {path} 是版本 {version}，需要版本 {CHECKPOINT_VERSION}")
    return state
