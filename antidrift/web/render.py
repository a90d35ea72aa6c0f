"""One renderer for the page, the htmx responses and the websocket pushes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from jinja2 import Environment

from antidrift.web.views import Listing, PageModel, RulesView, Shows
from antidrift.web.widgets import CoachWidget, Widget, clock_text, family

__all__ = ["Renderer", "clock_text", "duration_text", "local_date", "local_time"]


def duration_text(seconds: float) -> str:
    if 0 < seconds < 0.5:
        return "<1 s"  # not "0 s" beside a non-zero share
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def local_time(value: datetime | None) -> str:
    return value.astimezone().strftime("%H:%M") if value else ""


def local_date(value: datetime | None) -> str:
    return value.astimezone().strftime("%a %d %b, %H:%M") if value else ""


class Renderer:
    """Turns view models into HTML; the same partial serves page, response and push.

    Pure: it takes data (antidrift.web.views, widgets) and returns HTML; it reads nothing else.
    """

    def __init__(self, env: Environment) -> None:
        self.env = env
        env.filters.update(
            clock=clock_text, duration=duration_text, hhmm=local_time, when=local_date
        )

    def _render(self, template: str, **context: object) -> str:
        return self.env.get_template(template).render(**context)

    def page(self, model: PageModel) -> str:
        return self._render("page.html", **model.context())

    def view(self, model: PageModel) -> str:
        return self._render("_view.html", **model.context())

    def widget(
        self, widget: Widget, widgets: Mapping[str, Widget] | None = None, *, focus: bool = False
    ) -> str:
        """One pushed widget (`_<name>.html`) from its object (and those inside it) alone;
        focus: its button takes the focus (Widget.focus_on_change)."""
        return self._render(f"_{widget.name}.html", **family(widget, widgets or {}), focus=focus)

    def offline(self, widget: Widget, beat: str) -> str:
        """The offline notice as one connection gets it: with its beat (see _offline.html)."""
        return self._render("_offline.html", beat=beat, **family(widget, {}))

    def prefill(self, coach: CoachWidget, shows: Shows) -> str:
        """The three plan inputs filled from a ready proposal, and the socket that records it."""
        return self._render("_prefill.html", coach=coach, shows=shows)

    def used(self, draft: object, name: str) -> str:
        """The answer to Use: that one plan input, holding the proposal, swapped and focused."""
        return self._render(f"_input_{name}.html", draft=draft, oob=True, focus=name)

    def plan_errors(
        self, message: str, invalid: tuple[str, ...], values: Mapping[str, object]
    ) -> str:
        """A refused plan: the message, and the three inputs as typed, marked where at fault."""
        fields = ("next_action", "success_condition", "timebox_minutes")
        typed = {k: v if isinstance(v := values.get(k), str) else "" for k in fields}
        return self._render("_plan_errors.html", message=message, invalid=invalid, values=typed)

    def active_heading(self, commitment: object, message: str = "") -> str:
        """An answer from the active card that moves focus to its heading (out of band),
        after a confirmation for the slot the request targets."""
        said = self.confirm(message) if message else ""
        return said + self._render("_active_title.html", commitment=commitment, oob=True)

    def next_action_saved(self, commitment: object) -> str:
        """A Save of the next action: the heading, focused, its editor closed (out of band);
        the push brings every page (this one too) the whole view anew."""
        editor = self._render("_edit_next.html", commitment=commitment, oob=True)
        return editor + self._render("_active_next.html", commitment=commitment, oob=True)

    def next_action_field(self, next_action: str) -> str:
        """The editor's field as the editor opens: the next action as it stands, focused, and
        no refusal left from before (out of band)."""
        field = self._render("_input_edit_next.html", value=next_action, opened=True)
        return field + self._render("_edit_next_message.html", oob=True)

    def next_action_refused(self, message: str, typed: str) -> str:
        """A refused new next action: the sentence beside the field, the field as typed,
        marked aria-invalid and focused."""
        field = self._render("_input_edit_next.html", value=typed, bad=True, oob=True)
        return self._render("_message.html", message=message) + field

    def confirm(self, message: str) -> str:
        """A sentence that something was done, for a message slot (not in error red)."""
        return self._render("_message.html", message=message, ok=True)

    def sharpen(self) -> str:
        """The answer to Stop coach: the Sharpen button out of band, focused."""
        return self._render("_sharpen.html", oob=True)

    def chime(self) -> str:
        """The chime, pushed once to a page that saw its timebox run out."""
        return self._render("_chime.html", chime=True)

    def error(self, message: str) -> str:
        return self._render("_message.html", message=message)

    def rules(self, view: RulesView) -> str:
        """The standing rules partial (id="rules"): the list, a message, the form."""
        return self._render("_rules.html", **view.context())

    def rules_page(self, view: RulesView) -> str:
        """The standing rules on a page of their own (GET /rules from a browser)."""
        return self._render("rules.html", **view.context())

    def tasks(self, listing: Listing) -> str:
        """The planning view's list of open tasks (loaded after the view, never pushed)."""
        return self._render("_tasks.html", listing=listing)

    def intent(self, draft: object, limit: int) -> str:
        """The rough-intent box holding a picked task's title, and its count of `limit`
        characters (out of band)."""
        value = getattr(draft, "intent", "")
        count = self._render("_count.html", name="intent", limit=limit, value=value, oob=True)
        return self._render("_input_intent.html", draft=draft, oob=True) + count

    def count(self, value: str, limit: int) -> str:
        """A text field's character count (the inner text of its count-<name>)."""
        return self._render("_count_text.html", limit=limit, value=value)

    def writeback_result(self, said: str, recorded: object, offer: object) -> str:
        """The line that says what a write-back recorded, and its buttons, out of band, giving
        way to "Recorded" (focused: the button pressed is gone)."""
        return self._render("_writeback_result.html", message=said, c=recorded, offer=offer)
