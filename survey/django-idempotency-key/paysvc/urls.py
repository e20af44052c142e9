from django.urls import path

from paysvc import views

urlpatterns = [
    path("healthz", views.healthz),
    path("payments", views.payments),
    path("ledger", views.ledger),
]
