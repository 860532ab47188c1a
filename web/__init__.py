"""The browser's files, served as they are (no build step): the play page (``PLAY``) and
the API's docs page (``DOCS``). Static files only; no Python runs here."""

from pathlib import Path

PLAY = Path(__file__).with_name("play")
DOCS = Path(__file__).with_name("docs")
