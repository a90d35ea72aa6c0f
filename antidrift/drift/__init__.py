"""The drift wing: the pure policy, verdicts and standing rules, the window key, the guard
that runs the policy for the controller, and the teeth (when, and the hands that put a
window away)."""
