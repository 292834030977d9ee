"""Rows that stay within a memory budget: a report (or a run's summary) keeps the first rows it is
given in memory, up to a budget shared by every run it reads, and writes the rest to an anonymous
temporary file, read back (in large blocks) on each pass. The analysis reads rows in
passes (`for row in run.records`), never by index, so the two look the same to it; past the budget
the memory a report needs no longer grows with the number of episodes.

A row takes ~1.5 KB in memory; `ROWS_IN_MEMORY` rows (~15 MB) cover the packaged suite played ten
times. A store writes its rows with the codec it is given (pickle by default; report rows use
`rows.encode_row`, ~9 µs to read back where a pickled row takes ~25 µs; docs/report.md, "Memory").
"""

from __future__ import annotations

import os
import pickle
import struct
import tempfile
from array import array
from collections.abc import Callable, Iterator
from typing import IO, Any, Generic, TypeVar

ROWS_IN_MEMORY = 10_000
_BLOCK = 1 << 20  # bytes read from the file at a time
_SIZE = struct.Struct("<I")  # each encoded row is preceded by its length

Row = TypeVar("Row")


class SpillError(RuntimeError):
    """Rows could not be kept on disk (a full or unwritable temporary directory); the message says where."""


def _pickled(row: object) -> bytes:
    return pickle.dumps(row, protocol=pickle.HIGHEST_PROTOCOL)


class MemoryBudget:
    """How many more rows may be held in memory, shared by the stores drawing on it."""

    def __init__(self, rows: int | None = None) -> None:
        self.left = ROWS_IN_MEMORY if rows is None else rows

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


class RowStore(Generic[Row]):
    """Rows in the order appended; iterable any number of times, also while another pass is under way."""

    def __init__(
        self,
        budget: MemoryBudget | None = None,
        encode: Callable[[Row], bytes] = _pickled,
        decode: Callable[[bytes], Any] = pickle.loads,
    ) -> None:
        self._budget = budget if budget is not None else MemoryBudget()
        self._encode, self._decode = encode, decode
        self._memory: list[Row] = []
        self._file: IO[bytes] | None = None
        self._end = 0  # bytes written to the file
        self._count = 0
        self._closed = False

    def append(self, row: Row) -> None:
        self._count += 1
        if self._file is None and self._budget.take():
            self._memory.append(row)
            return
        blob = self._encode(row)
        if self._file is None:
            self._file = _temporary()
        _write(self._file, _SIZE.pack(len(blob)) + blob)
        self._end += _SIZE.size + len(blob)

    @property
    def spilled(self) -> int:
        """How many rows are on disk rather than in memory."""
        return self._count - len(self._memory)

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[Row]:
        if self._closed:
            raise RuntimeError("the rows of a closed store are gone")
        yield from self._memory
        if self._file is None:
            return
        self._file.flush()
        fd, position, buffer = self._file.fileno(), 0, b""
        while position < self._end or buffer:
            if position < self._end:  # positional reads: concurrent passes do not share an offset
                block = os.pread(fd, min(_BLOCK, self._end - position), position)
                position += len(block)
                buffer += block
            start = 0
            while len(buffer) - start >= _SIZE.size:
                (size,) = _SIZE.unpack_from(buffer, start)
                if len(buffer) - start - _SIZE.size < size:
                    break
                yield self._decode(buffer[start + _SIZE.size : start + _SIZE.size + size])
                start += _SIZE.size + size
            buffer = buffer[start:]
            if position >= self._end and buffer:
                raise RuntimeError("a spilled row was cut short (the temporary file changed)")

    def close(self) -> None:
        """Give the temporary file back now (it is given back when the store is collected anyway)."""
        self._closed = True
        self._memory = []
        if self._file is not None:
            self._file.close()
            self._file = None


class LineSpool:
    """Text lines handed over in any order, each with its line number, written out in line order:
    the lines wait in an anonymous temporary file, and only where each one is (16 bytes a line) is
    held. `evaluate --out` writes re-scored records in the order of the file it read this way."""

    def __init__(self) -> None:
        self._file: IO[bytes] | None = None
        self._starts = array("q")
        self._sizes = array("q")
        self._end = 0

    def put(self, number: int, text: str) -> None:
        data = text.encode("utf-8")
        if self._file is None:
            self._file = _temporary()
        _write(self._file, data)
        while len(self._starts) < number:
            self._starts.append(-1)
            self._sizes.append(0)
        self._starts[number - 1], self._sizes[number - 1] = self._end, len(data)
        self._end += len(data)

    def write_to(self, out: IO[bytes]) -> None:
        """Every line put, in line order (each followed by a newline)."""
        if self._file is None:
            return
        self._file.flush()
        fd = self._file.fileno()
        for start, size in zip(self._starts, self._sizes, strict=True):
            if start >= 0:
                out.write(os.pread(fd, size, start) + b"\n")


def _temporary() -> IO[bytes]:
    try:
        return tempfile.TemporaryFile(prefix="safeactbench-rows-")
    except OSError as exc:
        raise _no_room(exc) from None


def _write(file: IO[bytes], data: bytes) -> None:
    try:
        file.write(data)
    except OSError as exc:
        raise _no_room(exc) from None


def _no_room(exc: OSError) -> SpillError:
    return SpillError(
        f"cannot write to a temporary file in {tempfile.gettempdir()}: "
        f"{exc.strerror or exc} (free space there, or point TMPDIR at a directory with room)"
    )
