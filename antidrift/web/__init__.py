"""The web wing: the routes (one blueprint module each), the websocket hub, the views and
widgets rendered as htmx fragments, the projection of a snapshot into /state."""
