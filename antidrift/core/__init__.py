"""The core wing: the loop's pure rules (domain), time (clock, timing), the history's figures
(insights), the persistence port, the one error base and the loopback test. It imports no
other wing."""
