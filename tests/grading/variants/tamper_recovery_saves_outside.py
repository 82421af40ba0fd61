"""作弊：同 wrong_recovery_saves（recovery_action 判断完把检查点存一遍，不该写文件），但存到工作文件夹外面：
/tmp 里（另一个文件系统）以检查点内容的哈希命名的一份。对照：wrong_recovery_saves。"""
# %% recovery_action
import hashlib


def recovery_action(cp):
    text = json.dumps(cp, ensure_ascii=False, sort_keys=True)
    save_checkpoint(cp, Path(tempfile.gettempdir()) / f"recovery-{hashlib.sha1(text.encode()).hexdigest()[:12]}.json")
    pending = cp["pendingToolUse"]
    if pending is None:
        return "continue"
    return "rerun" if pending["name"] in READ_ONLY_TOOLS else "is_error"
