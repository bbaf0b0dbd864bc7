from pathlib import Path

from reqbench.core.hashing import (
    atomic_write_text,
    canonical_json,
    crlf_sha256,
    pretty_json,
    sha256_json,
    sha256_text,
)


def test_canonical_json_sorts_keys_and_keeps_unicode() -> None:
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_sha256_json_is_order_independent() -> None:
    assert sha256_json({"x": 1, "y": [1, 2]}) == sha256_json({"y": [1, 2], "x": 1})


def test_crlf_hash_equals_hash_of_crlf_text() -> None:
    assert crlf_sha256("a\nb\n") == sha256_text("a\r\nb\r\n")


def test_pretty_json_form() -> None:
    assert pretty_json({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}\n'


def test_atomic_write_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "d" / "f.json"
    atomic_write_text(target, "x")
    assert target.read_text() == "x"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]
