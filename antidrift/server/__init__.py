"""The server wing: the composition root (bootstrap), the Flask app around a runtime,
`antidrift serve` and doctor, the gunicorn worker and the login service."""
