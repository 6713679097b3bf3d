"""The "grant a role" form of a cluster's settings page."""

from django import forms
from django.utils.translation import gettext_lazy as _

from webhooks_ui.models import ClusterMembership
from webhooks_ui.services.memberships import GROUP, USER


class MembershipGrantForm(forms.Form):
    """Who (a user or a group, by name) gets which role; the service checks
    that the name exists and puts its words under ``holder_name``."""

    holder_kind = forms.ChoiceField(
        label=_("grant to"),
        choices=[(USER, _("user")), (GROUP, _("group"))],
        initial=USER,
    )
    holder_name = forms.CharField(label=_("user or group name"), max_length=150)
    role = forms.ChoiceField(
        label=_("role"), choices=ClusterMembership.Role.choices, initial="viewer"
    )

    def holder(self) -> dict[str, str]:
        """The service's keyword for the holder: ``username`` or ``group_name``."""
        kind = self.cleaned_data["holder_kind"]
        key = "username" if kind == USER else "group_name"
        return {key: self.cleaned_data["holder_name"]}
