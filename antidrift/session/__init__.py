"""The session wing: the controller and what it orchestrates (coaching, reflecting, drafts,
interruptions, corrections), what the web layer is shown (snapshot, read model) and the
once-a-second ticker."""
