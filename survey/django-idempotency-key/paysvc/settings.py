# The smallest Django project: no database, no apps, and the idempotency
# middleware exactly as django-idempotency-key's README configures it
# ("all non-safe view functions automatically use idempotency keys"), with
# no IDEMPOTENCY_KEY settings: the documented defaults (MemoryKeyStorage,
# ThreadLock, 409 on a repeat, the Idempotency-Key header).
SECRET_KEY = "survey-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "paysvc.urls"
INSTALLED_APPS = []
DATABASES = {}
USE_TZ = True
MIDDLEWARE = [
    "idempotency_key.middleware.IdempotencyKeyMiddleware",
]
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
}
