"""The command-line wing: the commands that talk to a running server (remote, client, status
line) and judge-eval. The `antidrift` command table that names them is
antidrift/server/commands.py."""
