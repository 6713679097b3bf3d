"""Settings for the webhook dashboard, read from the environment with safe defaults.

Defaults give a local, single-user run: SQLite in ``.local/`` and keys generated
into ``.local/secrets.json``. Set DATABASE_URL for PostgreSQL and the
DASHBOARD_* variables below for a real deployment.
"""

import os
from pathlib import Path

import dj_database_url

from dashboard import local_secrets

BASE_DIR = Path(__file__).resolve().parent.parent
LOCAL_DIR = Path(os.environ.get("DASHBOARD_LOCAL_DIR", BASE_DIR / ".local"))


def _env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: str) -> list[str]:
    return [
        item.strip()
        for item in os.environ.get(name, default).split(",")
        if item.strip()
    ]


_local = None
if not (
    os.environ.get("DASHBOARD_SECRET_KEY")
    and os.environ.get("DASHBOARD_CREDENTIALS_KEYS")
):
    _local = local_secrets.load_or_create(LOCAL_DIR / "secrets.json")

SECRET_KEY = os.environ.get("DASHBOARD_SECRET_KEY") or _local["secret_key"]
# Fernet keys for stored cluster credentials: the first encrypts, all decrypt.
CREDENTIALS_KEYS = _env_list(
    "DASHBOARD_CREDENTIALS_KEYS", _local["credentials_key"] if _local else ""
)

DEBUG = _env_bool("DASHBOARD_DEBUG", False)
ALLOWED_HOSTS = _env_list("DASHBOARD_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = _env_list("DASHBOARD_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "django_htmx",
    "template_partials",
    "drf_spectacular",
    "webhooks_ui",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "webhooks_ui.middleware.SecurityHeadersMiddleware",
]

ROOT_URLCONF = "dashboard.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webhooks_ui.context_processors.change_counts",
            ],
        },
    },
]

WSGI_APPLICATION = "dashboard.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default="sqlite:///" + str(LOCAL_DIR / "dashboard.sqlite3"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Sync threads and request threads share the file: wait, do not fail.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        # IMMEDIATE: a writing transaction takes the lock up front, so two
        # writers queue instead of one failing with "database is locked".
        # WAL: pages keep reading while a background sync writes.
        timeout=20,
        transaction_mode="IMMEDIATE",
        init_command="PRAGMA journal_mode=WAL;",
    )
    # Tests too use a file: an in-memory shared-cache database fails at once
    # ("table is locked") where a real one waits, so threads would flake.
    # One file per test process, so two runs in one checkout never share it.
    DATABASES["default"]["TEST"] = {
        "NAME": str(LOCAL_DIR / f"test-{os.getpid()}.sqlite3")
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_PW = "django.contrib.auth.password_validation."
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": _PW + "UserAttributeSimilarityValidator"},
    {"NAME": _PW + "MinimumLengthValidator"},
    {"NAME": _PW + "CommonPasswordValidator"},
    {"NAME": _PW + "NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # Installed by `npm ci` (see package.json); served locally, never from a CDN.
    ("vendor/bootstrap", BASE_DIR / "node_modules" / "bootstrap" / "dist"),
]
STATIC_ROOT = Path(os.environ.get("DASHBOARD_STATIC_ROOT", BASE_DIR / "staticfiles"))

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = _env_bool("DASHBOARD_SECURE_COOKIES", False)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON only (validate adds YAML and text): bodies are nested objects that
    # form encodings cannot carry, and a schema offering them misleads clients.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
}

# Where ../shared (spec and corpus) lives; tests skip what needs it when absent.
SHARED_DIR = Path(os.environ.get("WEBHOOKS_SHARED_DIR", BASE_DIR.parent / "shared"))

# Cluster access: timeouts and parallelism for sync.
KUBE_REQUEST_TIMEOUT = float(os.environ.get("DASHBOARD_KUBE_TIMEOUT", "15"))
SYNC_CONCURRENCY = int(os.environ.get("DASHBOARD_SYNC_CONCURRENCY", "4"))
SYNC_PAGE_SIZE = int(os.environ.get("DASHBOARD_SYNC_PAGE_SIZE", "250"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {
        "handlers": ["console"],
        "level": os.environ.get("DASHBOARD_LOG_LEVEL", "INFO"),
    },
    # The kubernetes client logs request bodies at DEBUG: never let credentials through.
    "loggers": {"kubernetes": {"level": "WARNING"}, "urllib3": {"level": "WARNING"}},
}
