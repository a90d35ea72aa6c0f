"""The command-line wing: the `antidrift` command table, the commands that talk to a running
server (remote, client, status line) and judge-eval."""
