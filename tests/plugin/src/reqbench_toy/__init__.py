"""reqbench-toy: a third-party package that extends reqbench only by being installed (entry points for a
protocol, an agent, a judge, a file schema and a command group; see its pyproject.toml)."""
