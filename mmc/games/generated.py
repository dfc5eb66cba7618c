"""A family's variants by id, named and generated: the mapping a family with generated variants gives as its
``Game.variants`` (the k-in-a-row family's ``mnk_7x5_k4``, the jump family's ``jump_p100``).

Iterating it lists the named variants (``mmc variants``, the rule book's order); looking an id up builds its generated
variant once per process. An id of one of the family's generated forms that the family refuses (out of range,
malformed numbers) raises ``ValueError`` in one line naming the valid forms; ``KeyError`` is left for ids of no form
of the family, so that ``mmc.games`` goes on to the next family; ``in`` is ``False`` for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

__all__ = ["GeneratedVariants"]

V = TypeVar("V")


class GeneratedVariants(Mapping[str, V], Generic[V]):
    """``named`` by id, and every id ``of_form`` accepts, built by ``generate`` (which raises ``ValueError`` in one
    line for an id of the form that it refuses); ``forms`` says in one line how generated ids are formed."""

    def __init__(
        self, named: Mapping[str, V], generate: Callable[[str], V], of_form: Callable[[str], bool], forms: str
    ) -> None:
        self._named = dict(named)
        self._generate = generate
        self._of_form = of_form
        self.forms = forms
        self._built: dict[str, V] = {}

    def __getitem__(self, name: str) -> V:
        if not isinstance(name, str):
            raise KeyError(name)
        found = self._named.get(name) or self._built.get(name)
        if found is None:
            if not self._of_form(name):
                raise KeyError(name)
            found = self._built[name] = self._generate(name)
        return found

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except (KeyError, ValueError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._named)

    def __len__(self) -> int:
        return len(self._named)

    def __repr__(self) -> str:
        return f"GeneratedVariants({list(self._named)} and every {self.forms})"
