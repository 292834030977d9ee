"""The base of every model type: frozen pydantic models that refuse unknown fields, models that
gained fields after publication (written only when set, so published bytes stay the same), and the
one-line error every file reader reports."""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

JSONValue = Any  # a JSON value (str, number, bool, None, list, dict)


def first_error(exc: ValidationError, root: str = "(root)") -> str:
    """`field a.b: message` for the first problem pydantic found (used by every file reader)."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or root
    return f"field {where}: {first['msg']}"


class FrozenModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EvolvingModel(FrozenModel):
    """A model that gained fields after the suite was published: they are written only when set,
    so published case bytes (and their checksums) stay what they were."""

    OPTIONAL_FIELDS: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_unset_additions(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name, default in _optional_defaults(type(self)).items():
            if name in data and data[name] == default:
                del data[name]
        return data


@cache
def _optional_defaults(model: type[EvolvingModel]) -> dict[str, Any]:
    """Each optional field's default, computed once per model (pydantic inspects the default
    factory's signature on every call: most of the time of writing a suite)."""
    return {name: model.model_fields[name].get_default(call_default_factory=True) for name in model.OPTIONAL_FIELDS}
