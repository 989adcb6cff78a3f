"""``LLMChain``: a prompt formatted from the inputs, sent to a model, its text parsed."""

from __future__ import annotations

from typing import Any, Optional

from rag.classic._run_manager import CallbackManagerForChainRun, child_config
from rag.classic.chains.base import Chain
from rag.errors import ValidationError
from rag.parsers import StrOutputParser
from rag.prompts import StringPromptValue
from rag.runnables import Runnable

__all__ = ["LLMChain", "text_of_output"]

# What LangChain's LLMChain sends as on_text before calling the model (green, bold italic).
_PROMPT_TEXT = "Prompt after formatting:\n\x1b[32;1m\x1b[1;3m{}\x1b[0m"


def text_of_output(output: Any) -> str:
    """The text of what a model returned: a string as is, a message's text."""
    if isinstance(output, str):
        return output
    text = getattr(output, "text", None)
    if callable(text):  # older message classes had text() as a method
        text = text()
    if isinstance(text, str):
        return text
    return str(getattr(output, "content", output))


class LLMChain(Chain):
    """``prompt`` formatted with the inputs (its ``input_variables``), ``llm`` called with
    it, and the reply's text parsed by ``output_parser`` (default: the text itself) under
    ``output_key`` (default "text"). ``llm_kwargs`` (default {}) go to every model call; an
    input named ``stop`` becomes the model's stop words. With ``return_final_only=False``
    the model's whole reply is returned too, as "full_generation".

    >>> from rag.models import FakeListChatModel
    >>> from rag.prompts import PromptTemplate
    >>> chain = LLMChain(llm=FakeListChatModel(responses=["Paris."]),
    ...                  prompt=PromptTemplate.from_template("Capital of {country}?"))
    >>> chain.invoke({"country": "France"})
    {'country': 'France', 'text': 'Paris.'}
    >>> chain.predict(country="France")
    'Paris.'
    """

    llm: Any
    prompt: Any
    output_key: str = "text"
    output_parser: Any = None
    return_final_only: bool = True
    llm_kwargs: dict = {}

    def _check(self) -> None:
        super()._check()
        if not hasattr(self.prompt, "format_prompt") or not hasattr(self.prompt, "input_variables"):
            raise ValidationError(f"prompt must be a prompt template, got {type(self.prompt).__name__}: {self.prompt!r:.60}")
        if not hasattr(self.llm, "invoke"):
            raise ValidationError(f"llm must be a model (a Runnable), got {type(self.llm).__name__}: {self.llm!r:.60}")
        if self.output_parser is None:
            self.output_parser = StrOutputParser()

    @property
    def input_keys(self) -> list[str]:
        return list(self.prompt.input_variables)

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key] if self.return_final_only else [self.output_key, "full_generation"]

    def _prompt_of(self, inputs: dict[str, Any]) -> Any:
        value = self.prompt.format_prompt(**{key: inputs[key] for key in self.prompt.input_variables})
        if isinstance(value, StringPromptValue) and not isinstance(self.llm, Runnable):
            # A model from another library (a LangChain LLM) does not know our prompt
            # values; a string prompt is its text.
            return value.to_string()
        return value

    @staticmethod
    def _prompt_text(value: Any) -> str:
        return _PROMPT_TEXT.format(value if isinstance(value, str) else value.to_string())

    def _model_kwargs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        stop = inputs.get("stop")
        return {**self.llm_kwargs, **({"stop": stop} if stop is not None else {})}

    def _outputs(self, reply: Any) -> dict[str, Any]:
        outputs = {self.output_key: self.output_parser.parse(text_of_output(reply))}
        if not self.return_final_only:
            outputs["full_generation"] = reply
        return outputs

    def _call(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun] = None) -> dict[str, Any]:
        prompt = self._prompt_of(inputs)
        if run_manager is not None:
            run_manager.on_text(self._prompt_text(prompt), end="\n", verbose=self.verbose)
        return self._outputs(self.llm.invoke(prompt, child_config(run_manager), **self._model_kwargs(inputs)))

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        prompt = self._prompt_of(inputs)
        if run_manager is not None:
            await run_manager.on_text(self._prompt_text(prompt), end="\n", verbose=self.verbose)
        return self._outputs(await self.llm.ainvoke(prompt, child_config(run_manager), **self._model_kwargs(inputs)))

    def predict(self, callbacks: Any = None, **kwargs: Any) -> Any:
        """The parsed output for the prompt's variables given as keywords."""
        return self(kwargs, callbacks=callbacks)[self.output_key]

    async def apredict(self, callbacks: Any = None, **kwargs: Any) -> Any:
        return (await self.acall(kwargs, callbacks=callbacks))[self.output_key]

    @property
    def _chain_type(self) -> str:
        return "llm_chain"
