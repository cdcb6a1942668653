"""The pages' languages: English, 简体中文 and 繁體中文.

The player's, scoreboard, tournament and lobby pages say everything through
message catalogues, kept with Babel (``pages.po`` under ``locale/``; English,
the source language, has none): ``pybabel extract -F babel.cfg`` finds every
message in the pages (:func:`extract_html` for the HTML, Babel's own
JavaScript extractor for the scripts), ``pybabel update`` merges them into the
catalogues (``scripts/i18n.sh``).  A page asks ``GET /api/i18n`` for its
catalogue when it opens: the language chosen on the page's switch
(``?locale=``, remembered by the browser) or, without one, the first of the
browser's languages (``Accept-Language``) the pages speak.  Numbers and money
are formatted in the browser by ``Intl`` for the same locale.

>>> negotiate("zh-TW,zh;q=0.9,en;q=0.8")
'zh-Hant'
>>> negotiate("fr-FR, zh-SG;q=0.7")
'zh-Hans'
>>> negotiate("de")
'en'
>>> catalogue("zh-Hans")["Banker"]
'庄'
>>> catalogue("zh-Hant")["Banker"]
'莊'
"""

from __future__ import annotations

import html.parser
from collections.abc import Collection, Iterator, Mapping
from functools import cache
from importlib import resources
from typing import IO, Any

from babel.core import UnknownLocaleError, parse_locale
from babel.messages.pofile import read_po
from fastapi import APIRouter, Request

from punto.server.routes import errors

#: The pages' languages, each by its own name (the switch shows these).
LANGUAGES: Mapping[str, str] = {"en": "English", "zh-Hans": "简体中文", "zh-Hant": "繁體中文"}
#: The language the pages are written in.
SOURCE = "en"
#: The catalogues' domain: ``locale/<locale>/LC_MESSAGES/pages.po``.
DOMAIN = "pages"
#: Chinese in traditional characters where these regions use them.
_TRADITIONAL = frozenset({"TW", "HK", "MO"})
#: An ``Accept-Language`` header longer than this is not read through.
_MAX_HEADER = 2000


def language_of(tag: str) -> str | None:
    """The pages' language for one BCP 47 tag (``zh-CN``, ``zh-Hant-HK``,
    ``en-SG``), or None when the pages do not speak it.

    >>> [language_of(t) for t in ("zh-CN", "zh-HK", "zh-Hant", "zh", "en-GB", "ms")]
    ['zh-Hans', 'zh-Hant', 'zh-Hant', 'zh-Hans', 'en', None]
    """
    try:
        parts = parse_locale(tag.strip().replace("_", "-"), sep="-")
    except (ValueError, UnknownLocaleError):
        return None
    language, territory, script = parts[0].lower(), parts[1], parts[2]
    if language == "en":
        return "en"
    if language != "zh":
        return None
    if script == "Hant" or (script is None and territory in _TRADITIONAL):
        return "zh-Hant"
    return "zh-Hans"


def negotiate(accept_language: str | None) -> str:
    """The pages' language the browser prefers most (its ``Accept-Language``,
    by quality, the first listed first among equals), English when it lists none."""
    ranked: list[tuple[float, int, str]] = []
    for n, item in enumerate((accept_language or "")[:_MAX_HEADER].split(",")):
        tag, _, params = item.partition(";")
        quality = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip() == "q":
            try:
                quality = float(value)
            except ValueError:
                continue
        if tag.strip() and tag.strip() != "*" and quality > 0:
            ranked.append((-quality, n, tag))
    for _, _, tag in sorted(ranked):
        found = language_of(tag)
        if found is not None:
            return found
    return SOURCE


def _po_name(locale: str) -> str:
    return locale.replace("-", "_")


@cache
def catalogue(locale: str) -> dict[str, str | list[str]]:
    """The translations of ``locale`` (msgid to msgstr; a list of forms for a
    message with a plural), without the untranslated and fuzzy ones -- a page
    shows those in English.  English has none: its messages are the msgids."""
    if locale == SOURCE:
        return {}
    path = resources.files("punto.server") / "locale" / _po_name(locale) / "LC_MESSAGES"
    with (path / f"{DOMAIN}.po").open("rb") as po:
        read = read_po(po, locale=_po_name(locale), domain=DOMAIN)
    messages: dict[str, str | list[str]] = {}
    for message in read:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            forms = [str(s) for s in message.string or ()]
            if all(forms):
                messages[str(message.id[0])] = forms
        elif message.string:
            messages[str(message.id)] = str(message.string)
    return messages


router = APIRouter(prefix="/api", tags=["pages"], responses=errors.RESPONSES)


@router.get("/i18n")
def messages(request: Request, locale: str | None = None) -> dict[str, Any]:
    """The pages' message catalogue: for ``locale`` (``en``, ``zh-Hans`` or
    ``zh-Hant``; a BCP 47 tag such as ``zh-TW`` is read as its language), or
    else for the browser's ``Accept-Language``.  ``languages``: each
    language the pages speak, by its own name."""
    chosen = None if locale is None else language_of(locale)
    if chosen is None:
        chosen = negotiate(request.headers.get("accept-language"))
    return {"locale": chosen, "languages": dict(LANGUAGES), "messages": catalogue(chosen)}


# -- Babel's extraction of the pages' HTML -----------------------------------------------


class _Messages(html.parser.HTMLParser):
    """The messages of a page's HTML: the text of each element marked
    ``data-i18n`` (text only inside), and the attributes named by
    ``data-i18n-attr`` (``aria-label``, ``placeholder``, ``title``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[str, int, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        line = self.getpos()[0]
        for name in (values.get("data-i18n-attr") or "").split():
            text = values.get(name)
            if text:
                self.found.append((line, text))
        if "data-i18n" in values:
            self._open.append((tag, line, []))

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, line, parts = self._open.pop()
            text = " ".join("".join(parts).split())
            if text:
                self.found.append((line, text))


def extract_html(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel's extraction method for the pages' HTML (``babel.cfg``): the
    marked texts, whitespace folded as the page's script folds it."""
    del keywords, comment_tags  # the marks are attributes, not calls
    parser = _Messages()
    parser.feed(fileobj.read().decode(options.get("encoding", "utf-8")))
    parser.close()
    for line, text in parser.found:
        yield line, None, text, []
