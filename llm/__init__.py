"""The language-model port: prompt tasks, the `openai` and `offline` backends, the call ledger.

Everything that asks a language model goes through `llm.port.llm_run`; see
docs/language-models.md.
"""
