// punto: a tournament's lobby, live leaderboard and results.
// The page reads the tournament id from its URL (/tournaments/{id}), asks for
// the snapshot, then listens on /ws/tournaments/{id}: every settled hand
// brings a fresh leaderboard.  No inline code or styles (strict CSP).
"use strict";

(() => {
  const parts = location.pathname.split("/").filter(Boolean);
  const id = decodeURIComponent(parts[1] || "");
  const $ = (selector) => document.querySelector(selector);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else if (key === "testid") node.dataset.testid = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const chips = (n) => (n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US"));

  function status(row) {
    if (row.status === "finished") return `place ${row.place}`;
    if (row.status === "advanced") return "advances";
    if (row.status === "eliminated") return "out";
    if (row.status === "out_of_chips") return "out of chips";
    if (row.advancing) return "advancing";
    return "";
  }

  function standingsTable(rows, testid) {
    const body = el("tbody");
    for (const row of rows) {
      body.append(
        el(
          "tr",
          { class: row.advancing ? "t-advancing" : null, testid: "t-row", "data-entrant": row.entrant },
          el("td", { class: "num", text: row.rank }),
          el("td", { text: row.name }),
          el("td", { class: "num", testid: "t-chips", text: chips(row.chips) }),
          el("td", { class: "num", text: `${row.hands_bet}/${row.hands_required}` }),
          el("td", { text: status(row) + (row.tied ? " (tied)" : "") }),
        ),
      );
    }
    return el(
      "table",
      { class: "list", testid },
      el(
        "thead",
        null,
        el(
          "tr",
          null,
          el("th", { class: "num", text: "Rank" }),
          el("th", { text: "Entrant" }),
          el("th", { class: "num", text: "Chips" }),
          el("th", { class: "num", text: "Hands" }),
          el("th", { text: "Status" }),
        ),
      ),
      body,
    );
  }

  function render(board) {
    $("#t-title").textContent = board.title || `Tournament ${id}`;
    document.title = `punto · ${board.title || id}`;
    $("#t-info").textContent = `${board.tournament} · ${board.format} · ${board.stage}`;
    document.body.dataset.stage = board.stage;
    const s = board.session;
    $("#t-session").textContent = s
      ? `${s.name} (session ${s.number}): ${s.hands} hands, bets ${chips(s.min_bet)}${s.max_bet ? `–${chips(s.max_bet)}` : " up"}, at least ${s.min_hands} hands`
      : "Registration is open";
    $("#t-seq").textContent = String(board.seq);
    const settled = board.tables.reduce((sum, t) => sum + t.settled, 0);
    $("#t-settled").textContent = String(settled);
    const tb = $("#t-tiebreak");
    tb.classList.toggle("hidden", !board.tiebreak);
    tb.textContent = board.tiebreak ? `Sudden death: ${board.tiebreak.reason}` : "";

    const tables = $("#t-tables");
    tables.replaceChildren();
    for (const t of board.tables) {
      tables.append(
        el(
          "div",
          { testid: `t-table-${t.table}`, class: "t-table" },
          el("h3", { text: `Table ${t.table} · hand ${t.settled} of ${t.hands} settled` }),
          t.announcement ? el("p", { class: "t-announce", text: t.announcement }) : null,
          standingsTable(t.standings, `t-table-standings-${t.table}`),
        ),
      );
    }
    const overall = $("#t-overall-rows");
    overall.replaceChildren();
    const rows = board.overall.length ? board.overall : [];
    for (const row of rows) {
      overall.append(
        el(
          "tr",
          { testid: "t-overall-row", "data-entrant": row.entrant },
          el("td", { class: "num", text: row.rank }),
          el("td", { text: row.name }),
          el("td", { class: "num", text: chips(row.chips) }),
          el("td", { class: "num", text: `${row.hands_bet}/${row.hands_required}` }),
          el("td", { text: status(row) }),
        ),
      );
    }
    const results = board.results;
    $("#t-results-box").classList.toggle("hidden", !results);
    const body = $("#t-results-rows");
    body.replaceChildren();
    for (const r of results || []) {
      body.append(
        el(
          "tr",
          { testid: "t-result-row" },
          el("td", { class: "num", text: r.place }),
          el("td", { text: r.name }),
          el("td", { text: r.reached }),
          el("td", { class: "num", text: chips(r.chips) }),
          el("td", { class: "num", text: r.prize === "0.00" ? "" : r.prize }),
        ),
      );
    }
  }

  function showError(text) {
    $("#t-info").textContent = text;
  }

  let retry = 500;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws/tournaments/${encodeURIComponent(id)}`);
    const live = $("#t-live");
    socket.addEventListener("open", () => {
      retry = 500;
      live.dataset.state = "live";
      live.textContent = "live";
    });
    socket.addEventListener("message", (message) => {
      let data;
      try {
        data = JSON.parse(message.data);
      } catch (error) {
        return;
      }
      if (data.type === "snapshot") render(data.snapshot);
      else if (data.type === "leaderboard") render(data.leaderboard);
    });
    socket.addEventListener("close", (event) => {
      live.dataset.state = "closed";
      live.textContent = "reconnecting…";
      if (event.code === 4404) {
        live.textContent = "no such tournament";
        showError(event.reason || "no such tournament");
        return;
      }
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }

  async function start() {
    if (!id) {
      showError("no tournament in the address");
      return;
    }
    try {
      const response = await fetch(`/api/tournaments/${encodeURIComponent(id)}`, { credentials: "same-origin" });
      const data = await response.json();
      if (response.ok) render(data);
      else showError((data.error && (data.error.text || data.error.message)) || `error ${response.status}`);
    } catch (error) {
      showError("the server cannot be reached");
    }
    connect();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
