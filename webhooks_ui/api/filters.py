"""The API's FilterSets: the UI's, plus filters only the API offers.

Each filter has one home: everything the overview filters on lives in
``webhooks_ui.filters`` and is inherited here unchanged.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext_lazy as _

from webhooks_ui.api.permissions import MAX_ID
from webhooks_ui.converters import KIND_BY_SLUG
from webhooks_ui.filters import ConfigurationFilterSet
from webhooks_ui.models import AuditEvent, ChangeRequest, Cluster, RiskFinding
from webhooks_ui.review.matrix import Column, Matrix
from webhooks_ui.services.changes import awaiting_review

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
    """An ISO 8601 instant; one the database cannot hold is invalid, not a 500."""

    def to_python(self, value: Any) -> datetime | None:
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


class ApiChangeRequestFilterSet(django_filters.FilterSet):
    """Change request list filters, named like the change list page's."""

    state = django_filters.MultipleChoiceFilter(
        label=_("State"), choices=ChangeRequest.State.choices
    )
    cluster = django_filters.CharFilter(label=_("Cluster"), field_name="cluster__name")
    author = django_filters.CharFilter(
        label=_("Author (username)"), field_name="author__username"
    )
    kind = _kind_filter()
    name = django_filters.CharFilter(label=_("Configuration name"), field_name="name")
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

    class Meta:
        model = ChangeRequest
        fields: list[str] = []

    def __init__(self, *args: Any, clusters: QuerySet[Cluster], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

    def filter_kind(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(kind=KIND_BY_SLUG.get(value, value))

    def filter_awaiting_my_review(
        self, queryset: QuerySet, name: str, value: bool
    ) -> QuerySet:
        awaiting = awaiting_review(self.request.user).values("pk")
        if value:
            return queryset.filter(pk__in=awaiting)
        return queryset.exclude(pk__in=awaiting)

    def filter_mine(self, queryset: QuerySet, name: str, value: bool) -> QuerySet:
        if value:
            return queryset.filter(author_id=self.request.user.pk)
        return queryset.exclude(author_id=self.request.user.pk)


class ApiAuditEventFilterSet(django_filters.FilterSet):
    """Audit log filters; the export takes the same query string."""

    cluster = django_filters.CharFilter(label=_("Cluster"), field_name="cluster_name")
    user = django_filters.CharFilter(
        label=_("User (username)"), field_name="actor_name"
    )
    kind = _kind_filter()
    name = django_filters.CharFilter(
        label=_("Configuration name"), field_name="configuration_name"
    )
    action = django_filters.CharFilter(
        label=_("Action"), help_text=_("e.g. change.applied, sync.failed")
    )
    change = IdFilter(label=_("Change request id"), field_name="change_id")
    since = InstantFilter(
        label=_("Since (ISO 8601, inclusive)"), field_name="at", lookup_expr="gte"
    )
    until = InstantFilter(
        label=_("Until (ISO 8601, exclusive)"), field_name="at", lookup_expr="lt"
    )

    class Meta:
        model = AuditEvent
        fields: list[str] = []

    def __init__(
        self, *args: Any, clusters: QuerySet[Cluster] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)

    def filter_kind(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(configuration_kind=KIND_BY_SLUG.get(value, value))
