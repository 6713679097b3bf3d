"""FilterSets shared by the UI and the REST API (one per list)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from webhooks_ui.domain.risk import CHECKS
from webhooks_ui.models import (
    AuditEvent,
    ChangeRequest,
    Cluster,
    RiskFinding,
    WebhookConfiguration,
)

KIND_SLUGS = {
    "mutating": WebhookConfiguration.Kind.MUTATING,
    "validating": WebhookConfiguration.Kind.VALIDATING,
}


class DateInput(forms.DateInput):
    """An HTML5 date picker (the value stays ISO ``YYYY-MM-DD``)."""

    input_type = "date"


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


class ChangeRequestFilterSet(django_filters.FilterSet):
    """Filters of the change request list: a tab (whose changes), then fields.

    The queryset given is already limited to what the user may see; ``tab``
    narrows it to the changes awaiting their review or to their own.
    """

    TAB_REVIEW = "review"
    TAB_MINE = "mine"
    TAB_ALL = "all"
    TABS = [
        (TAB_REVIEW, _("Awaiting my review")),
        (TAB_MINE, _("My changes")),
        (TAB_ALL, _("All")),
    ]

    tab = django_filters.ChoiceFilter(
        label=_("Show"), choices=TABS, method="filter_tab", empty_label=None
    )
    state = django_filters.MultipleChoiceFilter(
        label=_("State"), choices=ChangeRequest.State.choices
    )
    cluster = django_filters.ChoiceFilter(
        label=_("Cluster"),
        field_name="cluster__name",
        choices=[],
        empty_label=_("Any cluster"),
    )
    author = django_filters.CharFilter(
        label=_("Author"), field_name="author__username", lookup_expr="icontains"
    )
    name = django_filters.CharFilter(
        label=_("Configuration"), field_name="name", lookup_expr="icontains"
    )

    class Meta:
        model = ChangeRequest
        fields: list[str] = []

    def __init__(
        self,
        *args,
        clusters: QuerySet[Cluster],
        awaiting: QuerySet[ChangeRequest],
        user_id: int | None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.filters["cluster"].extra["choices"] = [
            (n, n) for n in clusters.values_list("name", flat=True)
        ]
        _forget_built_fields(self.filters)
        self._awaiting = awaiting
        self._user_id = user_id

    def filter_tab(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value == self.TAB_REVIEW:
            return queryset.filter(pk__in=self._awaiting.values("pk"))
        if value == self.TAB_MINE:
            return queryset.filter(author_id=self._user_id)
        return queryset

    @property
    def current_tab(self) -> str:
        if self.is_valid() and self.form.cleaned_data.get("tab"):
            return self.form.cleaned_data["tab"]
        return self.TAB_ALL


class AuditEventFilterSet(django_filters.FilterSet):
    """Filters of the audit log page and its CSV/JSON export (same query string)."""

    cluster = django_filters.ChoiceFilter(
        label=_("Cluster"),
        field_name="cluster_name",
        choices=[],
        empty_label=_("Any cluster"),
    )
    user = django_filters.CharFilter(
        label=_("User"), field_name="actor_name", lookup_expr="icontains"
    )
    configuration = django_filters.CharFilter(
        label=_("Configuration"),
        method="filter_configuration",
        help_text=_("A name, or kind/name (validating/my-hook)"),
    )
    action = django_filters.ChoiceFilter(
        label=_("Action"), choices=[], empty_label=_("Any action")
    )
    since = django_filters.DateFilter(
        label=_("Since (UTC)"), method="filter_since", widget=DateInput
    )
    until = django_filters.DateFilter(
        label=_("Until (UTC)"), method="filter_until", widget=DateInput
    )
    change = django_filters.NumberFilter(
        label=_("Change request"),
        field_name="change_id",
        min_value=1,
        max_value=2**63 - 1,  # beyond a 64-bit id: a form error, not a 500
    )

    class Meta:
        model = AuditEvent
        fields: list[str] = []

    def __init__(
        self, *args, clusters: QuerySet[Cluster], actions: list[str], **kwargs
    ) -> None:
        super().__init__(*args, **kwargs)
        self.filters["cluster"].extra["choices"] = [
            (n, n) for n in clusters.values_list("name", flat=True)
        ]
        self.filters["action"].extra["choices"] = [(a, a) for a in actions]
        _forget_built_fields(self.filters)

    def filter_configuration(
        self, queryset: QuerySet, name: str, value: str
    ) -> QuerySet:
        value = value.strip()
        slug, slash, rest = value.partition("/")
        kind = KIND_SLUGS.get(slug.lower()) or (
            slug if slug in WebhookConfiguration.Kind.values else None
        )
        if slash and kind and rest.strip():
            return queryset.filter(
                configuration_kind=kind, configuration_name=rest.strip()
            )
        return queryset.filter(configuration_name__icontains=value)

    def filter_since(self, queryset: QuerySet, name: str, value: date) -> QuerySet:
        return queryset.filter(at__gte=datetime.combine(value, time.min, tzinfo=UTC))

    def filter_until(self, queryset: QuerySet, name: str, value: date) -> QuerySet:
        end = datetime.combine(value + timedelta(days=1), time.min, tzinfo=UTC)
        return queryset.filter(at__lt=end)
