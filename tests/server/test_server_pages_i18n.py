"""The pages' languages (:mod:`punto.server.routes.i18n`) and the tournaments' pages.

The catalogues are held to the pages: every message Babel extracts from the
pages' scripts and HTML is translated in 简体中文 and 繁體中文, with the same
placeholders; the names the server sends (games, wagers, tournament formats
and sessions) are marked for them; each script's own words for the Chinese
terms.  ``/tournaments`` is a page, the tournaments' list stays JSON at
``/api/tournaments``; a settled hand comes with its coup by side."""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from fastapi.testclient import TestClient

from punto.rules.games import all_games
from punto.server.routes import i18n
from punto.server.routes.pages import STATIC
from punto.tournament.formats import all_formats
from tests.server.test_server_support import PIT, login, make_app

ROOT = Path(__file__).resolve().parents[2]
CHINESE = ("zh-Hans", "zh-Hant")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def extracted() -> set[str]:
    """Every message of the pages, as ``scripts/i18n.sh`` extracts them."""
    method_map = [("**.js", "javascript"), ("**.html", "punto_html")]
    options = {"**.js": {"template_string": "true"}}
    keywords = {"t": None, "tn": (1, 2), "N_": None}
    found: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(STATIC), method_map, options, keywords=keywords
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def test_every_message_of_the_pages_is_translated_with_its_placeholders() -> None:
    messages = extracted()
    assert {"Banker", "Big eye boy", "Tournaments", "Balance", "{n} coup"} <= messages
    for locale in CHINESE:
        catalogue = i18n.catalogue(locale)
        missing = sorted(messages - catalogue.keys())
        assert missing == [], f"{locale}: untranslated {missing} (scripts/i18n.sh)"
        for msgid in messages:
            forms = catalogue[msgid]
            for text in forms if isinstance(forms, list) else [forms]:
                assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(msgid)), (
                    locale,
                    msgid,
                    text,
                )


def test_babel_extracts_every_message_the_scripts_say() -> None:
    """Each ``t("…")``, ``tn("…", …)`` and ``N_("…")`` of the scripts reaches the
    catalogues: Babel's extractor skips a call nested in another's arguments or
    in a template literal's placeholder, which the scripts therefore avoid."""
    said = {
        match.group(1)
        for script in STATIC.glob("*.js")
        for match in re.finditer(
            r'\b(?:t|tn|N_)\(\s*"((?:[^"\\]|\\.)*)"', script.read_text("utf-8")
        )
    }
    assert sorted(said - extracted()) == []


def test_the_catalogues_hold_no_message_the_pages_lost() -> None:
    messages = extracted()
    for locale in CHINESE:
        stale = sorted(i18n.catalogue(locale).keys() - messages)
        assert stale == [], f"{locale}: messages no page says {stale} (scripts/i18n.sh)"


def test_the_names_the_server_sends_are_marked_for_the_catalogues() -> None:
    marked = set(re.findall(r'N_\("([^"]+)"\)', (STATIC / "common.js").read_text("utf-8")))
    names = {game.title for game in all_games()}
    names |= {w.name for game in all_games() for w in game.wagers.values()}
    names |= {f.title for f in all_formats()} | {s.name for f in all_formats() for s in f.sessions}
    assert sorted(names - marked) == []


@pytest.mark.parametrize(
    ("english", "simplified", "traditional"),
    [
        ("Banker", "庄", "莊"),
        ("Player", "闲", "閒"),
        ("Tie", "和", "和"),
        ("Player Pair", "闲对", "閒對"),
        ("Banker Pair", "庄对", "莊對"),
        ("Bead plate", "珠盘路", "珠盤路"),
        ("Big road", "大路", "大路"),
        ("Big eye boy", "大眼仔", "大眼仔"),
        ("Small road", "小路", "小路"),
        ("Cockroach pig", "曱甴路", "曱甴路"),
        ("B", "庄", "莊"),
        ("P", "闲", "閒"),
        ("T", "和", "和"),
    ],
)
def test_the_games_own_chinese_words(english: str, simplified: str, traditional: str) -> None:
    assert i18n.catalogue("zh-Hans")[english] == simplified
    assert i18n.catalogue("zh-Hant")[english] == traditional


def test_each_catalogue_keeps_to_its_script() -> None:
    """Simplified characters never in 繁體中文, nor traditional ones in 简体中文."""
    for locale, foreign in (("zh-Hant", "庄闲对盘赢输筹码"), ("zh-Hans", "莊閒對盤贏輸籌碼")):
        for msgid, forms in i18n.catalogue(locale).items():
            for text in forms if isinstance(forms, list) else [forms]:
                assert not set(text) & set(foreign), (locale, msgid, text)


