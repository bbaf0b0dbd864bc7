"""A task's Dockerfile becomes reqbench's environment block where it can, and one sentence where not."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.protocols.harbor.dockerfile import NEEDS_ENGINE, environment_block


def test_debian_base_with_apt_and_pip_lines() -> None:
    mapping = environment_block(
        "FROM debian:bookworm-slim\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends \\\n    git curl && "
        "rm -rf /var/lib/apt/lists/*\n"
        "RUN pip install pytest==8.3.3\nRUN make -C /opt x\nWORKDIR /app\nENV MODE=strict\n")
    assert mapping.block == {"debian": {"suite": "bookworm", "packages": ["git", "curl"]},
                             "python": {"interpreter": "root", "requirements": ["pytest==8.3.3"]},
                             "setup": ["make -C /opt x"]}
    assert (mapping.workdir, mapping.env, mapping.notes) == ("/app", {"MODE": "strict"}, [])


def test_python_base_maps_to_a_venv() -> None:
    mapping = environment_block("FROM python:3.12-slim\nRUN pip install requests\nWORKDIR /work\n")
    assert mapping.block == {"python": {"interpreter": "3.12", "requirements": ["requests"]}}


def test_other_bases_and_copies_need_an_engine() -> None:
    for text in ("FROM ubuntu:24.04\nWORKDIR /app\n", "FROM debian:bookworm\nCOPY --from=build /x /app\n",
                 "FROM debian:bookworm\nCOPY ../secret /app\n", "FROM debian:bookworm\nUSER nobody\n"):
        mapping = environment_block(text)
        assert mapping.block == {"image": {"dockerfile": "environment/Dockerfile"}}
        assert len(mapping.notes) == 1 and NEEDS_ENGINE in mapping.notes[0]
    assert environment_block(None, "ghcr.io/x/y:1").block == {"image": {"docker": "ghcr.io/x/y:1"}}
    assert environment_block(None).block is None  # no environment/: the host toolchain


def test_context_copies_into_the_working_directory_seed_the_workspace() -> None:
    mapping = environment_block("FROM python:3.11-slim\nCOPY repo/ /app/\nCOPY --chown=1:1 data.txt /app/data/\n"
                                "WORKDIR /app\n")
    assert mapping.block == {"python": {"interpreter": "3.11", "requirements": []}}
    assert mapping.seeds == [("repo/", "/app/"), ("data.txt", "/app/data/")]


def test_every_mapped_block_is_a_valid_environment_spec(tmp_path: Path) -> None:
    """Once reqbench builds environments, the blocks read as its `environment:` schema."""
    model = pytest.importorskip("reqbench.core.environments.model",
                                reason="this reqbench has no environments (reqbench.core.environments)")
    (tmp_path / "environment").mkdir()
    (tmp_path / "environment" / "Dockerfile").write_text("FROM ubuntu:24.04\n")
    for text in ("FROM debian:bookworm\nRUN apt-get install -y git && pip install pytest\nRUN make x\n",
                 "FROM python:3.12-slim\nRUN pip install requests\n", "FROM python:3.12\nRUN apt-get install -y jq\n",
                 "FROM ubuntu:24.04\n"):
        block = environment_block(text).block
        model.load_environment(block, origin="test", base_dir=tmp_path)


def test_a_working_directory_below_a_folder_of_a_debian_root_is_made_by_setup() -> None:
    """``/srv/app``: ``/srv`` comes from the root read-only, so the folder must be in the root to bind the
    submission there (as WORKDIR makes it in the image); a top-level one (``/app``) needs nothing."""
    nested = environment_block("FROM debian:bookworm\nRUN make x\nWORKDIR /srv/my app\n")
    assert nested.block is not None and nested.block["setup"] == ["mkdir -p '/srv/my app'", "make x"]
    assert "setup" not in (environment_block("FROM debian:bookworm\nWORKDIR /app\n").block or {})
    assert "setup" not in (environment_block("FROM python:3.12\nWORKDIR /srv/app\n").block or {})  # no root


def test_the_tasks_own_working_directory_wins_and_is_made_too() -> None:
    mapping = environment_block("FROM debian:bookworm\nWORKDIR /app\n", workdir="/srv/work")
    assert mapping.workdir == "/srv/work" and (mapping.block or {}).get("setup") == ["mkdir -p /srv/work"]
