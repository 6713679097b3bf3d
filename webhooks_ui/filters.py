"""FilterSets shared by the UI and the REST API (one per list)."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from webhooks_ui.domain.risk import CHECKS
from webhooks_ui.models import Cluster, RiskFinding, WebhookConfiguration

KIND_SLUGS = {
    "mutating": WebhookConfiguration.Kind.MUTATING,
    "validating": WebhookConfiguration.Kind.VALIDATING,
}


def _forget_built_fields(filters: dict[str, django_filters.Filter]) -> None:
    """Drop form fields built before the per-request choices were set.

    A Filter caches its field on first use, and a FilterSet's filters are
    copies of the class's: once anything reads a field from the class (the
    OpenAPI schema generator does), every copy would keep that field's empty
    choices and reject every cluster name.
    """
    for filter_ in filters.values():
        filter_.__dict__.pop("_field", None)


class ConfigurationFilterSet(django_filters.FilterSet):
    """Filters of the overview matrix; values live in the URL's query string.

    ``cluster`` and ``environment`` narrow the columns as well as the rows;
    ``only_different`` is applied to whole matrix rows (see review.matrix),
    so its filter method leaves the queryset alone.
    """

    q = django_filters.CharFilter(
        label=_("Search"), method="filter_text", help_text=_("Name contains")
    )
    kind = django_filters.ChoiceFilter(
        label=_("Kind"),
        choices=[("mutating", _("Mutating")), ("validating", _("Validating"))],
        method="filter_kind",
        empty_label=_("Any kind"),
    )
    cluster = django_filters.MultipleChoiceFilter(
        label=_("Cluster"), field_name="cluster__name", choices=[]
    )
    environment = django_filters.MultipleChoiceFilter(
        label=_("Environment"), field_name="cluster__environment", choices=[]
    )
    only_different = django_filters.BooleanFilter(
        label=_("Only configurations that differ"),
        method="filter_nothing",
        widget=django_filters.widgets.BooleanWidget(),
    )

    class Meta:
        model = WebhookConfiguration
        fields: list[str] = []

    def __init__(self, *args, clusters: QuerySet[Cluster], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = list(clusters.values_list("name", flat=True))
        environments = sorted(
            {env for env in clusters.values_list("environment", flat=True) if env}
        )
        self.filters["cluster"].extra["choices"] = [(n, n) for n in names]
        self.filters["environment"].extra["choices"] = [(e, e) for e in environments]
        _forget_built_fields(self.filters)
        self._clusters = clusters

    def filter_text(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(Q(name__icontains=value.strip()))

    def filter_kind(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(kind=KIND_SLUGS[value])

    def filter_nothing(self, queryset: QuerySet, name: str, value: bool) -> QuerySet:
        return queryset

    @property
    def wants_only_different(self) -> bool:
        return bool(self.is_valid() and self.form.cleaned_data.get("only_different"))

    def columns(self) -> QuerySet[Cluster]:
        """The clusters the matrix shows, after the cluster/environment filters."""
        clusters = self._clusters
        if not self.is_valid():
            return clusters
        if names := self.form.cleaned_data.get("cluster"):
            clusters = clusters.filter(name__in=names)
        if environments := self.form.cleaned_data.get("environment"):
            clusters = clusters.filter(environment__in=environments)
        return clusters


class FindingFilterSet(django_filters.FilterSet):
    """Filters of the fleet-wide findings list (UI and API)."""

    q = django_filters.CharFilter(
        label=_("Search"), method="filter_text", help_text=_("Configuration or webhook")
    )
    severity = django_filters.MultipleChoiceFilter(
        label=_("Severity"), choices=RiskFinding.Severity.choices
    )
    check_id = django_filters.ChoiceFilter(
        label=_("Check"), choices=[], empty_label=_("Any check")
    )
    cluster = django_filters.MultipleChoiceFilter(
        label=_("Cluster"), field_name="cluster__name", choices=[]
    )
    environment = django_filters.MultipleChoiceFilter(
        label=_("Environment"), field_name="cluster__environment", choices=[]
    )
    scope = django_filters.ChoiceFilter(
        label=_("Scope"), choices=RiskFinding.Scope.choices, empty_label=_("Any")
    )

    class Meta:
        model = RiskFinding
        fields: list[str] = []

    def __init__(self, *args, clusters: QuerySet[Cluster], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.filters["cluster"].extra["choices"] = [
            (n, n) for n in clusters.values_list("name", flat=True)
        ]
        environments = sorted(
            {env for env in clusters.values_list("environment", flat=True) if env}
        )
        self.filters["environment"].extra["choices"] = [(e, e) for e in environments]
        self.filters["check_id"].extra["choices"] = [
            (check_id, info.title) for check_id, info in sorted(CHECKS.items())
        ]
        _forget_built_fields(self.filters)

    def filter_text(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        value = value.strip()
        return queryset.filter(
            Q(configuration_name__icontains=value) | Q(webhook__icontains=value)
        )
