"""Change windows: parsing and whether a moment is inside."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from webhooks_ui.domain.change_window import ChangeWindowError, parse

MONDAY = datetime(2026, 11, 23, tzinfo=UTC)


def at(day_offset: int, hour: int, minute: int = 0) -> datetime:
    return MONDAY + timedelta(days=day_offset, hours=hour, minutes=minute)


def test_empty_means_any_time():
    window = parse("")
    assert window.is_open(at(5, 3))


@pytest.mark.parametrize(
    ("moment", "open_"),
    [
        (at(0, 9), True),
        (at(0, 8, 59), False),
        (at(4, 16, 59), True),
        (at(4, 17), False),
        (at(5, 12), False),
    ],
)
def test_weekday_office_hours(moment, open_):
    assert parse("Mon-Fri 09:00-17:00").is_open(moment) is open_


def test_past_midnight_belongs_to_the_starting_day():
    window = parse("Fri 22:00-02:00")
    assert window.is_open(at(4, 23))
    assert window.is_open(at(5, 1, 30))
    assert not window.is_open(at(0, 1))


def test_several_segments_and_other_timezones():
    window = parse("Mon-Thu 09:00-17:00, Fri 09:00-12:00")
    assert not window.is_open(at(4, 13))
    paris = timezone(timedelta(hours=1))
    assert window.is_open(datetime(2026, 11, 23, 10, 30, tzinfo=paris))


def test_next_opening():
    window = parse("Mon-Fri 09:00-17:00")
    assert window.next_opening(at(5, 12)) == at(7, 9)
    assert window.next_opening(at(0, 10)) == at(0, 10)


def test_a_window_without_a_zone_is_utc_and_says_so():
    window = parse("Mon-Fri 09:00-17:00")
    assert window.zone_name == "" and window.zone_label == "UTC"
    assert window.describe() == "Mon-Fri 09:00-17:00 UTC"
    assert parse("Mon-Fri 09:00-17:00 UTC").describe() == "Mon-Fri 09:00-17:00 UTC"


def test_hours_are_wall_clock_time_in_the_zone():
    window = parse("Mon-Fri 09:00-17:00, Sat 10:00-12:00 Europe/Berlin")
    assert window.describe() == "Mon-Fri 09:00-17:00, Sat 10:00-12:00 Europe/Berlin"
    # Winter: Berlin is UTC+1.
    assert not window.is_open(at(0, 7, 59))
    assert window.is_open(at(0, 8))
    assert window.is_open(at(5, 9, 30))  # Saturday 10:30 in Berlin
    # Summer (CEST, UTC+2): 09:00 Berlin is 07:00 UTC.
    summer_monday = datetime(2026, 7, 6, 7, 0, tzinfo=UTC)
    assert window.is_open(summer_monday)
    assert not window.is_open(summer_monday - timedelta(minutes=1))


def test_next_opening_is_in_the_zone_and_right_across_dst():
    window = parse("daily 09:00-10:00 Europe/Berlin")
    # Saturday 28 March 2026, 12:00 UTC; clocks go forward that night.
    opening = window.next_opening(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    assert opening.isoformat() == "2026-03-29T09:00:00+02:00"
    assert opening.astimezone(UTC) == datetime(2026, 3, 29, 7, 0, tzinfo=UTC)
    inside = datetime(2026, 3, 30, 7, 30, tzinfo=UTC)
    assert window.next_opening(inside) == inside


@pytest.mark.parametrize(
    "zone", ["Europe/Berln", "Europe/", "../../etc/passwd", "Mars/Base"]
)
def test_unknown_time_zones_are_refused_with_a_reason(zone):
    with pytest.raises(ChangeWindowError, match="is not a time zone"):
        parse(f"Mon-Fri 09:00-17:00 {zone}")


@pytest.mark.parametrize(
    "text",
    [
        "weekdays",
        "Europe/Berlin",
        "Mon-Fri 09:00-17:00 Berlin",
        "Mon 9-17",
        "Funday 09:00-10:00",
        "Mon 25:00-26:00",
        "Mon 09:00-09:00",
    ],
)
def test_bad_windows_are_refused_with_a_reason(text):
    with pytest.raises(ChangeWindowError):
        parse(text)
