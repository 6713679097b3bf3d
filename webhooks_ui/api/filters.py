"""The API's FilterSets: the UI's, plus filters only the API offers.

Each filter has one home: everything the overview filters on lives in
``webhooks_ui.filters`` and is inherited here unchanged.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext_lazy as _

from webhooks_ui.api.permissions import MAX_ID
from webhooks_ui.converters import KIND_BY_SLUG
from webhooks_ui.filters import (
    AuditEventFilterSet,
    ChangeRequestFilterSet,
    ConfigurationFilterSet,
)
from webhooks_ui.models import ChangeRequest, Cluster, RiskFinding
from webhooks_ui.review.audit import audit_actions
from webhooks_ui.review.matrix import Column, Matrix
from webhooks_ui.services.changes import awaiting_review

_PLAIN_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
KIND_CHOICES = [
    ("mutating", "mutating"),
    ("validating", "validating"),
    *((kind, kind) for kind in KIND_BY_SLUG.values()),
]


class ApiConfigurationFilterSet(ConfigurationFilterSet):
    """The overview's filters (cluster, environment, kind, q, only_different),
    ``name`` for an exact name, and risk filters."""

    name = django_filters.CharFilter(label=_("Name"), field_name="name")
    has_risk = django_filters.BooleanFilter(
        label=_("Has risk findings"),
        method="filter_has_risk",
        widget=django_filters.widgets.BooleanWidget(),
    )
    fails_closed = django_filters.BooleanFilter(
        label=_("Has a webhook with failurePolicy Fail"),
        method="filter_fails_closed",
        widget=django_filters.widgets.BooleanWidget(),
    )

    def filter_has_risk(self, queryset: QuerySet, name: str, value: bool) -> QuerySet:
        found = Exists(RiskFinding.objects.filter(configuration=OuterRef("pk")))
        return queryset.filter(found) if value else queryset.exclude(found)

    def filter_fails_closed(
        self, queryset: QuerySet, name: str, value: bool
    ) -> QuerySet:
        if value:
            return queryset.filter(fail_closed_count__gt=0)
        return queryset.filter(fail_closed_count=0)

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        """The overview's columns narrow rows too; ``only_different`` keeps the
        rows the overview's matrix marks as differing (same rule, same code)."""
        queryset = super().filter_queryset(queryset)
        columns = list(self.columns())
        queryset = queryset.filter(cluster__in=columns)
        if not self.wants_only_different:
            return queryset
        entries = queryset.order_by().values_list(
            "cluster_id", "kind", "name", "comparison_hash"
        )
        matrix = Matrix(entries, [Column(c.pk, c.name) for c in columns])
        differing = matrix.differing_keys()
        names = {name for _, name in differing}
        keys = set(differing)
        ids = [
            pk
            for pk, kind, name in queryset.filter(name__in=names).values_list(
                "pk", "kind", "name"
            )
            if (kind, name) in keys
        ]
        return queryset.filter(pk__in=ids)


class IdFilter(django_filters.NumberFilter):
    """An exact id: a whole number the database can hold."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class _InstantField(django_filters.fields.IsoDateTimeField):
    """An ISO 8601 instant, or a plain date as the UI's filters take it (the
    day's start; with ``end_of_day``, the next day's start: the whole day in).
    One the database cannot hold is invalid, not a 500."""

    def __init__(self, *args: Any, end_of_day: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.end_of_day = end_of_day

    def to_python(self, value: Any) -> datetime | None:
        if isinstance(value, str) and _PLAIN_DATE.match(value.strip()):
            try:
                day = date.fromisoformat(value.strip())
                start = datetime.combine(day, time.min, tzinfo=UTC)
                return start + timedelta(days=1) if self.end_of_day else start
            except (OverflowError, ValueError):
                raise forms.ValidationError(_("Enter a valid date.")) from None
        instant = super().to_python(value)
        if instant is None:
            return None
        try:
            return instant.astimezone(UTC)
        except (OverflowError, ValueError):
            raise forms.ValidationError(_("Enter a valid date/time.")) from None


class InstantFilter(django_filters.IsoDateTimeFilter):
    field_class = _InstantField


def _kind_filter() -> django_filters.ChoiceFilter:
    return django_filters.ChoiceFilter(
        label=_("Kind"),
        choices=KIND_CHOICES,
        method="filter_kind",
        help_text=_("mutating or validating (or the full kind)"),
    )


class ApiChangeRequestFilterSet(ChangeRequestFilterSet):
    """The change list page's filters (tab, state, cluster, author, name), and
    ``kind``, ``action``, ``awaiting_my_review`` and ``mine`` for scripts."""

    kind = _kind_filter()
    action = django_filters.ChoiceFilter(
        label=_("Action"), choices=ChangeRequest.Action.choices
    )
    awaiting_my_review = django_filters.BooleanFilter(
        label=_("Awaiting my review"),
        method="filter_awaiting_my_review",
        widget=django_filters.widgets.BooleanWidget(),
    )
    mine = django_filters.BooleanFilter(
        label=_("Mine"),
        method="filter_mine",
        widget=django_filters.widgets.BooleanWidget(),
    )

    def __init__(self, *args: Any, clusters: QuerySet[Cluster], **kwargs: Any) -> None:
        user = kwargs["request"].user
        super().__init__(
            *args,
            clusters=clusters,
            awaiting=awaiting_review(user),
            user_id=user.pk,
            **kwargs,
        )

    def filter_kind(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(kind=KIND_BY_SLUG.get(value, value))

    def filter_awaiting_my_review(
        self, queryset: QuerySet, name: str, value: bool
    ) -> QuerySet:
        awaiting = self._awaiting.values("pk")
        if value:
            return queryset.filter(pk__in=awaiting)
        return queryset.exclude(pk__in=awaiting)

    def filter_mine(self, queryset: QuerySet, name: str, value: bool) -> QuerySet:
        if value:
            return queryset.filter(author_id=self._user_id)
        return queryset.exclude(author_id=self._user_id)


class ApiAuditEventFilterSet(AuditEventFilterSet):
    """The audit page's filters (cluster, user, configuration, action, change),
    with ``since``/``until`` taking ISO 8601 instants as well as dates, and
    ``kind`` and an exact ``name`` for scripts. The export takes the same."""

    kind = _kind_filter()
    name = django_filters.CharFilter(
        label=_("Configuration name (exact)"), field_name="configuration_name"
    )
    change = IdFilter(label=_("Change request"), field_name="change_id")
    since = InstantFilter(
        label=_("Since (ISO 8601 instant or date, inclusive)"),
        field_name="at",
        lookup_expr="gte",
    )
    until = InstantFilter(
        label=_("Until (ISO 8601 instant, exclusive; a date: through that day)"),
        field_name="at",
        lookup_expr="lt",
        end_of_day=True,
    )

    def __init__(self, *args: Any, clusters: QuerySet[Cluster], **kwargs: Any) -> None:
        super().__init__(*args, clusters=clusters, actions=audit_actions(), **kwargs)

    def filter_kind(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(configuration_kind=KIND_BY_SLUG.get(value, value))
