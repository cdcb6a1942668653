// The big screen of a tournament: the leaderboard overall, and each table's
// last hand on a small felt (cards by side, totals, the result) with the hand
// being played and the table's standings -- live over the tournament's socket.
"use strict";

Punto.ready.then(() => {
  const { $, el, t, count } = Punto;
  const id = Punto.tableId();
  const lastHands = {}; // table -> the last hand settled there
  let board = null;

  function status(row) {
    if (row.status === "finished") return t("place {place}", { place: row.place });
    if (row.status === "advanced") return t("advances");
    if (row.status === "eliminated") return t("out");
    if (row.status === "out_of_chips") return t("out of chips");
    if (row.status === "cancelled") return t("cancelled");
    if (row.advancing) return t("advancing");
    return "";
  }

  // a settled hand as a round for Punto.renderHands
  function asRound(event) {
    if (!event || !event.coup) return null;
    const cards = [];
    for (const side of ["player", "banker"]) for (const card of event.coup[side].cards) cards.push({ card, hand: side });
    return {
      phase: "settled", cards, player: event.coup.player, banker: event.coup.banker,
      result: { winner: event.winner, player_total: event.coup.player.total, banker_total: event.coup.banker.total, natural: event.coup.natural },
    };
  }

  function render() {
    if (!board) return;
    const title = board.title ? t(board.title) : id;
    $("#b-title").textContent = title;
    document.title = `punto · ${title} · ${t("Leaderboard")}`;
    $("#b-info").textContent = `${board.tournament} · ${Punto.stageName(board.stage)}`;
    const s = board.session;
    $("#b-session").textContent = s ? t("{name} (session {number})", { name: t(s.name), number: s.number }) : t("Registration is open");
    $("#b-rows").replaceChildren(...(board.overall || []).map((row) => el("tr", { testid: "b-row", class: row.advancing ? "t-advancing" : null, dataset: { entrant: row.entrant } },
      el("td", { class: "num", text: count(row.rank) }),
      el("td", { text: row.name }),
      el("td", { class: "num", text: row.table ? count(row.table) : "–" }),
      el("td", { class: "num", testid: "b-chips", text: count(row.chips) }),
      el("td", { class: "num", text: `${row.hands_bet}/${row.hands_required}` }),
      el("td", { text: status(row) }))));
    const tables = $("#b-tables");
    tables.replaceChildren(...(board.tables || []).map((table) => {
      const hands = Punto.handsMarkup();
      const round = asRound(lastHands[table.table]);
      const box = el("article", { class: "board-box b-table table-felt", testid: `b-table-${table.table}` },
        el("h2", { text: t("Table {table}", { table: table.table }) }),
        el("p", { class: "b-hand", testid: `b-hand-${table.table}`, text: t("Table {table} · hand {settled} of {hands} settled", { table: table.table, settled: table.settled, hands: table.hands }) }),
        hands,
        el("div", { class: `result-banner ${round ? round.result.winner : ""}`, testid: `b-result-${table.table}`, text: round ? `${t("Hand {hand}", { hand: lastHands[table.table].hand })}: ${Punto.resultText(round.result)}` : "" }),
        table.announcement ? el("p", { class: "t-announce", text: table.announcement }) : null);
      Punto.renderHands(box, round);
      return box;
    }));
  }

  Punto.connect(null, (m) => {
    if (m.type === "snapshot") {
      for (const table of m.snapshot.tables || []) if (table.last_hand && table.last_hand.type === "hand_settled") lastHands[table.table] = table.last_hand;
      board = m.snapshot;
      render();
    } else if (m.type === "leaderboard") {
      if (m.event && m.event.type === "hand_settled") lastHands[m.event.table] = m.event;
      board = m.leaderboard;
      render();
    }
  }, (up, reason, code) => {
    if (!up && code === 4404) $("#b-info").textContent = t("There is no tournament “{id}” here.", { id });
  }, `/ws/tournaments/${encodeURIComponent(id)}`);
});