@pytest.mark.parametrize(
    ("header", "locale"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh-Hans"),
        ("zh-SG", "zh-Hans"),
        ("zh-TW,zh;q=0.9", "zh-Hant"),
        ("zh-HK", "zh-Hant"),
        ("en-SG,zh-CN;q=0.5", "en"),
        ("ms-MY, zh-Hant;q=0.4", "zh-Hant"),
        ("fr;q=1, en;q=0", "en"),
        ("", "en"),
        ("zh-TW;q=0.1, zh-CN;q=0.9", "zh-Hans"),
        ("x" * 5000, "en"),
    ],
)
def test_the_browsers_language_chooses(header: str, locale: str) -> None:
    assert i18n.negotiate(header) == locale


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = f"sqlite:///{tmp_path_factory.mktemp('pages') / 'punto.db'}"
    with TestClient(make_app(database, demo_tournament=True)) as running:
        yield running


def test_the_catalogue_by_the_browsers_language_or_the_switch(client: TestClient) -> None:
    taiwan = client.get("/api/i18n", headers={"Accept-Language": "zh-TW,zh;q=0.9"}).json()
    assert taiwan["locale"] == "zh-Hant"
    assert taiwan["messages"]["Banker"] == "莊"
    assert taiwan["languages"] == {"en": "English", "zh-Hans": "简体中文", "zh-Hant": "繁體中文"}
    chosen = client.get(
        "/api/i18n", params={"locale": "zh-Hans"}, headers={"Accept-Language": "zh-TW"}
    ).json()
    assert chosen["locale"] == "zh-Hans"
    assert chosen["messages"]["Banker"] == "庄"
    english = client.get("/api/i18n", headers={"Accept-Language": "de-DE"}).json()
    assert english == {**english, "locale": "en", "messages": {}}
    unknown = client.get("/api/i18n", params={"locale": "klingon"}).json()
    assert unknown["locale"] == "en"


def test_the_tournaments_page_and_the_api_beside_it(client: TestClient) -> None:
    page = client.get("/tournaments")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'data-page="tournaments"' in page.text
    for path in ("/tournaments/demo-turbo/board", "/pit/tournaments", "/tournaments/demo-turbo"):
        assert client.get(path).headers["content-type"].startswith("text/html"), path
    listed = client.get("/api/tournaments").json()
    assert [x["id"] for x in listed] == ["demo-turbo"]
    demo = listed[0]
    assert demo["stage"] == "registration"
    assert demo["live"] is True
    assert (demo["entry_fee"], demo["prize_pool"], demo["currency"]) == ("50.00", "850.00", "SGD")
    assert (demo["entrants"], demo["seats"], demo["min_entrants"]) == (4, 36, 4)
    formats = client.get("/api/tournament-formats").json()
    assert {f["id"] for f in formats} == {f.id for f in all_formats()}


def test_a_settled_hand_comes_with_its_coup_by_side(client: TestClient) -> None:
    pit = login(client, PIT)
    client.post("/api/tournaments", headers=pit, json={"id": "coups", "format": "turbo", "seed": 3})
    for n in range(4):
        body = {"name": f"Bot {n}", "strategy": "flat"}
        assert client.post("/api/tournaments/coups/register", headers=pit, json=body).is_success
    assert client.post("/api/tournaments/coups/start", headers=pit).is_success
    for _ in range(20):
        table = client.get("/api/tournaments/coups").json()["tables"][0]
        if table["last_hand"] is not None:
            break
        client.post("/api/tournaments/coups/advance", headers=pit, json={"steps": 1})
    hand = table["last_hand"]
    assert hand["type"] == "hand_settled"
    coup = hand["coup"]
    # the same cards as the shoe order, each to its side as the Table of Play deals them
    assert sorted(coup["player"]["cards"] + coup["banker"]["cards"]) == sorted(
        hand["cards"].split()
    )
    assert coup["player"]["cards"][:2] == hand["cards"].split()[0:4:2]
    assert coup["banker"]["cards"][:2] == hand["cards"].split()[1:4:2]
    totals = (coup["player"]["total"], coup["banker"]["total"])
    winner = "tie" if totals[0] == totals[1] else "player" if totals[0] > totals[1] else "banker"
    assert hand["winner"] == winner


def test_the_catalogues_ship_with_the_package() -> None:
    for locale in ("zh_Hans", "zh_Hant"):
        po = resources.files("punto.server") / "locale" / locale / "LC_MESSAGES" / "pages.po"
        assert po.is_file()
    assert "punto_html" in (ROOT / "babel.cfg").read_text("utf-8")
