"""Lazy import of Dask, with an install hint."""

from __future__ import annotations

from ..errors import UsageError


def require_dask():
    """Return the ``dask`` module, or raise a UsageError saying how to install it."""
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise UsageError("cranfield.dask needs Dask: pip install 'cranfield[dask]' "
                         "(or: pip install 'dask[dataframe,distributed]')") from None
    return dask


def current_client(client=None):
    """The given client, else the default distributed client if one is running, else None."""
    if client is not None:
        return client
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover
        return None
    try:
        return default_client()
    except ValueError:
        return None


def compute(tasks: list, client=None) -> list:
    """Compute delayed objects on ``client`` (or Dask's default scheduler) and return their values."""
    dask = require_dask()
    if not tasks:
        return []
    if client is not None:
        return list(dask.compute(*tasks, scheduler=client))
    return list(dask.compute(*tasks))
