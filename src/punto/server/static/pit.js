// The pit: every table with its limits, round, drop, win, hold and
// commission; changing limits and timings; opening tables; the audit log.
"use strict";

(() => {
  const { $, el, api, errorText, money, words } = Punto;
  let games = [];
  let tables = [];

  const message = $("#message");
  function say(text, good) {
    message.textContent = text || "";
    message.className = `message ${good ? "good" : text ? "bad" : ""}`;
  }

  async function load() {
    const result = await api("GET", "/api/pit");
    if (!result.ok) {
      $("#tables").replaceChildren();
      $("#audit").replaceChildren();
      return say(result.status === 401 ? "Log in as a pit supervisor or higher." : errorText(result));
    }
    tables = result.data;
    $("#tables").replaceChildren(
      el("tr", {}, ...["Table", "Game", "Mode", "Limits", "Round", "Rounds", "Drop", "Win", "Hold %", "Commission", "In play"].map((h) => el("th", { text: h }))),
      ...tables.map((t) => {
        const f = t.figures || {};
        const round = t.round ? `${t.round.id} ${words(t.round.phase)} (${t.round.bets} bets)` : "–";
        return el("tr", { testid: `pit-${t.id}` },
          el("td", {}, el("a", { href: `/dealer/${encodeURIComponent(t.id)}`, text: t.name })),
          el("td", { text: `${t.game_title}${t.layout ? ` (${t.layout})` : ""}` }),
          el("td", { text: `${t.mode}${t.card_source === "device" ? ", device" : ""}${t.active ? "" : ", closed"}` }),
          el("td", { class: "num", text: `${money(t.limits.minimum)}–${money(t.limits.maximum)}${t.limits.differential ? ` Δ${money(t.limits.differential)}` : ""}` }),
          el("td", { testid: `pit-round-${t.id}`, text: round + (t.recovered ? ` · recovered: ${t.recovered}` : "") }),
          el("td", { class: "num", text: t.rounds ?? "–" }),
          el("td", { class: "num", testid: `pit-drop-${t.id}`, text: money(f.drop) }),
          el("td", { class: "num", testid: `pit-win-${t.id}`, text: money(f.win) }),
          el("td", { class: "num", testid: `pit-hold-${t.id}`, text: f.hold ?? "–" }),
          el("td", { class: "num", testid: `pit-commission-${t.id}`, text: money(f.commission) }),
          el("td", { class: "num", text: money(f.in_play) }));
      })
    );
    const select = $("#edit-table");
    const chosen = select.value;
    select.replaceChildren(...tables.map((t) => el("option", { value: t.id, text: t.id })));
    if (chosen) select.value = chosen;
    const ledger = await api("GET", "/api/pit/ledger");
    if (ledger.ok) $("#ledger").textContent = `trial balance ${money(ledger.data.trial_balance)}`;
    const audit = await api("GET", "/api/pit/audit?limit=100");
    if (audit.ok) {
      $("#audit").replaceChildren(
        el("tr", {}, ...["When", "Who", "Table", "Round", "Action", "Detail"].map((h) => el("th", { text: h }))),
        ...audit.data.map((a) => el("tr", { testid: "audit-row" },
          el("td", { text: new Date(a.at).toLocaleTimeString() }),
          el("td", { text: a.username ? `${a.username} (${words(a.role)})` : "server" }),
          el("td", { text: a.table_id || "" }), el("td", { text: a.round_id || "" }),
          el("td", { text: words(a.action) }),
          el("td", { text: JSON.stringify(a.detail) })))
      );
    }
  }

  async function loadGames() {
    const result = await api("GET", "/api/games");
    games = result.ok ? result.data : [];
    $("#new-game").replaceChildren(...games.map((g) => el("option", { value: g.id, text: g.title })));
    layouts();
  }
  function layouts() {
    const game = games.find((g) => g.id === $("#new-game").value);
    const options = game ? Object.keys(game.layouts) : [];
    $("#new-layout").replaceChildren(
      ...(game && !game.layouts_differ ? [el("option", { value: "", text: "any layout" })] : []),
      ...options.map((l) => el("option", { value: l, text: `layout ${l}` }))
    );
  }
  $("#new-game").addEventListener("change", layouts);

  $("#edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const id = $("#edit-table").value;
    const table = tables.find((t) => t.id === id);
    if (!table) return;
    const body = {};
    const limits = { ...table.limits };
    let changedLimits = false;
    for (const name of ["minimum", "maximum", "differential"]) {
      const value = $(`#edit-${name}`).value.trim();
      if (value) { limits[name] = value; changedLimits = true; }
    }
    if (changedLimits) body.limits = limits;
    const betting = $("#edit-betting").value.trim();
    if (betting) body.betting_seconds = Number(betting);
    if ($("#edit-mode").value) body.mode = $("#edit-mode").value;
    const result = await api("PATCH", `/api/tables/${encodeURIComponent(id)}`, body);
    say(result.ok ? `Table ${id} changed (new limits apply from the next round).` : errorText(result), result.ok);
    load();
  });

  $("#device-token").addEventListener("click", async () => {
    const id = $("#edit-table").value;
    const result = await api("POST", `/api/tables/${encodeURIComponent(id)}/device-token`);
    $("#token").textContent = result.ok ? `Device token for ${id} (shown once): ${result.data.token}` : "";
    if (!result.ok) say(errorText(result));
  });

  $("#new-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      id: $("#new-id").value.trim(),
      game: $("#new-game").value,
      mode: $("#new-mode").value,
      card_source: $("#new-source").value,
      limits: { minimum: $("#new-minimum").value.trim(), maximum: $("#new-maximum").value.trim() },
    };
    if ($("#new-layout").value) body.layout = $("#new-layout").value;
    const result = await api("POST", "/api/tables", body);
    say(result.ok ? `Table ${result.data.id} is open.` : errorText(result), result.ok);
    load();
  });

  Punto.loginBox($("#login"), () => { say(""); load(); }).refresh();
  loadGames();
  setInterval(load, 5000);
})();
