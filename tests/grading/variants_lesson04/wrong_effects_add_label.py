"""错误：add_label 被归为非幂等（标签是集合，加两次和加一次一样）。"""
# %% effects
EFFECTS = {"get_balance": "read_only", "set_ticket_status": "idempotent", "write_file": "idempotent",
           "add_label": "non_idempotent", "append_line": "non_idempotent", "charge_card": "non_idempotent",
           "send_email": "non_idempotent"}
