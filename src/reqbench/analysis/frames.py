"""`frame(records, types)`: analysis records as a typed pandas DataFrame, for `Run.to_pandas` and
`Study.to_pandas`.

pandas is optional (``pip install 'reqbench[pandas]'``) and imported only here, only when asked: reqbench
never depends on it. Columns get the dtype their schema type says, so a column that is null in every row
is still a float or an integer column (never ``object``): ``int`` -> nullable ``Int64``, ``float`` ->
``float64``, ``bool`` -> nullable ``boolean``, text -> ``string``; nested values (``result``,
``artifacts``, agent options) stay Python dicts.
"""

from __future__ import annotations

from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from reqbench.core.errors import InputError

Frame = Any
"""A `pandas.DataFrame` (typed as Any: pandas is optional and has no stubs here)."""


def _dtype(annotation: Any) -> str | None:
    kinds = {a for a in (get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,))
             if a is not type(None)}
    for python, dtype in ((bool, "boolean"), (int, "Int64"), (float, "float64"), (str, "string")):
        if kinds == {python}:
            return dtype
    if kinds and all(get_origin(k) is Literal for k in kinds):
        return "string"
    return None  # nested: kept as Python objects


def frame(rows: list[dict[str, Any]], types: dict[str, Any]) -> Frame:
    """`rows` as a DataFrame with the columns of `types`, in its order, each of its schema's dtype."""
    try:
        import pandas as pd
    except ModuleNotFoundError as exc:
        raise InputError("to_pandas() needs pandas, which reqbench does not install: pip install "
                         "'reqbench[pandas]' (or use .rows() / .to_records())") from exc
    table = pd.DataFrame.from_records(rows, columns=list(types))
    for column, annotation in types.items():
        dtype = _dtype(annotation)
        if dtype is not None:
            table[column] = table[column].astype(dtype)
    return table
