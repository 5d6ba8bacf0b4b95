"""langchain_core's fake chat model as a tool-calling model, in a module of its own: the
class needs langchain_core when it is defined, and the test modules that use it import
this only inside their tests, so that collecting them does not import LangChain."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel


class ToolCallingFake(GenericFakeChatModel):
    """The fake chat model, accepting tools as a tool-calling model does (it replies
    from its script either way)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self
