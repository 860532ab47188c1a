"""Every response conforms to /openapi.json: schemathesis, bounded, in the suite."""

from __future__ import annotations

import pytest
import schemathesis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings


# A body past the size cap is refused before it is read (413 body_too_large): as
# rightful a refusal of invalid data as a 400, so the negative check accepts it too.
REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428",
            "429"]
CONFIG = schemathesis.config.SchemathesisConfig.from_dict(
    {"checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}}})


@pytest.fixture
def api_schema(client: FlaskClient) -> schemathesis.schemas.BaseSchema:
    return schemathesis.openapi.from_wsgi("/openapi.json", client.application, config=CONFIG)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_every_response_matches_the_spec(case: schemathesis.Case) -> None:
    # Cursors and game ids are opaque: a schema-valid random one is rightly refused
    # (400 / 404), so "schema-valid data is accepted" does not hold for this API.
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
