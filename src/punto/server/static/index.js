// The list of tables, with a link to each page.
"use strict";

(() => {
  const { $, el, api, money, words } = Punto;
  async function load() {
    const result = await api("GET", "/api/tables");
    const tables = result.ok ? result.data : [];
    $("#tables").replaceChildren(
      el("tr", {}, el("th", { text: "Table" }), el("th", { text: "Game" }), el("th", { text: "Limits" }), el("th", { text: "Round" }), el("th", { text: "Pages" })),
      ...tables.map((t) => el("tr", { testid: `table-${t.id}` },
        el("td", { text: t.name }),
        el("td", { text: `${t.game_title}${t.layout ? ` (${t.layout})` : ""}` }),
        el("td", { class: "num", text: `${money(t.limits.minimum)}–${money(t.limits.maximum)}` }),
        el("td", { text: t.round ? `${t.round.id} ${words(t.round.phase)}` : "–" }),
        el("td", {},
          el("a", { href: `/play/${encodeURIComponent(t.id)}`, testid: `play-${t.id}`, text: "play" }), " · ",
          el("a", { href: `/dealer/${encodeURIComponent(t.id)}`, testid: `dealer-${t.id}`, text: "dealer" }), " · ",
          el("a", { href: `/scoreboard/${encodeURIComponent(t.id)}`, testid: `scoreboard-${t.id}`, text: "scoreboard" }))))
    );
  }
  Punto.loginBox($("#login"), () => {}).refresh();
  load();
  setInterval(load, 5000);
})();
