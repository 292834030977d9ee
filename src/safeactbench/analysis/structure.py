"""The report's structure: a `Report` of `Section`s holding `Table`s (of `Cell`s), `Figure`s and text
`Block`s. Markdown and HTML are both rendered from it (see `rendering`), so they cannot disagree.

Every string here is plain text, never markup: much of it comes from agents and run files (tool
names, arguments, configuration labels), and the renderers escape all of it for where it lands."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Cell:
    text: str
    mark: str | None = None  # 'best' | 'second'
    colour: str | None = None  # a configuration's figure colour, shown as a swatch (HTML)


@dataclass
class Table:
    id: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    text_columns: tuple[int, ...] = (0,)  # left-aligned (text) columns; the others are numbers


@dataclass
class Figure:
    name: str  # file stem under figures/
    title: str
    caption: str
    png: bytes

    @property
    def base64(self) -> str:
        return base64.b64encode(self.png).decode("ascii")


@dataclass
class Block:
    title: str
    text: str


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    html_only: bool = False


@dataclass
class EpisodeBrowser:
    """The episode browser's data: `episodes()` yields one episode at a time (read from the run
    files as the page is written), so a large report never holds them all."""

    configurations: list[str]
    tasks: dict[str, str]
    episodes: Callable[[], Iterator[dict[str, Any]]]


@dataclass
class Report:
    title: str
    subtitle: str
    sections: list[Section]
    data: dict[str, Any]
    browser: EpisodeBrowser

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)

    @property
    def figures(self) -> list[Figure]:
        return [f for s in self.sections for f in s.figures]
