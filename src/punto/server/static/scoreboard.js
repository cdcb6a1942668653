// The big screen: the coup in play and the roads of the shoe.
"use strict";

(() => {
  const { $, money, words } = Punto;
  const table = Punto.tableId();
  let state = null;
  Punto.countdown($("#countdown"), () => state && state.round && state.round.phase === "betting" ? state.round.deadline : null);
  Punto.connect(table, (m) => {
    if (m.type === "scoreboard") Punto.renderRoads($("#roads"), m.scoreboard);
    if (m.type !== "state") return;
    state = m;
    const t = m.table;
    const round = m.round;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup(Punto.sideNames(t.game)));
    $("#table-name").textContent = t.name;
    $("#table-info").textContent = `${t.game_title} · limits ${money(t.limits.minimum)}–${money(t.limits.maximum)}`;
    $("#phase").textContent = round ? words(round.phase) : "";
    Punto.renderHands($("#hands"), round);
    $("#result").textContent = round && round.result ? Punto.resultText(round.result, t.game) : "";
  });
})();
