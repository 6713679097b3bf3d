"""The API's FilterSets: the UI's, plus filters only the API offers.

Each filter has one home: everything the overview filters on lives in
``webhooks_ui.filters`` and is inherited here unchanged.
"""

from __future__ import annotations

import django_filters
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext_lazy as _

from webhooks_ui.filters import ConfigurationFilterSet
from webhooks_ui.models import RiskFinding
from webhooks_ui.review.matrix import Column, Matrix


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
