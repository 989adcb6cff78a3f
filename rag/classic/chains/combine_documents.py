"""``StuffDocumentsChain`` and ``load_qa_chain``: documents put in one prompt."""

from __future__ import annotations

from typing import Any, Optional

from rag.chains.formatting import DEFAULT_DOCUMENT_SEPARATOR, document_prompt_of, format_documents
from rag.classic._run_manager import CallbackManagerForChainRun
from rag.classic.chains.base import Chain
from rag.classic.chains.llm import LLMChain
from rag.errors import ValidationError
from rag.prompts import ChatPromptTemplate

__all__ = ["StuffDocumentsChain", "load_qa_chain", "QA_PROMPT"]

QA_PROMPT = ChatPromptTemplate.from_messages([
    ("system", "Answer the user's question from the context below. If the context does not hold the answer, "
               "say that you don't know; do not make one up.\n----------------\n{context}"),
    ("human", "{question}"),
])


class StuffDocumentsChain(Chain):
    """The documents under ``input_key`` (default "input_documents") formatted with
    ``document_prompt`` (default ``"{page_content}"``), joined by ``document_separator``
    (default two newlines) and given to ``llm_chain`` as ``document_variable_name``
    (default: the prompt's only variable, else required); the other inputs go to the
    prompt as they are. Output ``output_key`` (default "output_text")."""

    llm_chain: Any
    document_prompt: Any = None
    document_variable_name: Optional[str] = None
    document_separator: str = DEFAULT_DOCUMENT_SEPARATOR
    input_key: str = "input_documents"
    output_key: str = "output_text"

    def _check(self) -> None:
        super()._check()
        self.document_prompt = document_prompt_of(self.document_prompt)
        variables = list(self.llm_chain.prompt.input_variables)
        if self.document_variable_name is None:
            if len(variables) != 1:
                raise ValidationError(f"document_variable_name must be provided if there are multiple "
                                      f"llm_chain_variables: {variables}")
            self.document_variable_name = variables[0]
        elif self.document_variable_name not in variables:
            raise ValidationError(f"document_variable_name {self.document_variable_name} was not found in "
                                  f"llm_chain input_variables: {variables}")

    @property
    def input_keys(self) -> list[str]:
        others = [k for k in self.llm_chain.input_keys if k != self.document_variable_name]
        return [self.input_key, *others]

    @property
    def output_keys(self) -> list[str]:
        return [self.output_key]

    def _prompt_inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        variables = self.llm_chain.prompt.input_variables
        values = {k: v for k, v in inputs.items() if k in variables and k != self.input_key}
        values[self.document_variable_name] = format_documents(inputs[self.input_key], self.document_prompt,
                                                               self.document_separator)
        return values

    def _call(self, inputs: dict[str, Any], run_manager: Optional[CallbackManagerForChainRun] = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        return {self.output_key: self.llm_chain.predict(callbacks=callbacks, **self._prompt_inputs(inputs))}

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        callbacks = run_manager.get_child() if run_manager is not None else None
        return {self.output_key: await self.llm_chain.apredict(callbacks=callbacks, **self._prompt_inputs(inputs))}

    @property
    def _chain_type(self) -> str:
        return "stuff_documents_chain"


def load_qa_chain(llm: Any, chain_type: str = "stuff", *, prompt: Any = None, verbose: bool = False,
                  callbacks: Any = None, document_variable_name: str = "context", **kwargs: Any) -> StuffDocumentsChain:
    """A question-answering chain over documents: inputs ``input_documents`` and
    ``question``, output ``output_text``. ``prompt`` defaults to :data:`QA_PROMPT`
    (variables ``context`` and ``question``). Only ``chain_type="stuff"`` is offered:
    "map_reduce", "refine" and "map_rerank" raise ValidationError."""
    if chain_type != "stuff":
        raise ValidationError(f"Got unsupported chain type: {chain_type!r}. Should be one of ['stuff'] "
                              "(map_reduce, refine and map_rerank are not offered here)")
    llm_chain = LLMChain(llm=llm, prompt=prompt if prompt is not None else QA_PROMPT, verbose=verbose, callbacks=callbacks)
    return StuffDocumentsChain(llm_chain=llm_chain, document_variable_name=document_variable_name, verbose=verbose,
                               callbacks=callbacks, **kwargs)
