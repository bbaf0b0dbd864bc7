from slugkit import slugify


def test_runs_collapse_to_one_hyphen():
    assert slugify("Hello,   World & Friends") == "hello-world-friends"


def test_no_hyphen_at_either_end():
    assert slugify("?Release notes.") == "release-notes"


def test_digits_are_kept():
    assert slugify("Top 10 tips for 2026") == "top-10-tips-for-2026"


def test_output_is_lowercase():
    assert slugify("ABC") == "abc"
