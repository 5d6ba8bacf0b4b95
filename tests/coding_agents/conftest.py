"""Fixtures for the real coding agents: the agent (each test runs once per agent) and a
:class:`~agent_runs.Session` of the test's own folders, HOME prepared.

The agents come from the pinned npm install; where it is missing the tests fail with the
``make`` target that installs it: they never skip, so a green run always drove the
real clients."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_runs import AGENTS, Agent, Session, gate_path_free


@pytest.fixture(params=sorted(AGENTS))
def agent(request: pytest.FixtureRequest) -> Agent:
    chosen: Agent = AGENTS[request.param]
    chosen.executable()
    return chosen


@pytest.fixture
def session(tmp_path: Path, agent: Agent) -> Session:
    gate_path_free()
    made = Session(tmp_path, agent)
    made.project.mkdir()
    agent.prepare_home(made)
    return made
