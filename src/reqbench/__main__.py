"""``python -m reqbench``: the same command as ``reqbench``."""

from reqbench.cli.main import main

if __name__ == "__main__":
    main()
