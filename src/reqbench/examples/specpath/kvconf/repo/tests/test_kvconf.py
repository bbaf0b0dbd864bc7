from kvconf import parse


def test_two_lines():
    assert parse("host=example.org\nport=8080") == {"host": "example.org", "port": "8080"}
