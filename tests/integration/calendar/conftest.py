"""The calendar stand-in over HTTPS (a self-signed certificate made by openssl)."""

from __future__ import annotations

import shutil

import pytest

from tests.support.calendar_standin import CalendarStandIn
from tests.support.github_standin import make_certificate
from tests.support.require import need


@pytest.fixture(scope="session")
def calendar_certificate(tmp_path_factory):
    need(shutil.which("openssl"), "openssl is not installed (the stand-in's certificate)")
    return make_certificate(tmp_path_factory.mktemp("calendar-tls"))


@pytest.fixture
def calendar_server(calendar_certificate):
    stand_in = CalendarStandIn(*calendar_certificate)
    yield stand_in
    stand_in.close()
