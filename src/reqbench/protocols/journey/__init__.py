"""journey (SWE-Journey): long-horizon tasks of ordered subtasks with F2P/P2P tests, served to a persona-
conditioned simulated user who discloses requirements gradually; online testing per turn; Proc/Final F2P,
Final P2P and interaction-capability metrics. Entry: `suite.PROTOCOL`; instance format in `models`."""
