// The tables, each with its game, limits, round and its pages.
"use strict";

(() => {
  const { $, el, api, money, words } = Punto;
  async function load() {
    const result = await api("GET", "/api/tables");
    const tables = (result.ok ? result.data : []).sort((a, b) => a.name.localeCompare(b.name));
    const link = (href, text, testid, alt) => el("a", { href, text, testid, class: alt ? "alt" : null });
    $("#tables").replaceChildren(...tables.map((t) => el("article", { class: "table-card", testid: `table-${t.id}` },
      el("h3", { text: t.name }),
      el("div", { class: "sub", text: `${t.game_title}${t.layout ? ` · layout ${t.layout}` : ""}` }),
      el("div", { text: `Limits ${money(t.limits.minimum)}–${money(t.limits.maximum)} · ${t.mode === "auto" ? "automatic dealer" : "dealer console"}` }),
      el("div", { class: "sub", text: t.round ? `Round ${t.round.id}: ${words(t.round.phase)} · ${t.watchers} watching` : "No round yet" }),
      el("div", { class: "links" },
        link(`/play/${encodeURIComponent(t.id)}`, "Play", `play-${t.id}`),
        link(`/scoreboard/${encodeURIComponent(t.id)}`, "Scoreboard", `scoreboard-${t.id}`, true),
        link(`/dealer/${encodeURIComponent(t.id)}`, "Dealer", `dealer-${t.id}`, true)))));
    if (!tables.length) $("#tables").append(el("p", { text: "No tables are running." }));
  }
  Punto.loginBox($("#login"), () => {}).refresh();
  load();
  setInterval(load, 5000);
})();
