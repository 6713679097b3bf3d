"""clientConfig: one target (V-25), Go URL parsing (V-26), service (V-27..V-29)."""

import pytest

from tests.domain.webhook_factory import config, errors_of, webhook
from webhooks_ui.domain.urls import GoURLError, go_url_parse, validate_webhook_url
from webhooks_ui.domain.validation import validate

C = "webhooks[0].clientConfig"
U = f"{C}.url"
S = f"{C}.service"


def _client(client_config: object) -> list[tuple[str, str]]:
    return errors_of(webhook(clientConfig=client_config))


@pytest.mark.parametrize(
    ("client_config", "expected"),
    [
        ({"url": "https://example.com/hook"}, []),
        ({"service": {"name": "s", "namespace": "n"}}, []),
        ({}, [(C, "Required")]),
        (None, [(C, "Required")]),
        # Both set: neither is looked at.
        ({"url": "ftp://", "service": {"name": ""}}, [(C, "Required")]),
        ({"url": "https://h/", "caBundle": "Y2E="}, []),
        (
            {"url": "https://h/", "caBundle": "not base64!"},
            [(f"{C}.caBundle", "Invalid")],
        ),
        ("https://h/", [(C, "Invalid")]),
        ({"url": 5}, [(U, "Invalid")]),
        ({"service": "svc"}, [(S, "Invalid")]),
    ],
)
def test_v25_exactly_one_of_url_or_service(client_config, expected):
    assert _client(client_config) == expected


def test_v25_message():
    errors = validate(config(webhook(clientConfig={})))
    assert str(errors[0]) == (
        f"{C}: Required value: exactly one of url or service is required"
    )


# V-26, every case the spec lists.
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/path", []),
        ("HTTPS://example.com/", []),  # scheme compared lower-cased
        ("https://h:99999/", []),  # port not range-checked
        ("https://10.0.0.1:8443/x", []),
        ("https://[::1]:8443/x", []),
        ("https://h/?", []),  # empty query
        ("https://h/#", []),  # empty fragment
        ("https://h:abc/", ["Required"]),  # parse failures are Required
        ("https://exa mple.com/", ["Required"]),
        ("https://h/%zz", ["Required"]),
        ("https://h/%", ["Required"]),
        ("https://[::1/", ["Required"]),
        (":no-scheme", ["Required"]),
        ("http://h/", ["Invalid"]),
        ("https:///x", ["Invalid"]),
        ("https:host/x", ["Invalid"]),
        ("example.com/x", ["Invalid", "Invalid"]),
        ("", ["Invalid", "Invalid"]),
        ("http:///x", ["Invalid", "Invalid"]),  # two Invalids at one path (E-3)
        ("https://@host/", ["Invalid"]),
        ("https://user:pw@host/", ["Invalid"]),
        ("https://h/#frag", ["Invalid"]),
        ("https://h/?a=b", ["Invalid"]),
        ("https://u@h/?a#f", ["Invalid", "Invalid", "Invalid"]),
    ],
)
def test_v26_url(url, expected):
    assert _client({"url": url}) == [(U, reason) for reason in expected]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "https://h:abc/",
            'Required value: url must be a valid URL: parse "https://h:abc/": '
            'invalid port ":abc" after host; desired format: https://host[/path]',
        ),
        (
            "https://exa mple.com/",
            'Required value: url must be a valid URL: parse "https://exa mple.com/": '
            'invalid character " " in host name; desired format: https://host[/path]',
        ),
        (
            "https://h/%zz",
            'Required value: url must be a valid URL: parse "https://h/%zz": '
            'invalid URL escape "%zz"; desired format: https://host[/path]',
        ),
        (
            "http://h/",
            "Invalid value: \"http\": 'https' is the only allowed URL scheme; "
            "desired format: https://host[/path]",
        ),
        (
            "https:///x",
            'Invalid value: "": host must be provided; desired format: https://host[/path]',
        ),
        (
            "https://u:p@h/",
            'Invalid value: "u:p": user information is not permitted in the URL',
        ),
        ("https://h/#f", 'Invalid value: "f": fragments are not permitted in the URL'),
        (
            "https://h/?a=b",
            'Invalid value: "a=b": query parameters are not permitted in the URL',
        ),
    ],
)
def test_v26_messages(url, message):
    assert [e.message for e in validate_webhook_url("u", url)] == [message]


@pytest.mark.parametrize(
    "url",
    ["https://h/\x7f", "https://h\n/", "https://%41/", "1a:b/c", "https://h/#%zz"],
)
def test_go_url_parse_failures(url):
    with pytest.raises(GoURLError):
        go_url_parse(url)


def test_go_url_parse_parts():
    parsed = go_url_parse("HTTPS://u:p@Example.com:8443/a%20b?x=1#frag")
    assert (parsed.scheme, parsed.host, parsed.user) == (
        "https",
        "Example.com:8443",
        "u:p",
    )
    assert (parsed.raw_query, parsed.fragment) == ("x=1", "frag")
    assert go_url_parse("https:opaque").host == ""


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        ({"name": "s", "namespace": "n"}, []),
        ({"name": "Not_DNS", "namespace": "Not_DNS_Either"}, []),  # N-3
        ({"name": "", "namespace": "n"}, [(f"{S}.name", "Required")]),
        ({"namespace": "n"}, [(f"{S}.name", "Required")]),
        ({"name": "s"}, [(f"{S}.namespace", "Required")]),
        ({}, [(f"{S}.name", "Required"), (f"{S}.namespace", "Required")]),
        ({"name": "s", "namespace": "n", "port": 443}, []),
        ({"name": "s", "namespace": "n", "port": 65535}, []),
        ({"name": "s", "namespace": "n", "port": 0}, [(f"{S}.port", "Invalid")]),
        ({"name": "s", "namespace": "n", "port": 65536}, [(f"{S}.port", "Invalid")]),
        ({"name": "s", "namespace": "n", "port": "443"}, [(f"{S}.port", "Invalid")]),
        ({"name": 1, "namespace": "n"}, [(f"{S}.name", "Invalid")]),
    ],
)
def test_v27_service(service, expected):
    assert _client({"service": service}) == expected


@pytest.mark.parametrize(
    ("path", "count"),
    [
        (None, 0),
        ("", 0),
        ("/", 0),
        ("/validate", 0),
        ("/validate-v1-pod", 0),
        ("/a/b.c/d/", 0),
        ("//", 1),
        ("validate", 1),  # no leading "/"
        ("/Validate", 1),  # upper case: not a subdomain
        ("/a_b", 1),
        ("/a//b", 1),  # empty segment
        ("/a/", 0),  # one trailing "/" dropped
        ("/a//", 1),
        ("noslash/Upper", 2),
    ],
)
def test_v28_service_path(path, count):
    service = {"name": "s", "namespace": "n", "path": path}
    assert _client({"service": service}) == [(f"{S}.path", "Invalid")] * count


def test_v28_messages():
    service = {"name": "s", "namespace": "n", "path": "/ok//Bad"}
    errors = validate(config(webhook(clientConfig={"service": service})))
    assert [e.detail for e in errors] == [
        "segment[1] may not be empty",
        "segment[2]: a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]


def test_v29_ca_bundle_content_is_not_validated():
    anything = "bm90IGEgY2VydGlmaWNhdGU="  # base64 of "not a certificate"
    assert _client({"url": "https://h/", "caBundle": anything}) == []
    assert _client({"url": "https://h/", "caBundle": "Y2Fh\nY2E="}) == []
