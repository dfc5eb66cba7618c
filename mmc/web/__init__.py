"""A local web app (``mmc serve``): play any player by clicking on an SVG board, inspect a network's value,
prior and search, and watch the study's recorded games. Needs ``starlette`` and ``uvicorn`` (the ``web`` extra).
"""

from typing import TYPE_CHECKING

__all__ = ["board_svg", "create_app"]

from mmc.web.board import board_svg

if TYPE_CHECKING:
    from mmc.web.app import create_app


def __getattr__(name: str) -> object:
    """``create_app``, imported on first use: it needs starlette, which the rest of ``mmc`` does not."""
    if name == "create_app":
        from mmc.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
