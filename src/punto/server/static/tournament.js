// punto: a tournament's lobby, live leaderboard and results -- and, for a
// logged-in player, registration (the entry fee from the wallet), the betting
// window of each live hand with its countdown, bets within the session's
// limits, the sudden-death side, re-entry, and the result of each hand; for a
// pit manager (or higher), starting a session and cancelling the tournament.
// The page reads the tournament id from its URL (/tournaments/{id}), asks for
// the snapshot, then listens on /ws/tournaments/{id}.  No inline code or
// styles (strict CSP).
"use strict";

(() => {
  const { $, el, api, errorText, newKey, money } = Punto;
  const id = Punto.tableId();

  const WAGER_NAMES = {
    banker: "Banker",
    player: "Player",
    tie: "Tie",
    player_pair: "Player Pair",
    banker_pair: "Banker Pair",
  };

  const state = {
    board: null, // the latest leaderboard (or snapshot)
    snapshot: null, // the latest snapshot: entrants, bets, format
    user: null,
    windows: {}, // table (or "tiebreak") -> { deadline, seconds, hand }
    lastShown: null, // the hand whose result is shown
  };

  const chips = (n) => (n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US"));
  const say = Punto.sayer($("#t-message"));
  const staffSay = Punto.sayer($("#t-staff-message"));

  function status(row) {
    if (row.status === "finished") return `place ${row.place}`;
    if (row.status === "advanced") return "advances";
    if (row.status === "eliminated") return "out";
    if (row.status === "out_of_chips") return "out of chips";
    if (row.status === "cancelled") return "cancelled";
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
    state.board = board;
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
    const off = $("#t-cancelled");
    off.classList.toggle("hidden", !board.cancelled);
    off.textContent = board.cancelled
      ? `Cancelled: ${board.cancelled.reason}. Every entry fee paid is given back (T8.4).`
      : "";

    const tables = $("#t-tables");
    tables.replaceChildren();
    for (const t of board.tables) {
      tables.append(
        el(
          "div",
          { testid: `t-table-${t.table}`, class: "t-table", "data-phase": t.phase },
          el("h3", { text: `Table ${t.table} · hand ${t.settled} of ${t.hands} settled` }),
          t.announcement ? el("p", { class: "t-announce", text: t.announcement }) : null,
          standingsTable(t.standings, `t-table-standings-${t.table}`),
        ),
      );
    }
    const overall = $("#t-overall-rows");
    overall.replaceChildren();
    for (const row of board.overall || []) {
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
    renderMe();
    renderStaff();
  }

  // -- the pit's part: what the API lets a pit manager (or higher) do -------------------------

  function isManager() {
    return !!state.user && ["pit_manager", "shift_manager", "assistant_casino_manager", "admin"].includes(state.user.role);
  }

  // the irregularity procedures of a hand (rules 5.1-5.4) are the pit's: a supervisor or higher
  function isPit() {
    return !!state.user && ["pit_supervisor", "pit_manager", "shift_manager", "assistant_casino_manager"].includes(state.user.role);
  }

  function renderIrregularity() {
    const procedure = $("#t-irr-procedure").value;
    for (const node of document.querySelectorAll(".t-irr-for-draw")) {
      node.classList.toggle("hidden", procedure !== "simultaneous_draw");
    }
    const rebuilds = ["incorrect_number_of_cards", "order_altered"].includes(procedure);
    for (const node of document.querySelectorAll(".t-irr-for-rebuild")) node.classList.toggle("hidden", !rebuilds);
  }

  function renderStaff() {
    const manager = isManager();
    const pit = isPit();
    $("#t-staff").classList.toggle("hidden", !manager && !pit);
    $("#t-irr-form").classList.toggle("hidden", !pit || !state.board || state.board.stage !== "playing");
    $("#t-start").classList.toggle("hidden", !manager);
    $("#t-cancel-form").classList.toggle("hidden", !manager);
    if (!manager || !state.board) return;
    const stage = state.board.stage;
    const live = !!(state.snapshot && state.snapshot.live);
    // a live tournament's clock starts every session after the first itself
    $("#t-start").classList.toggle("hidden", !(stage === "registration" || (stage === "between_sessions" && !live)));
    $("#t-cancel-form").classList.toggle("hidden", stage === "finished" || stage === "cancelled");
  }

  // -- the player's own part ---------------------------------------------------------------

  function isPlayer() {
    return !!state.user && state.user.role === "player";
  }

  function me() {
    const snap = state.snapshot;
    if (!isPlayer() || !snap || !snap.entrants) return null;
    return snap.entrants.find((e) => e.entrant === state.user.username) || null;
  }

  function myTable() {
    const e = me();
    if (!e || !e.table || !state.snapshot) return null;
    return state.snapshot.tables.find((t) => t.table === e.table) || null;
  }

  function renderMe() {
    const box = $("#t-me");
    box.classList.toggle("hidden", !isPlayer());
    if (!isPlayer() || !state.snapshot) return;
    const snap = state.snapshot;
    const rules = snap.format_rules || {};
    const reg = rules.registration || {};
    const e = me();
    const stage = (state.board || snap).stage;
    $("#t-register-box").classList.toggle("hidden", !!e || stage === "finished" || stage === "cancelled");
    const fee = reg.entry_fee ? `Entry fee ${money(reg.entry_fee)} ${rules.currency || ""}` : "Free entry";
    const balance = state.user.balance !== undefined && state.user.balance !== null ? ` · your balance ${money(state.user.balance)}` : "";
    $("#t-fee").textContent = `${fee}${balance}`;
    $("#t-entrant").classList.toggle("hidden", !e);
    if (e) {
      $("#t-my-chips").textContent = chips(e.chips);
      $("#t-my-table").textContent = e.table ? `${e.table}, seat ${e.seat}` : "–";
      $("#t-my-hands").textContent = `${e.hands_bet}/${e.hands_required}`;
      $("#t-my-status").textContent = status(e) + (e.must_bet ? " · must bet" : "");
      // as the server judges T2.3 and T2.4 for this entrant now
      $("#t-reenter").classList.toggle("hidden", !e.may_reenter);
      $("#t-unregister").classList.toggle("hidden", !e.may_take_back);
    }
    renderPlay(e);
    renderSudden(e);
  }

  function renderPlay(e) {
    const form = $("#t-play");
    const table = myTable();
    const s = (state.board || state.snapshot).session;
    const betting = !!e && !!table && table.phase === "betting" && !!s && e.status === "playing";
    form.classList.toggle("hidden", !betting);
    if (!betting) return;
    $("#t-hand").textContent = `Hand ${table.hand} of ${table.hands}${table.announcement ? ` · ${table.announcement}` : ""}`;
    const rules = state.snapshot.format_rules;
    const wagers = $("#t-wagers");
    if (wagers.dataset.wagers !== rules.wagers.join(",")) {
      wagers.dataset.wagers = rules.wagers.join(",");
      wagers.replaceChildren(el("legend", { text: "Bet on" }));
      rules.wagers.forEach((w, i) => {
        const inputId = `t-wager-${w}`;
        wagers.append(
          el(
            "label",
            { for: inputId, class: `t-wager ${w}` },
            el("input", { type: "radio", name: "wager", id: inputId, value: w, testid: `t-wager-${w}`, checked: i === 0 }),
            el("span", { text: WAGER_NAMES[w] || w }),
          ),
        );
      });
    }
    const stake = $("#t-stake");
    const most = s.max_bet ? Math.min(s.max_bet, e.chips) : e.chips;
    stake.min = String(s.min_bet);
    stake.max = String(most);
    stake.step = String(rules.chip_unit);
    if (!stake.value) stake.value = String(s.min_bet);
    $("#t-limits").textContent = `${chips(s.min_bet)}–${chips(most)}, in ${chips(rules.chip_unit)}s`;
    const mine = (table.bets || {})[e.entrant] || [];
    const passed = (table.passed || []).includes(e.entrant);
    $("#t-my-bet").textContent = mine.length
      ? `Your bet: ${mine.map((b) => `${WAGER_NAMES[b.wager] || b.wager} ${chips(b.stake)}`).join(", ")}`
      : passed
        ? "You sit this hand out"
        : "No bet yet";
    $("#t-bet").textContent = mine.length ? "Change bet" : "Bet";
    $("#t-withdraw").disabled = !mine.length;
    $("#t-pass").disabled = mine.length > 0 || passed || e.must_bet;
  }

  function renderSudden(e) {
    const tb = (state.board || {}).tiebreak;
    const mine = !!e && !!tb && tb.entrants.includes(e.entrant) && !tb.chosen.includes(e.entrant);
    $("#t-sudden").classList.toggle("hidden", !mine);
    if (mine) $("#t-sudden-text").textContent = `Sudden death ${tb.reason}: choose Banker or Player.`;
  }

  function showResult(event) {
    const e = me();
    if (e && event && event.type === "hand_voided") {
      const stack = event.chips.find((c) => c.entrant === e.entrant);
      if (!stack) return;
      say(""); // the bet placed on the hand is gone with it
      $("#t-last-result").textContent =
        `Hand ${event.hand}: void (${event.clause}: ${event.reason}) · every bet returned · chips ${chips(stack.chips)}`;
      return;
    }
    if (!e || !event || event.type !== "hand_settled") return;
    const mine = event.results.find((r) => r.entrant === e.entrant);
    if (!mine) return;
    const key = `${event.session}:${event.table}:${event.hand}`;
    if (state.lastShown === key) return;
    state.lastShown = key;
    say(""); // what was said about the last hand's bet is stale now
    const winner = event.winner === "tie" ? "Tie" : `${WAGER_NAMES[event.winner] || event.winner} wins`;
    const net = mine.staked ? ` · you ${mine.net > 0 ? "+" : ""}${chips(mine.net)}` : " · you sat out";
    $("#t-last-result").textContent = `Hand ${event.hand}: ${winner} (${event.cards})${net} · chips ${chips(mine.chips)}`;
  }

  // -- actions -------------------------------------------------------------------------------

  async function act(method, path, body, headers) {
    if ($("#t-live").dataset.state === "closed") {
      say("Not connected to the tournament: nothing was sent. Wait until the connection is back.");
      return { ok: false, status: 0, data: null };
    }
    const url = `/api/tournaments/${encodeURIComponent(id)}${path}`;
    const key = headers && headers["Idempotency-Key"];
    // A keyed request goes again with its key while no answer comes: paid once.
    const result = key ? await Punto.send(method, url, body, { key, pending: (text) => say(text) }) : await api(method, url, body, headers);
    if (result.lost) say(Punto.NOT_CONFIRMED);
    else if (!result.ok) say(errorText(result));
    await refresh();
    return result;
  }

  async function refreshUser() {
    const result = await api("GET", "/api/session");
    state.user = result.ok && result.data ? result.data.user : null;
    const player = isPlayer();
    $("#t-wallet").classList.toggle("hidden", !player);
    $("#t-balance").textContent = player ? money(state.user.balance) : "–";
  }

  // One snapshot request at a time, and one more if a refresh is asked for
  // while it is on its way: a hand settled while a snapshot of its opening
  // was on its way would otherwise leave the page on the opening.
  const refresh = Punto.coalesced(async () => {
    const result = await api("GET", `/api/tournaments/${encodeURIComponent(id)}`);
    if (result.ok) {
      takeSnapshot(result.data);
    } else {
      $("#t-info").textContent = errorText(result);
    }
  });

  function takeSnapshot(snap) {
    state.snapshot = snap;
    Punto.syncClock(snap.server_time);
    state.windows = {};
    for (const w of snap.windows || []) state.windows[w.tiebreak ? "tiebreak" : w.table] = w;
    render(snap);
    for (const t of snap.tables || []) if (t.last_hand) showResult(t.last_hand);
  }

  function bindActions() {
    $("#t-register").addEventListener("click", async () => {
      say("");
      const result = await act("POST", "/register", undefined, { "Idempotency-Key": newKey() });
      if (result.ok) {
        const fee = result.data.fee ? ` (entry fee ${money(result.data.fee)} paid)` : "";
        say(`Registered${fee}`, true);
        await refreshUser();
        renderMe();
      }
    });
    $("#t-start").addEventListener("click", async () => {
      staffSay("");
      const result = await api("POST", `/api/tournaments/${encodeURIComponent(id)}/start`);
      staffSay(result.ok ? `${result.data.session.name} started` : errorText(result), result.ok);
      await refresh();
    });
    $("#t-irr-procedure").addEventListener("change", renderIrregularity);
    renderIrregularity();
    $("#t-irr-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      staffSay("");
      const procedure = $("#t-irr-procedure").value;
      const body = { table: Number($("#t-irr-table").value), dealt: Number($("#t-irr-dealt").value) };
      if (procedure === "simultaneous_draw") {
        body.cards = Number($("#t-irr-cards").value);
        body.order_known = $("#t-irr-order-known").checked;
      } else if (procedure !== "foreign_card") {
        body.reconstructable = $("#t-irr-reconstructable").checked;
      }
      const path = `/api/tournaments/${encodeURIComponent(id)}/irregularities/${procedure}`;
      const result = await Punto.send("POST", path, body, { key: newKey(), pending: (text) => staffSay(text) });
      if (result.lost) {
        staffSay(Punto.NOT_CONFIRMED);
      } else if (result.ok) {
        const e = result.data.event;
        staffSay(
          e.type === "hand_voided"
            ? `Hand ${e.hand} at table ${e.table} is void (${e.clause}): every bet returned; it is dealt again`
            : `Noted (${e.clause}): ${e.reason}; hand ${e.hand} at table ${e.table} is dealt on`,
          true,
        );
      } else {
        staffSay(errorText(result));
      }
      await refresh();
    });
    $("#t-cancel-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      staffSay("");
      const reason = $("#t-cancel-reason").value.trim();
      const result = await api("POST", `/api/tournaments/${encodeURIComponent(id)}/cancel`, { reason });
      if (result.ok) {
        const refunds = result.data.cancelled.refunds;
        const paid = refunds.filter((r) => r.payment === "paid").length;
        staffSay(`Cancelled; ${paid} of ${refunds.length} entry fee refunds paid`, true);
      } else {
        staffSay(errorText(result));
      }
      await refresh();
    });
    $("#t-unregister").addEventListener("click", async () => {
      say("");
      const result = await act("DELETE", "/register", undefined, { "Idempotency-Key": newKey() });
      if (result.ok) {
        const refund = result.data.refund ? ` (entry fee ${money(result.data.refund)} given back)` : "";
        say(`Entry taken back${refund}`, true);
        await refreshUser();
        renderMe();
      }
    });
    $("#t-reenter").addEventListener("click", async () => {
      const result = await act("POST", "/reenter", undefined, { "Idempotency-Key": newKey() });
      if (result.ok) {
        say(`Re-entered: ${chips(result.data.chips)} chips`, true);
        await refreshUser();
        renderMe();
      }
    });
    $("#t-play").addEventListener("submit", async (event) => {
      event.preventDefault();
      const chosen = document.querySelector('input[name="wager"]:checked');
      if (!chosen) {
        say("choose what to bet on");
        return;
      }
      const stake = Number($("#t-stake").value);
      const table = myTable();
      const e = me();
      const replace = !!table && !!e && ((table.bets || {})[e.entrant] || []).length > 0;
      const result = await act("POST", "/bets", { bets: [{ wager: chosen.value, stake }], replace });
      if (result.ok) say("Bet placed", true);
    });
    $("#t-withdraw").addEventListener("click", async () => {
      const result = await act("DELETE", "/bets");
      if (result.ok) say("Bet withdrawn", true);
    });
    $("#t-pass").addEventListener("click", async () => {
      const result = await act("POST", "/bets", { pass_hand: true });
      if (result.ok) say("You sit this hand out", true);
    });
    for (const side of ["banker", "player"]) {
      $(`#t-side-${side}`).addEventListener("click", async () => {
        const result = await act("POST", "/tiebreak", { side });
        if (result.ok) say(`You chose ${WAGER_NAMES[side]}`, true);
      });
    }
    const myWindow = () => {
      const e = me();
      const w = e && e.table ? state.windows[e.table] : null;
      return w || null;
    };
    Punto.countdown($("#t-countdown"), () => (myWindow() ? myWindow().deadline : null), () => (myWindow() ? myWindow().seconds : 0));
    Punto.countdown(
      $("#t-sudden-countdown"),
      () => (state.windows.tiebreak ? state.windows.tiebreak.deadline : null),
      () => (state.windows.tiebreak ? state.windows.tiebreak.seconds : 0),
    );
  }

  // -- the socket ------------------------------------------------------------------------------

  function onMessage(data) {
    if (data.type === "snapshot") {
      takeSnapshot(data.snapshot);
    } else if (data.type === "leaderboard") {
      state.windows = {};
      for (const w of data.windows || []) state.windows[w.tiebreak ? "tiebreak" : w.table] = w;
      render(data.leaderboard);
      showResult(data.event);
      if (isPlayer()) refresh(); // the player's bets, seat and chips, fresh
      const over = ["tournament_finished", "tournament_cancelled"];
      if (data.event && over.includes(data.event.type) && isPlayer()) {
        setTimeout(async () => {
          await refreshUser();
          renderMe();
        }, 500); // the prizes (or the refunds) are paid just after the event
      }
    } else if (data.type === "window") {
      state.windows[data.tiebreak ? "tiebreak" : data.table] = data;
      if (isPlayer()) refresh(); // the hand that opened, with who is to act
    }
  }

  // The shared connection (common.js): the banner, the frozen countdowns, and
  // live again only with a fresh snapshot.
  function connect() {
    const live = $("#t-live");
    let seen = false;
    Punto.onLive((up) => {
      seen = seen || up;
      if (!seen) return; // still connecting the first time
      live.dataset.state = up ? "live" : "closed";
      live.textContent = up ? "live" : "reconnecting…";
      if (up && isPlayer()) refreshUser().then(renderMe);
    });
    Punto.connect(null, onMessage, (up, reason, code) => {
      if (!up && code === 4404) {
        live.textContent = "no such tournament";
        $("#t-info").textContent = reason || "no such tournament";
      }
    }, `/ws/tournaments/${encodeURIComponent(id)}`);
  }

  async function start() {
    if (!id) {
      $("#t-info").textContent = "no tournament in the address";
      return;
    }
    bindActions();
    const login = Punto.loginBox($("#login"), (user) => {
      state.user = user;
      const player = isPlayer();
      $("#t-wallet").classList.toggle("hidden", !player);
      $("#t-balance").textContent = player ? money(user.balance) : "–";
      renderMe();
      renderStaff();
    });
    await login.refresh();
    await refresh();
    connect();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
