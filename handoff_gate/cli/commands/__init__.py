"""One module per command, each with ``run(args) -> int``; ``cli.main`` imports only the
one being run, so a command pays for nothing another needs."""
