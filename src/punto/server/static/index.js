// The tables, each with its game, limits, round and its pages.
"use strict";

Punto.ready.then(() => {
  const { $, el, api, money, t } = Punto;
  async function load() {
    const result = await api("GET", "/api/tables");
    const tables = (result.ok ? result.data : []).sort((a, b) => a.name.localeCompare(b.name));
    const link = (href, text, testid, alt) => el("a", { href, text, testid, class: alt ? "alt" : null });
    // each message its own call: Babel's extractor does not see one nested in another's arguments
    const mode = (x) => (x.mode === "auto" ? t("automatic dealer") : t("dealer console"));
    const watching = (x) => t("{n} watching", { n: Punto.count(x.watchers) });
    $("#tables").replaceChildren(...tables.map((x) => el("article", { class: "table-card", testid: `table-${x.id}` },
      el("h3", { text: x.name }),
      el("div", { class: "sub", text: x.layout ? t("{game} · layout {layout}", { game: t(x.game_title), layout: x.layout }) : t(x.game_title) }),
      el("div", { text: t("Limits {minimum}–{maximum} · {mode}", { minimum: money(x.limits.minimum), maximum: money(x.limits.maximum), mode: mode(x) }) }),
      el("div", { class: "sub", text: x.round ? t("Round {round}: {phase} · {watching}", { round: x.round.id, phase: Punto.phaseText(x.round), watching: watching(x) }) : t("No round yet") }),
      el("div", { class: "links" },
        link(`/play/${encodeURIComponent(x.id)}`, t("Play"), `play-${x.id}`),
        link(`/scoreboard/${encodeURIComponent(x.id)}`, t("Scoreboard"), `scoreboard-${x.id}`, true),
        link(`/dealer/${encodeURIComponent(x.id)}`, t("Dealer"), `dealer-${x.id}`, true)))));
    if (!tables.length) $("#tables").append(el("p", { text: t("No tables are running.") }));
  }
  Punto.loginBox($("#login"), () => {}).refresh();
  load();
  setInterval(load, 5000);
});
