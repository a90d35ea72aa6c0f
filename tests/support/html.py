"""A tiny HTML tree (stdlib html.parser) so tests check structure, not substrings."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"]
    + ["track", "wbr"]
)


@dataclass(eq=False)
class Node:
    """An element: tag, attributes, children (nodes and text)."""

    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    @property
    def id(self) -> str | None:
        return self.attrs.get("id")

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attrs.get(name, default)

    def value(self) -> str | None:
        """A form field's value: a textarea's text, an input's value attribute."""
        if self.tag == "textarea":
            return "".join(c if isinstance(c, str) else c.text() for c in self.children)
        return self.get("value")

    def fields(self) -> list[Node]:
        """Every input and textarea below (and including) this element."""
        return [n for n in self.iter() if n.tag in ("input", "textarea")]

    @property
    def elements(self) -> list[Node]:
        return [c for c in self.children if isinstance(c, Node)]

    def iter(self) -> Iterator[Node]:
        """This node and every element below it, in document order."""
        yield self
        for child in self.elements:
            yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        found = []
        for node in self.iter():
            if node is self and self.tag == "#root":
                continue
            if tag is not None and node.tag != tag:
                continue
            if all(node.attrs.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items()):
                found.append(node)
        return found

    def by_id(self, ident: str) -> Node | None:
        return next((n for n in self.iter() if n.attrs.get("id") == ident), None)

    def ids(self) -> set[str]:
        return {n.id for n in self.iter() if n.id}

    def text(self) -> str:
        parts: list[str] = []
        for child in self.children:
            parts.append(child if isinstance(child, str) else child.text())
        return " ".join("".join(parts).split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag):
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    """The document (or fragment) as a tree under a "#root" node."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def top_level(html: str) -> list[Node]:
    """The top-level elements of a message: what htmx's ws extension swaps by id."""
    return parse(html).elements


def top_ids(html: str) -> list[str | None]:
    return [n.id for n in top_level(html)]
