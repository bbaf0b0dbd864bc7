from tests.protocols.journey.conftest import calc_instance  # noqa: F401 - shared fixture
