"""The store wing: SQLite behind the persistence port (sqlite, drift tables), opening and
checking a file, migrations, write errors, the data lock and backups."""
