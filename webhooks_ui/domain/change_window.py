"""Change windows: when a cluster accepts pushes, e.g. ``Mon-Fri 09:00-17:00``.

A window is one or more comma-separated segments ``DAYS HH:MM-HH:MM`` in UTC;
DAYS is a day (``Tue``), a range (``Mon-Fri``, wrapping allowed: ``Fri-Mon``)
or ``daily``. A segment whose end is before its start runs past midnight and
belongs to the day it starts on. An empty text means "any time".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_SEGMENT = re.compile(
    r"^(?P<days>[A-Za-z]+(?:-[A-Za-z]+)?)\s+"
    r"(?P<start>\d{1,2}:\d{2})\s*-\s*(?P<end>\d{1,2}:\d{2})$"
)


class ChangeWindowError(ValueError):
    """The text is not a change window."""


@dataclass(frozen=True)
class Segment:
    days: frozenset[int]  # 0 = Monday
    start: time
    end: time

    def contains(self, moment: datetime) -> bool:
        weekday, at = moment.weekday(), moment.time()
        if self.start < self.end:
            return weekday in self.days and self.start <= at < self.end
        # Past midnight: the late part belongs to the previous day's window.
        if weekday in self.days and at >= self.start:
            return True
        return (weekday - 1) % 7 in self.days and at < self.end


@dataclass(frozen=True)
class ChangeWindow:
    text: str
    segments: tuple[Segment, ...]

    def is_open(self, moment: datetime) -> bool:
        if not self.segments:
            return True
        utc = moment.astimezone(UTC)
        return any(segment.contains(utc) for segment in self.segments)

    def next_opening(self, moment: datetime) -> datetime | None:
        """The next minute the window is open at or after ``moment`` (UTC)."""
        if not self.segments:
            return moment
        utc = moment.astimezone(UTC).replace(second=0, microsecond=0)
        # Openings are only ever at a segment's start: check those for 8 days.
        candidates = []
        for offset in range(8):
            day = (utc + timedelta(days=offset)).date()
            for segment in self.segments:
                if day.weekday() in segment.days:
                    start = datetime.combine(day, segment.start, tzinfo=UTC)
                    if start >= utc:
                        candidates.append(start)
        if self.is_open(utc):
            return utc
        return min(candidates) if candidates else None


def parse(text: str) -> ChangeWindow:
    """The window ``text`` describes (raises ``ChangeWindowError`` saying why not)."""
    text = (text or "").strip()
    if not text:
        return ChangeWindow("", ())
    segments = []
    for raw in text.split(","):
        part = " ".join(raw.split())
        match = _SEGMENT.match(part)
        if not match:
            raise ChangeWindowError(
                f"{part!r} is not a window: write days and hours in UTC, "
                "like 'Mon-Fri 09:00-17:00' or 'daily 22:00-02:00'."
            )
        start, end = _time(match["start"]), _time(match["end"])
        if start == end:
            raise ChangeWindowError(f"{part!r} opens and closes at the same time.")
        segments.append(Segment(_days(match["days"]), start, end))
    return ChangeWindow(text, tuple(segments))


def _days(text: str) -> frozenset[int]:
    lowered = text.lower()
    if lowered in ("daily", "any", "every"):
        return frozenset(range(7))
    first, _, last = lowered.partition("-")
    start = _day(first)
    if not last:
        return frozenset({start})
    end = _day(last)
    span = (end - start) % 7
    return frozenset((start + i) % 7 for i in range(span + 1))


def _day(text: str) -> int:
    key = text[:3]
    if key not in DAYS or not (3 <= len(text) <= 9):
        raise ChangeWindowError(
            f"{text!r} is not a day: use Mon, Tue, Wed, Thu, Fri, Sat or Sun."
        )
    return DAYS.index(key)


def _time(text: str) -> time:
    hours, minutes = (int(p) for p in text.split(":"))
    if hours == 24 and minutes == 0:
        return time(23, 59, 59, 999999)
    if not (0 <= hours <= 23 and 0 <= minutes <= 59):
        raise ChangeWindowError(f"{text!r} is not a time of day (00:00 to 24:00).")
    return time(hours, minutes)
