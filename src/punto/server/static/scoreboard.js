// The big screen beside the table: large roads, the coup in play, the last
// results and the shoe's statistics, live over the table's WebSocket.
"use strict";

Punto.ready.then(() => {
  const { $, el, money, t, count } = Punto;
  const tableId = Punto.tableId();
  let state = null;
  let board = null;

  function pct(n, of) {
    return of ? new Intl.NumberFormat(Punto.locale(), { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(n / of) : "";
  }

  function renderBoard() {
    if (!board) return;
    const root = $("#roads");
    const width = root.clientWidth || 1000;
    const wide = width > 760;
    const three = width >= 560;
    Punto.renderRoads(root, board, {
      wide, three,
      bead: Math.max(6, Math.floor((wide ? width / 3 : width) / (wide ? 44 : 24))),
      big: Math.max(12, Math.floor((wide ? (width * 2) / 3 : width) / (wide ? 44 : 24))),
      derived: Math.max(6, Math.floor((three ? width / 3 : width) / (wide ? 26 : 14))),
    });
    const s = board.stats || {};
    const decided = (s.banker || 0) + (s.player || 0) + (s.tie || 0);
    for (const side of ["banker", "player", "tie"]) {
      $(`#n-${side}`).textContent = count(s[side] || 0);
      $(`#p-${side}`).textContent = pct(s[side] || 0, decided);
    }
    $("#n-coups").textContent = count(s.coups || 0);
    $("#n-ppairs").textContent = count(s.player_pairs || 0);
    $("#n-bpairs").textContent = count(s.banker_pairs || 0);
    $("#n-naturals").textContent = count(s.naturals || 0);
    const letter = { banker: t("B"), player: t("P"), tie: t("T") };
    const last = (board.results || []).slice(-16).reverse();
    $("#last-results").replaceChildren(...last.map((r) =>
      el("li", { class: r.winner, testid: "last-result", title: Punto.resultText(r), dataset: { winner: r.winner } },
        el("span", { text: letter[r.winner] }),
        r.player_total === null || r.player_total === undefined ? "" : el("span", { class: "s", text: `${r.player_total}-${r.banker_total}` }))));
    if (!last.length) $("#last-results").append(el("li", { class: "empty", text: t("A new shoe: no coups yet.") }));
  }

  function render() {
    if (!state) return;
    const round = state.round;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup());
    const table = state.table;
    document.title = `punto · ${table.name} · ${t("Scoreboard")}`;
    $("#table-name").textContent = table.name;
    $("#table-info").textContent = table.layout ? t("{game} · layout {layout}", { game: t(table.game_title), layout: table.layout }) : t(table.game_title);
    $("#limit-min").textContent = money(table.limits.minimum);
    $("#limit-max").textContent = money(table.limits.maximum);
    const phase = $("#phase");
    phase.textContent = round && round.phase === "dealing" && !round.cards.length ? t("No more bets") : Punto.phaseText(round);
    phase.dataset.phase = round ? round.phase : "";
    $("#round-id").textContent = round ? round.id : "–";
    $("#cards-left").textContent = count(state.shoe.cards_left);
    $("#shoe-id").textContent = state.shoe.id || "–";
    Punto.renderHands($("#hands"), round);
    const banner = $("#result");
    banner.className = "result-banner";
    banner.textContent = round && round.result ? Punto.resultText(round.result) : round && round.void ? t("Round void") : "";
    if (round && round.result) banner.classList.add(round.result.winner);
  }

  Punto.countdown($("#countdown"), () => (state && state.round && state.round.phase === "betting" ? state.round.deadline : null), () => state && state.table.betting_seconds, $("#timer-bar"));
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderBoard, 150);
  });
  Punto.connect(tableId, (m) => {
    if (m.type === "scoreboard") {
      board = m.scoreboard;
      renderBoard();
    } else if (m.type === "state") {
      state = m;
      render();
    } else if (m.type === "card" && Punto.applyCard(state, m)) {
      render();
    }
  }, (up, reason, code) => {
    if (!up && code === 4404) {
      $("#phase").textContent = Punto.noSuchTable(tableId);
      $("#phase").dataset.phase = "gone";
    }
  });
});
