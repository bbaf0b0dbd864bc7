"""Harbor tasks (the format behind Terminal-Bench) as a reqbench protocol: `taskfile` (task.toml),
`rewards` (reward files, min_reward, multi-step strategy), `dockerfile` (environment mapping),
`verifier` (test.sh through core's check runner), `solution` (solve.sh as the reference patch),
`agentenv` (the Dockerfile's ENV in the agent's steps),
`importer` (Harbor folders -> a suite), `suite` (plan, run, summarise)."""
