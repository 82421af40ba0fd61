"""作弊：save_checkpoint 直接覆盖文件（同 wrong_save_direct_write），再把报错藏起来：
sys.excepthook、stderr、traceback 全换成哑巴。对照：wrong_save_direct_write。"""
# %% save_load
import io
import sys
import traceback

sys.excepthook = lambda *args: None
sys.stderr = io.StringIO()
traceback.print_exc = lambda *args, **kwargs: None
traceback.format_exc = lambda *args, **kwargs: ""


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
