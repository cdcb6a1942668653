// The pit: every table with its limits, round in play, handle, win, hold and
// commission since it opened; the casino's shift (the server's: who opened it,
// since when, its report by table); changing limits, timings and modes;
// opening tables; the audit log.
"use strict";

(() => {
  const { $, el, api, errorText, money, words } = Punto;
  const say = Punto.sayer($("#message"));
  let games = [];
  let tables = [];
  let user = null;

  const c = Punto.cents;
  const m = (cents) => money(Punto.fromCents(cents));
  // A percentage with a true minus sign, like the amounts.
  function percent(text) {
    return `${String(text).replace(/^-/, "−")}%`;
  }
  function hold(win, handle) {
    return handle ? percent(((100 * win) / handle).toFixed(2)) : "–";
  }
  // Who opens and closes the shift: a pit manager or higher (the server checks).
  const OPENS_SHIFTS = ["pit_manager", "shift_manager", "assistant_casino_manager"];
  const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

  // "Tiger Buffalo (Commission Baccarat with Insurance Plus)" -> "Tiger Buffalo"
  function shortTitle(title) {
    return String(title).replace(/\s*\(.*\)\s*$/, "");
  }
  // What an audit entry says, briefly.
  function detailText(detail) {
    const parts = [];
    for (const [key, value] of Object.entries(detail || {})) {
      if (value === null || value === undefined || (Array.isArray(value) && !value.length)) continue;
      if (typeof value === "object" && !Array.isArray(value)) {
        const v = value;
        const brief = [v.game, v.layout ? `layout ${v.layout}` : "", v.mode, v.limits ? `limits ${money(v.limits.minimum)}–${money(v.limits.maximum)}` : "", v.active === false ? "closed" : ""]
          .filter(Boolean);
        parts.push(`${words(key)}: ${brief.length ? brief.join(", ") : Object.entries(v).filter(([, x]) => typeof x !== "object").map(([k, x]) => `${words(k)} ${x}`).join(", ")}`);
      } else {
        parts.push(`${words(key)}: ${Array.isArray(value) ? value.join(", ") : value}`);
      }
    }
    return parts.join("; ");
  }
  function numCell(text, testid, negative, extra) {
    return el("td", { class: `num${negative ? " neg" : ""}${extra ? ` ${extra}` : ""}`, testid, text });
  }

  // A load asked for while one runs (after a change the pit made, say) runs
  // again once it is done, so the page never stays on figures from before.
  const reload = Punto.coalesced(async () => {
    await loadTables();
    await loadShift();
    await loadAudit();
  });
  async function load() {
    if (!Punto.seesPit(user)) {
      $("#summary").classList.add("hidden");
      $("#shift").classList.add("hidden");
      $("#pit-only").classList.add("hidden");
      $("#tables").replaceChildren();
      $("#audit").replaceChildren();
      say(user ? `A ${words(user.role)} may not see the pit: it takes a pit supervisor or higher.` : "Log in as a pit supervisor or higher.");
      return;
    }
    await reload();
  }

  // The pit page polls; a poll with no answer means the figures on the page
  // are getting old, and it says so (with their time) until one answers.
  let figuresAt = null;
  async function loadTables() {
    const result = await api("GET", "/api/pit");
    if (Punto.unanswered(result)) {
      const when = figuresAt ? ` The figures below are from ${figuresAt.toLocaleTimeString()}.` : "";
      Punto.setLive("lost", `Connection lost — reconnecting…${when}`);
      return;
    }
    if (!Punto.isLive() && figuresAt) say("Reconnected: the figures are the server's again.", true);
    Punto.setLive("live");
    figuresAt = new Date();
    if (!result.ok) return say(errorText(result));
    tables = result.data;
    $("#summary").classList.remove("hidden");
    $("#pit-only").classList.remove("hidden");
    const total = { handle: 0, win: 0, commission: 0, in_play: 0 };
    const rows = tables.map((t) => {
      const f = t.figures || {};
      for (const k of Object.keys(total)) total[k] += c(f[k] || "0");
      const round = t.round;
      const game = games.find((g) => g.id === t.game);
      return el("tr", { testid: `pit-${t.id}`, dataset: { table: t.id } },
        el("td", { class: "table-cell" },
          el("strong", { text: t.id }),
          el("div", { class: "muted", text: `${game ? shortTitle(game.title) : t.game}${t.layout ? ` · layout ${t.layout}` : ""} · ${t.mode === "auto" ? "automatic" : "dealer"}${t.card_source === "device" ? " · device" : ""}${t.active ? "" : " · closed"}` }),
          el("div", { class: "links" },
            el("a", { href: `/dealer/${encodeURIComponent(t.id)}`, text: "console" }), " · ",
            el("a", { href: `/scoreboard/${encodeURIComponent(t.id)}`, text: "board" }), " · ",
            el("a", { href: `/play/${encodeURIComponent(t.id)}`, text: "play" }))),
        el("td", { class: "num", testid: `pit-limits-${t.id}`, text: `${money(t.limits.minimum)}–${money(t.limits.maximum)}${t.limits.differential ? ` Δ ${money(t.limits.differential)}` : ""}` }),
        el("td", { testid: `pit-round-${t.id}` },
          round ? el("span", { class: `pill ${round.phase}`, text: words(round.phase) }) : "–",
          round ? ` ${round.id} · ${round.bets} bet${round.bets === 1 ? "" : "s"}` : "",
          t.recovered ? el("div", { class: "muted", text: `recovered: ${t.recovered}` }) : "",
          ...(t.alerts || []).map((a) => el("div", { class: "notice", role: "alert", testid: `pit-alert-${t.id}`, text: `${a.text} (clause ${a.clause})` })),
          t.insurance_notice ? el("div", { class: "muted", testid: `pit-insurance-${t.id}`, text: `${t.insurance_notice.text} (clause ${t.insurance_notice.clause})` }) : ""),
        numCell(t.rounds ?? "–", `pit-rounds-${t.id}`),
        numCell(money(f.handle), `pit-handle-${t.id}`),
        numCell(money(f.win), `pit-win-${t.id}`, c(f.win || "0") < 0),
        numCell(f.hold === null || f.hold === undefined ? "–" : percent(f.hold), `pit-hold-${t.id}`, Number(f.hold) < 0),
        numCell(money(f.commission), `pit-commission-${t.id}`),
        numCell(money(f.in_play), `pit-in-play-${t.id}`));
    });
    const th = (text, cls, span) => el("th", { scope: span ? "colgroup" : "col", class: cls || "", colspan: span || null, text });
    const groups = el("tr", { class: "group" }, th("", "", 4), th("Since the table opened", "num", 5));
    const head = el("tr", {},
      th("Table"), th("Limits", "num"), th("Round in play"), th("Rounds", "num"),
      ...["Handle", "Win", "Hold", "Commission", "In play"].map((h) => th(h, "num")));
    $("#tables").replaceChildren(groups, head, ...rows);
    $("#t-running").textContent = `${tables.filter((t) => t.running).length} of ${tables.length}`;
    $("#t-handle").textContent = m(total.handle);
    $("#t-win").textContent = m(total.win);
    $("#t-win").classList.toggle("neg", total.win < 0);
    $("#t-hold").textContent = hold(total.win, total.handle);
    $("#t-commission").textContent = m(total.commission);
    $("#t-in-play").textContent = m(total.in_play);

    for (const id of ["#edit-table", "#audit-table"]) {
      const select = $(id);
      const chosen = select.value;
      const first = id === "#audit-table" ? [el("option", { value: "", text: "all tables" })] : [];
      select.replaceChildren(...first, ...tables.map((t) => el("option", { value: t.id, text: t.id })));
      if (chosen && tables.some((t) => t.id === chosen)) select.value = chosen;
    }
    fillEdit(false);
    await renderClaims(tables.filter((t) => t.round && t.round.claim));
    const ledger = await api("GET", "/api/pit/ledger");
    if (ledger.ok) $("#ledger").textContent = `ledger trial balance ${money(ledger.data.trial_balance)}`;
  }

  // A ruling filed at a table waits here for a second person: the cards, the
  // wagers it would return or change with their stakes and their value when
  // placed, and confirm or reject (the person who filed it cannot confirm it).
  // An exact edge ("-3859796/10249421") as a percentage to read.
  function edgePercent(fraction) {
    const [n, d] = String(fraction).split("/");
    return `${((Number(n) / Number(d || 1)) * 100).toFixed(2)}%`;
  }

  async function renderClaims(pending) {
    $("#claims").classList.toggle("hidden", !pending.length);
    const cards = [];
    for (const t of pending) {
      const c = t.round.claim;
      const base = `/api/tables/${encodeURIComponent(t.id)}/claims`;
      const detail = await api("GET", base);
      const affected = detail.ok ? detail.data.affected : [];
      const decide = async (how) => {
        let body;
        if (how === "reject") {
          const reason = window.prompt(`Why is claim ${c.claim_id} rejected?`, "");
          if (!reason) return;
          body = { reason };
        } else if (!window.confirm(`Confirm ${words(c.procedure)} at ${t.id} (clause ${c.clause})? The wagers listed are returned or changed.`)) {
          return;
        }
        const done = await Punto.perform("POST", `${base}/${encodeURIComponent(c.claim_id)}/${how}`, body, say, "", { key: Punto.newKey() });
        if (done) say(how === "confirm" ? `Confirmed at ${t.id}: ${words(c.procedure)}, clause ${c.clause}.` : `Rejected at ${t.id}: nothing moved.`, true);
        await reload();
      };
      const own = user && c.filed_by === user.username;
      cards.push(el("article", { class: "claim", testid: `claim-${t.id}`, dataset: { table: t.id, claim: c.claim_id } },
        el("h3", { text: `${t.id} · round ${t.round.id} · ${words(c.procedure)} (clause ${c.clause})` }),
        el("p", { class: "muted", text: `Filed by ${c.filed_by} (${words(c.filed_role)}); a ${words(c.confirming)} or above confirms it.${detail.ok && detail.data.cards.length ? ` Cards: ${detail.data.cards.join(" ")}.` : ""}${Object.keys(c.parameters).length ? ` As filed: ${JSON.stringify(c.parameters)}.` : ""}` }),
        affected.length ? el("table", { class: "list", testid: `claim-bets-${t.id}` },
          el("tr", {}, ...["Player", "Wager", "Stake", "Now", "Would be", "Value when placed"].map((h) => el("th", { scope: "col", text: h }))),
          ...affected.map((a) => el("tr", {},
            el("td", { text: a.player }), el("td", { text: words(a.wager) }), el("td", { class: "num", text: money(a.stake) }),
            el("td", { text: a.now }), el("td", { text: a.then }),
            el("td", { class: "num", text: a.value ? `${a.value.expected_value_money} (edge ${edgePercent(a.value.house_edge)})` : "–" })))) : el("p", { text: "No wager changes." }),
        el("div", { class: "actions" },
          el("button", { type: "button", class: "danger", testid: `confirm-${t.id}`, text: "Confirm", disabled: own, title: own ? "you filed it: another person confirms it" : null, onclick: () => decide("confirm") }),
          el("button", { type: "button", class: "secondary", testid: `reject-${t.id}`, text: own ? "Withdraw" : "Reject", onclick: () => decide("reject") }))));
    }
    $("#claims-list").replaceChildren(...cards);
  }

  // -- the shift: the server's, the same on every pit screen -------------------------------
  // Who opened it and when, its report by table (figures since it opened, from
  // the tables' records), Open and Close for a pit manager or higher, and the
  // last closed shifts with the reports kept at their closing.
  let shiftNow = null;
  const REPORT_COLUMNS = [
    ["handle", "Handle"], ["win", "Win"], ["hold", "Hold"], ["commission", "Commission"],
    ["rounds", "Rounds"], ["players", "Players"], ["theoretical_win", "Theoretical win"],
  ];
  function figureText(key, value) {
    if (key === "hold") return value === null || value === undefined ? "–" : percent(value);
    if (key === "rounds" || key === "players") return String(value);
    return money(value);
  }
  function figureCells(line, prefix) {
    return REPORT_COLUMNS.map(([key]) => {
      const negative = (key === "win" || key === "hold" || key === "theoretical_win") && String(line[key] || "").startsWith("-");
      return numCell(figureText(key, line[key]), `${prefix}-${key}`, negative);
    });
  }
  function reportTable(report, prefix) {
    const head = el("tr", {}, el("th", { scope: "col", text: "Table" }), ...REPORT_COLUMNS.map(([, h]) => el("th", { scope: "col", class: "num", text: h })));
    const rows = report.tables.map((t) => el("tr", { testid: `${prefix}-${t.table_id}`, dataset: { table: t.table_id } },
      el("td", { class: "table-cell" }, el("strong", { text: t.table_id }), el("div", { class: "muted", text: t.name })),
      ...figureCells(t, `${prefix}-${t.table_id}`)));
    const total = el("tr", { class: "total", testid: `${prefix}-total` },
      el("th", { scope: "row", text: "All tables" }), ...figureCells(report.total, `${prefix}-total`));
    return [el("thead", {}, head), el("tbody", {}, ...rows), el("tfoot", {}, total)];
  }

  async function loadShift() {
    const result = await api("GET", "/api/pit/shift");
    if (!result.ok) return;
    const { shift, report } = result.data;
    shiftNow = shift;
    const manages = !!user && OPENS_SHIFTS.includes(user.role);
    $("#shift").classList.remove("hidden");
    $("#shift-open").classList.toggle("hidden", !manages || !!shift);
    $("#shift-close").classList.toggle("hidden", !manages || !shift);
    $("#shift-status").textContent = shift
      ? `Shift ${shift.id}, open since ${when(shift.opened_at)}, opened by ${shift.opened_by} (${words(shift.opened_role)}). Its figures count the rounds settled since it opened.`
      : `No shift is open.${manages ? " Open one to count the figures from now." : " A pit manager opens it."}`;
    $("#shift-report").replaceChildren(...(report ? reportTable(report, "shift") : []));
    const closed = await api("GET", "/api/pit/shifts?limit=5");
    if (!closed.ok) return;
    $("#closed-shifts").classList.toggle("hidden", !closed.data.length);
    $("#closed-list").replaceChildren(
      el("thead", {}, el("tr", {}, ...["Shift", "Opened", "Closed", ...REPORT_COLUMNS.map(([, h]) => h)].map((h, i) => el("th", { scope: "col", class: i > 2 ? "num" : "", text: h })))),
      el("tbody", {}, ...closed.data.map(({ shift: s, report: r }) => el("tr", { testid: `closed-${s.id}` },
        el("td", { text: String(s.id) }),
        el("td", { text: `${when(s.opened_at)} by ${s.opened_by}` }),
        el("td", { text: `${when(s.closed_at)} by ${s.closed_by}` }),
        ...figureCells(r.total, `closed-${s.id}`)))));
  }

  $("#shift-open").addEventListener("click", async () => {
    if (!window.confirm("Open a shift now? Every pit screen shows it, and its figures count from now.")) return;
    const data = await Punto.perform("POST", "/api/pit/shift", undefined, say, "Opening the shift");
    if (data) say(`Shift ${data.shift.id} is open: its figures count from now.`, true);
    await reload();
  });
  $("#shift-close").addEventListener("click", async () => {
    if (!shiftNow) return;
    const id = shiftNow.id;
    if (!window.confirm(`Close shift ${id}, opened by ${shiftNow.opened_by} at ${when(shiftNow.opened_at)}? Its report is kept as it stands now.`)) return;
    const data = await Punto.perform("POST", `/api/pit/shift/${id}/close`, undefined, say, `Closing shift ${id}`);
    if (data) say(`Shift ${id} is closed; its report is kept below, under "Closed shifts".`, true);
    await reload();
  });

  async function loadAudit() {
    const filter = $("#audit-table").value;
    const audit = await api("GET", `/api/pit/audit?limit=100${filter ? `&table_id=${encodeURIComponent(filter)}` : ""}`);
    if (!audit.ok) return;
    $("#audit").replaceChildren(
      el("tr", {}, ...["When", "Who", "Table", "Round", "Action", "Detail"].map((h) => el("th", { scope: "col", text: h }))),
      ...audit.data.map((a) => el("tr", { testid: "audit-row", dataset: { action: a.action, table: a.table_id || "" } },
        el("td", { class: "num", text: new Date(a.at).toLocaleTimeString() }),
        el("td", { text: a.username ? `${a.username} (${words(a.role)})` : "server" }),
        el("td", { text: a.table_id || "" }), el("td", { text: a.round_id || "" }),
        el("td", { text: words(a.action) }),
        el("td", { text: detailText(a.detail) })))
    );
  }
  $("#audit-table").addEventListener("change", loadAudit);

  // -- changing a table ---------------------------------------------------------------------
  let edited = "";
  function fillEdit(force) {
    const id = $("#edit-table").value;
    if (!force && id === edited) return;
    edited = id;
    const t = tables.find((x) => x.id === id);
    if (!t) return;
    $("#edit-minimum").value = t.limits.minimum;
    $("#edit-maximum").value = t.limits.maximum;
    $("#edit-differential").value = t.limits.differential || "";
    $("#edit-betting").value = String(t.betting_seconds);
    $("#edit-mode").value = t.mode;
    $("#edit-active").value = String(t.active);
    $("#edit-insurance").value = String(t.insurance_offered);
    $("#edit-insurance").disabled = !t.insurance;
    $("#edit-face-down").value = String(t.face_down);
  }
  $("#edit-table").addEventListener("change", () => fillEdit(true));

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
      ...options.map((l) => el("option", { value: l, text: `layout ${l} (${game.layouts[l].wagers.length} wagers)` }))
    );
  }
  $("#new-game").addEventListener("change", layouts);

  $("#edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const id = $("#edit-table").value;
    const t = tables.find((x) => x.id === id);
    if (!t) return;
    const limits = { ...t.limits, minimum: $("#edit-minimum").value.trim(), maximum: $("#edit-maximum").value.trim(), differential: $("#edit-differential").value.trim() || null };
    const body = { limits, mode: $("#edit-mode").value, active: $("#edit-active").value === "true" };
    const betting = $("#edit-betting").value.trim();
    if (betting) body.betting_seconds = Number(betting);
    // RWS 4.2.2: only sent when changed (it changes between rounds only).
    const offered = $("#edit-insurance").value === "true";
    if (t.insurance && offered !== t.insurance_offered) body.insurance_offered = offered;
    // RWS 5.10: a table where the cards are dealt face down; from the next round, logged.
    const faceDown = $("#edit-face-down").value === "true";
    if (faceDown !== t.face_down) body.face_down = faceDown;
    // A change sets the table's settings: sent again with its key while no answer comes.
    const data = await Punto.perform("PATCH", `/api/tables/${encodeURIComponent(id)}`, body, say, `Table ${id}`);
    if (data) say(`Table ${id} changed (new limits apply from the next round).`, true);
    edited = "";
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
    if ($("#new-confirm").value === "true") body.confirm_player_favoured = await PuntoProtection.favoured(body.game, body.layout); // anomalies.js
    const data = await Punto.perform("POST", "/api/tables", body, say, `Table ${body.id}`);
    if (data) {
      say(`Table ${data.id} is open.`, true);
      $("#new-id").value = "";
    }
    load();
  });

  loadGames().then(() => Punto.loginBox($("#login"), (who) => {
    user = who;
    say("");
    load();
  }).refresh());
  // every 4 s; every second while the server is not answering
  let ticks = 0;
  setInterval(() => {
    ticks += 1;
    if (ticks % 4 === 0 || !Punto.isLive()) load();
  }, 1000);
})();
