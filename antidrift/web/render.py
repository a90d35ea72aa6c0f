"""One renderer for the page, the htmx responses and the websocket pushes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from jinja2 import Environment
from werkzeug.routing import Map, MapAdapter

from antidrift.core.minutes import duration_text
from antidrift.core.timing import clock_text
from antidrift.web.views import Listing, Shows

if TYPE_CHECKING:  # the widgets and the whole view load with the first page (issue 40)
    from antidrift.web.page_model import PageModel
    from antidrift.web.rules_view import RulesView
    from antidrift.web.widgets import CoachWidget, Widget

__all__ = ["Renderer", "clock_text", "duration_text", "local_date", "local_time"]

# What the page says after Stop coach: what happened, and the two ways on.
COACH_STOPPED = "Coach stopped: plan by hand below, or Sharpen again."


def local_time(value: datetime | None) -> str:
    return value.astimezone().strftime("%H:%M") if value else ""


def local_date(value: datetime | None) -> str:
    return value.astimezone().strftime("%a %d %b, %H:%M") if value else ""


class Renderer:
    """Turns view models into HTML; the same partial serves page, response and push. Every
    template renders here, and nothing else asks Jinja for one.

    Pure: it takes data (antidrift.web.views, widgets) and the app's URL rules, and returns
    HTML; it reads nothing else.
    """

    def __init__(self, env: Environment, urls: Map) -> None:
        self._env = env
        env.filters.update(
            clock=clock_text, duration=duration_text, hhmm=local_time, when=local_date
        )
        env.globals["url_for"] = self.url_for
        # The app's rules (those its blueprints add later included), bound to no host: every
        # URL is built relative to the root.
        self._urls: MapAdapter = urls.bind("")

    def url_for(self, endpoint: str, **values: object) -> str:
        """The templates' `url_for`: the root-relative URL of an endpoint ("/commitment",
        "/static/style.css", "/insights?before=…"; values the rule does not take go in the
        query). Built from the rules alone, with no request or app context: a push renders on
        the ticker's thread and must build the same URL as the page. A websocket rule is
        relative too (werkzeug builds it as ws://host/…; htmx's extension adds the page's
        scheme and host)."""
        url = self._urls.build(endpoint, values)
        if url.startswith(("ws:", "wss:", "http:", "https:")):
            url = urlunsplit(("", "", *urlsplit(url)[2:]))
        return url

    def template(self, name: str, /, **context: object) -> str:
        """A template of its own (a page such as week.html or insights.html), given its
        whole context."""
        return self._env.get_template(name).render(**context)

    def page(self, model: PageModel) -> str:
        return self.template("page.html", **model.context())

    def view(self, model: PageModel) -> str:
        return self.template("_view.html", **model.context())

    def widget(
        self, widget: Widget, widgets: Mapping[str, Widget] | None = None, *, focus: bool = False
    ) -> str:
        """One pushed widget (`_<name>.html`) from its object (and those inside it) alone;
        focus: its button takes the focus (Widget.focus_on_change)."""
        from antidrift.web.widgets import family

        return self.template(f"_{widget.name}.html", **family(widget, widgets or {}), focus=focus)

    def offline(self, widget: Widget, beat: str) -> str:
        """The offline notice as one connection gets it: with its beat (see _offline.html)."""
        from antidrift.web.widgets import family

        return self.template("_offline.html", beat=beat, **family(widget, {}))

    def prefill(self, coach: CoachWidget, shows: Shows) -> str:
        """The three plan inputs filled from a ready proposal, and the socket that records it."""
        return self.template("_prefill.html", coach=coach, shows=shows)

    def used(self, draft: object, name: str) -> str:
        """The answer to Use: that one plan input, holding the proposal, swapped and focused."""
        return self.template(f"_input_{name}.html", draft=draft, oob=True, focus=name)

    def plan_errors(
        self, message: str, invalid: tuple[str, ...], values: Mapping[str, object]
    ) -> str:
        """A refused plan: the message, and the three inputs as typed, marked where at fault."""
        fields = ("next_action", "success_condition", "timebox_minutes")
        typed = {k: v if isinstance(v := values.get(k), str) else "" for k in fields}
        return self.template("_plan_errors.html", message=message, invalid=invalid, values=typed)

    def active_heading(self, commitment: object, message: str = "") -> str:
        """An answer from the active card that moves focus to its heading (out of band),
        after a confirmation for the slot the request targets."""
        said = self.confirm(message) if message else ""
        return said + self.template("_active_title.html", commitment=commitment, oob=True)

    def next_action_saved(self, commitment: object) -> str:
        """A Save of the next action: the heading, focused, its editor closed (out of band);
        the push brings every page (this one too) the whole view anew."""
        editor = self.template("_edit_next.html", commitment=commitment, oob=True)
        return editor + self.template("_active_next.html", commitment=commitment, oob=True)

    def next_action_field(self, next_action: str) -> str:
        """The editor's field as the editor opens: the next action as it stands, focused, and
        no refusal left from before (out of band)."""
        field = self.template("_input_edit_next.html", value=next_action, opened=True)
        return field + self.template("_edit_next_message.html", oob=True)

    def next_action_refused(self, message: str, typed: str) -> str:
        """A refused new next action: the sentence beside the field, the field as typed,
        marked aria-invalid and focused."""
        field = self.template("_input_edit_next.html", value=typed, bad=True, oob=True)
        return self.template("_message.html", message=message) + field

    def confirm(self, message: str) -> str:
        """A sentence that something was done, for a message slot (not in error red)."""
        return self.template("_message.html", message=message, ok=True)

    def sharpen(self) -> str:
        """The answer to Stop coach: what happened and what is left to do, in the intent's
        message slot, and the Sharpen button out of band, focused."""
        return self.confirm(COACH_STOPPED) + self.template("_sharpen.html", oob=True)

    def chime(self) -> str:
        """The chime, pushed once to a page that saw its timebox run out."""
        return self.template("_chime.html", chime=True)

    def error(self, message: str) -> str:
        return self.template("_message.html", message=message)

    def rules(self, view: RulesView) -> str:
        """The standing rules partial (id="rules"): the list, a message, the form."""
        return self.template("_rules.html", **view.context())

    def rules_page(self, view: RulesView) -> str:
        """The standing rules on a page of their own (GET /rules from a browser)."""
        return self.template("rules.html", **view.context())

    def tasks(self, listing: Listing) -> str:
        """The planning view's list of open tasks (loaded after the view, never pushed)."""
        return self.template("_tasks.html", listing=listing)

    def intent(self, draft: object, limit: int) -> str:
        """The rough-intent box holding a picked task's title, and its count of `limit`
        characters (out of band)."""
        value = getattr(draft, "intent", "")
        count = self.template("_count.html", name="intent", limit=limit, value=value, oob=True)
        return self.template("_input_intent.html", draft=draft, oob=True) + count

    def count(self, value: str, limit: int) -> str:
        """A text field's character count (the inner text of its count-<name>)."""
        return self.template("_count_text.html", limit=limit, value=value)

    def writeback_result(self, said: str, recorded: object, offer: object) -> str:
        """The line that says what a write-back recorded, and its buttons, out of band, giving
        way to "Recorded" (focused: the button pressed is gone)."""
        return self.template("_writeback_result.html", message=said, c=recorded, offer=offer)
