# Probes for parse 1.20.1 -> 1.20.2, taken from the project's own tests (MIT, Richard Jones and
# contributors): the two hyphen tests are verbatim from tests/test_parse.py of 1.20.2; the fixed
# obligations are verbatim from tests/test_parse.py and tests/test_pattern.py of 1.20.1.
import parse


def test_hyphen_inside_field_name():
    # https://github.com/r1chardj0n3s/parse/issues/86
    # https://github.com/python-openapi/openapi-core/issues/672
    template = "/local/sub/{user-id}/duration"
    assert parse.Parser(template).named_fields == ["user_id"]
    string = "https://dummy_server.com/local/sub/1647222638/duration"
    result = parse.search(template, string)
    assert result["user-id"] == "1647222638"


def test_hyphen_inside_field_name_collision_handling():
    template = "/foo/{user-id}/{user_id}/{user.id}/bar/"
    assert parse.Parser(template).named_fields == ["user_id", "user__id", "user___id"]
    string = "/foo/1/2/3/bar/"
    result = parse.search(template, string)
    assert result["user-id"] == "1"
    assert result["user_id"] == "2"
    assert result["user.id"] == "3"


def test_named():
    # pull a named value out of string
    r = parse.parse("hello {name}", "hello world")
    assert r.named == {"name": "world"}


def test_dot_separated_fields():
    # this should just work and provide the named value
    res = parse.parse("{hello.world}_{jojo.foo.baz}_{simple}", "a_b_c")
    assert res.named["hello.world"] == "a"
    assert res.named["jojo.foo.baz"] == "b"
    assert res.named["simple"] == "c"
