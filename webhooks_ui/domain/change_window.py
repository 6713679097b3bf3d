"""Change windows: when a cluster accepts pushes, e.g. ``Mon-Fri 09:00-17:00``.

A window is one or more comma-separated segments ``DAYS HH:MM-HH:MM``,
optionally followed by an IANA time zone for all of them
(``Mon-Fri 09:00-17:00 Europe/Berlin``; UTC when none is given, so daylight
saving time moves nothing). DAYS is a day (``Tue``), a range (``Mon-Fri``,
wrapping allowed: ``Fri-Mon``) or ``daily``. A segment whose end is before its
start runs past midnight and belongs to the day it starts on. Days and hours
are wall-clock time in the zone: office hours stay office hours across DST.
An empty text means "any time".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo, available_timezones

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
    zone: tzinfo = UTC
    zone_name: str = ""  # as written after the segments; "" means UTC

    @property
    def zone_label(self) -> str:
        return self.zone_name or "UTC"

    def describe(self) -> str:
        """The window as people should read it: always with its time zone."""
        return self.text if self.zone_name else f"{self.text} UTC"

    def is_open(self, moment: datetime) -> bool:
        if not self.segments:
            return True
        local = moment.astimezone(self.zone)
        return any(segment.contains(local) for segment in self.segments)

    def next_opening(self, moment: datetime) -> datetime | None:
        """The next minute the window is open at or after ``moment``, in the
        window's zone."""
        local = moment.astimezone(self.zone).replace(second=0, microsecond=0)
        if not self.segments or self.is_open(local):
            return local
        # Openings are only ever at a segment's start: check those for 8 days.
        # Compared in UTC: aware datetimes sharing a tzinfo compare by wall
        # time, which is wrong across a DST change.
        after = local.astimezone(UTC)
        candidates = []
        for offset in range(8):
            day = (local + timedelta(days=offset)).date()
            for segment in self.segments:
                if day.weekday() in segment.days:
                    start = datetime.combine(day, segment.start, tzinfo=self.zone)
                    if start.astimezone(UTC) >= after:
                        candidates.append(start)
        if not candidates:
            return None
        return min(candidates, key=lambda start: start.astimezone(UTC))


def parse(text: str) -> ChangeWindow:
    """The window ``text`` describes (raises ``ChangeWindowError`` saying why not)."""
    text = (text or "").strip()
    if not text:
        return ChangeWindow("", ())
    zone, zone_name, spans = UTC, "", text
    head, _, last = text.rpartition(" ")
    if head and _looks_like_zone(last):
        zone, zone_name, spans = _zone(last), last, head
    segments = []
    for raw in spans.split(","):
        part = " ".join(raw.split())
        match = _SEGMENT.match(part)
        if not match:
            raise ChangeWindowError(
                f"{part!r} is not a window: write days and hours, optionally "
                "followed by a time zone, like 'Mon-Fri 09:00-17:00', "
                "'daily 22:00-02:00' or 'Mon-Fri 09:00-17:00 Europe/Berlin'."
            )
        start, end = _time(match["start"]), _time(match["end"])
        if start == end:
            raise ChangeWindowError(f"{part!r} opens and closes at the same time.")
        segments.append(Segment(_days(match["days"]), start, end))
    return ChangeWindow(text, tuple(segments), zone, zone_name)


def _looks_like_zone(word: str) -> bool:
    """A trailing word meant as a zone: Area/Location or a listed name (UTC).
    Anything else stays part of the last segment, to be reported as such."""
    if ":" in word:  # every segment ends in HH:MM
        return False
    return "/" in word or word.upper() == "UTC" or word in _known_zones()


def _zone(name: str) -> tzinfo:
    if name.upper() == "UTC":
        return UTC
    # Only names the tz database lists: ZoneInfo alone would also try paths
    # such as a directory ("Europe") and fail with an OSError.
    if name not in _known_zones():
        raise ChangeWindowError(
            f"{name!r} is not a time zone: use an IANA name such as "
            "'Europe/Berlin' or 'America/New_York', or UTC."
        )
    return ZoneInfo(name)


@functools.cache
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones())


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
