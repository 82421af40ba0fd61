"""错误：append_line 被归为幂等写（「写文件」听起来像覆盖，其实追加两次就多两行）。"""
# %% effects
EFFECTS = {"get_balance": "read_only", "set_ticket_status": "idempotent", "write_file": "idempotent",
           "add_label": "idempotent", "append_line": "idempotent", "charge_card": "non_idempotent",
           "send_email": "non_idempotent"}
