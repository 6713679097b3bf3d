"""The approval policy form of a cluster's settings page."""

from django import forms

from webhooks_ui.models import Cluster


class ClusterPolicyForm(forms.ModelForm):
    """The three policy fields; the model's validators (the change window's
    domain parser among them) put their words under the field."""

    class Meta:
        model = Cluster
        fields = ["approvals_required", "author_may_apply", "change_window"]
        widgets = {
            "approvals_required": forms.NumberInput(
                attrs={"class": "form-control form-control-sm", "min": 1, "max": 10}
            ),
            "author_may_apply": forms.CheckboxInput(
                attrs={"class": "form-check-input"}
            ),
            "change_window": forms.TextInput(
                attrs={
                    "class": "form-control form-control-sm mono",
                    "placeholder": "Mon-Fri 09:00-17:00 Europe/Berlin",
                }
            ),
        }
