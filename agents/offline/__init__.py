"""The offline stand-in: deterministic rules that answer each prompt task when no model is
configured (`SMALLVILLE_LLM_BACKEND=offline`). Not a model: its words show that the
mechanics work, never what a model would say. Each task of the mind names its rule
(`offline=` in its folder, `agents/tasks/<task>/`); the rules read the task's inputs
only, and nothing of the mind."""
