"""The llm judge and the synthesis passes against a real OpenAI-compatible server on 127.0.0.1."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.score import Scorer
from reqbench.protocols.pace.synthesize import synthesize
from tests.protocols.pace.conftest import BILLFLOW


class _Server:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.answer = lambda body: "{}"
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                content = outer.answer(body)
                data = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Server]:
    s = _Server()
    monkeypatch.setenv("REQBENCH_BASE_URL", s.url)
    monkeypatch.setenv("REQBENCH_API_KEY", "test")
    monkeypatch.delenv("REQBENCH_LLM_CACHE", raising=False)
    yield s
    s.httpd.shutdown()


def test_llm_judge_sees_criteria_and_evidence_but_never_weights_or_reference(server: _Server) -> None:
    case = load_case(BILLFLOW)

    def answer(body: dict) -> str:
        user = body["messages"][1]["content"]
        data = json.loads(user.split("DATA\n", 1)[1].split("\n\ncandidate_evidence:", 1)[0])
        return json.dumps(
            {
                "evidence_checklist": [
                    {
                        "criterion_id": c["criterion_id"],
                        "severity": c["severity"],
                        "judgment": "covered",
                        "evidence": "cited",
                    }
                    for c in data["frozen_criteria"]
                ]
            }
        )

    server.answer = answer
    result = Scorer(case).score(case.reference_patch, "llm:test-model")
    assert result.score == 100.0 and result.judge_id == "llm:test-model"
    prompt = json.dumps(server.requests)
    assert '"weight"' not in prompt and "reference.patch" not in prompt
    assert all(r["temperature"] == 0.0 for r in server.requests)


def test_synthesis_runs_three_passes_and_marks_output_unreviewed(server: _Server, tmp_path: Path) -> None:
    answers = iter(
        [
            json.dumps({"functional_points": [{"description": "credit notes", "priority": "high"}]}),
            json.dumps({"change_points": [{"target_file": "billflow/models.py", "change_type": "modified"}]}),
            json.dumps(
                {
                    "code_points": [
                        {
                            "id": "CP01",
                            "description": "d",
                            "provenance": "explicit",
                            "weight": 1,
                            "criteria": [{"criterion_id": "CP01.c1", "text": "t"}],
                        }
                    ]
                }
            ),
        ]
    )
    server.answer = lambda body: next(answers)
    case = load_case(BILLFLOW)
    out = synthesize(case.prd, case.reference_patch, tmp_path / "cand.yaml", model="m")
    doc = yaml.safe_load(out.read_text())
    assert doc["reviewed"] is False and doc["code_points"][0]["id"] == "CP01"
    assert len(server.requests) == 3
    assert "diff --git" not in server.requests[0]["messages"][1]["content"]  # PRD pass sees no code
    assert "Goal" not in server.requests[1]["messages"][1]["content"]  # diff pass sees no PRD
