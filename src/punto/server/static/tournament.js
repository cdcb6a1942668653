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
  const { $, el, api, errorText, newKey, money, t } = Punto;
  const id = Punto.tableId();

  // the format's wagers by their names, in the page's language
  const WAGER_NAMES = {
    get banker() { return t("Banker"); },
    get player() { return t("Player"); },
    get tie() { return t("Tie"); },
    get player_pair() { return t("Player Pair"); },
    get banker_pair() { return t("Banker Pair"); },
  };

  const state = {
    board: null, // the latest leaderboard (or snapshot)
    snapshot: null, // the latest snapshot: entrants, bets, format
    user: null,
    windows: {}, // table (or "tiebreak") -> { deadline, seconds, hand }
    lastShown: null, // the hand whose result is shown
    lastHands: {}, // table -> the last hand settled there (its coup by side)
    watching: null, // the table on the felt, for someone not seated
  };

  // chips are counted, not money: 20,000 in the page's locale
  const chips = (n) => Punto.count(n);
  const say = Punto.sayer($("#t-message"));
  const staffSay = Punto.sayer($("#t-staff-message"));

  function status(row) {
    if (row.status === "finished") return t("place {place}", { place: row.place });
    if (row.status === "advanced") return t("advances");
    if (row.status === "eliminated") return t("out");
    if (row.status === "out_of_chips") return t("out of chips");
    if (row.status === "cancelled") return t("cancelled");
    if (row.advancing) return t("advancing");
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
          el("td", { text: row.tied ? [status(row), t("(tied)")].filter(Boolean).join(" ") : status(row) }),
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
          el("th", { class: "num", text: t("Rank") }),
          el("th", { text: t("Entrant") }),
          el("th", { class: "num", text: t("Chips") }),
          el("th", { class: "num", text: t("Hands") }),
          el("th", { text: t("Status") }),
        ),
      ),
      body,
    );
  }

  function render(board) {
    state.board = board;
    $("#t-title").textContent = board.title ? t(board.title) : t("Tournament {id}", { id });
    document.title = `punto · ${board.title ? t(board.title) : id}`;
    $("#t-info").textContent = `${board.tournament} · ${board.format} · ${Punto.stageName(board.stage)}`;
    document.body.dataset.stage = board.stage;
    const s = board.session;
    const bets = s ? (s.max_bet ? `${chips(s.min_bet)}–${chips(s.max_bet)}` : t("{minimum} up", { minimum: chips(s.min_bet) })) : "";
    $("#t-session").textContent = s
      ? t("{name} (session {number}): {hands} hands, bets {bets}, at least {min_hands} hands", { name: t(s.name), number: s.number, hands: s.hands, bets, min_hands: s.min_hands })
      : t("Registration is open");
    $("#t-seq").textContent = String(board.seq);
    const settled = board.tables.reduce((sum, table) => sum + table.settled, 0);
    $("#t-settled").textContent = String(settled);
    const tb = $("#t-tiebreak");
    tb.classList.toggle("hidden", !board.tiebreak);
    tb.textContent = board.tiebreak ? t("Sudden death: {reason}", { reason: board.tiebreak.reason }) : "";
    const off = $("#t-cancelled");
    off.classList.toggle("hidden", !board.cancelled);
    off.textContent = board.cancelled
      ? t("Cancelled: {reason}. Every entry fee paid is given back (T8.4).", { reason: board.cancelled.reason })
      : "";

    const tables = $("#t-tables");
    tables.replaceChildren();
    for (const table of board.tables) {
      tables.append(
        el(
          "div",
          { testid: `t-table-${table.table}`, class: "t-table", "data-phase": table.phase },
          el("h3", { text: t("Table {table} · hand {settled} of {hands} settled", { table: table.table, settled: table.settled, hands: table.hands }) }),
          table.announcement ? el("p", { class: "t-announce", text: table.announcement }) : null,
          standingsTable(table.standings, `t-table-standings-${table.table}`),
        ),
      );
    }
    const overall = $("#t-overall-rows");
    overall.replaceChildren();
    // before the first session: the entrants registered, as they will start
    const registered = !(board.overall || []).length && board.stage === "registration" && state.snapshot
      ? (state.snapshot.entrants || []).map((e) => ({ ...e, rank: "–", chips: e.chips || (state.snapshot.format_rules || {}).starting_chips }))
      : [];
    const standing = (board.overall || []).length > 0;
    for (const row of standing ? board.overall : registered) {
      overall.append(
        el(
          "tr",
          // an entrant registered is not yet a standing
          { testid: standing ? "t-overall-row" : "t-entrant-row", "data-entrant": row.entrant },
          el("td", { class: "num", text: row.rank }),
          el("td", { text: row.name }),
          el("td", { class: "num", text: chips(row.chips) }),
          el("td", { class: "num", text: row.hands_required ? `${row.hands_bet}/${row.hands_required}` : "–" }),
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
          el("td", { text: t(r.reached) }),
          el("td", { class: "num", text: chips(r.chips) }),
          el("td", { class: "num", text: r.prize === "0.00" ? "" : money(r.prize) }),
        ),
      );
    }
    renderMe();
    renderStaff();
    renderFelt();
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
    const fee = reg.entry_fee ? t("Entry fee {fee} {currency}", { fee: money(reg.entry_fee), currency: rules.currency || "" }) : t("Free entry");
    const known = state.user.balance !== undefined && state.user.balance !== null;
    const balance = known ? " · " + t("your balance {balance}", { balance: money(state.user.balance) }) : "";
    $("#t-fee").textContent = `${fee}${balance}`;
    $("#t-entrant").classList.toggle("hidden", !e);
    if (e) {
      $("#t-my-chips").textContent = chips(e.chips);
      $("#t-my-table").textContent = e.table ? t("{table}, seat {seat}", { table: e.table, seat: e.seat }) : "–";
      $("#t-my-hands").textContent = `${e.hands_bet}/${e.hands_required}`;
      $("#t-my-status").textContent = e.must_bet ? [status(e), t("must bet")].filter(Boolean).join(" · ") : status(e);
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
    $("#t-hand").textContent = t("Hand {hand} of {hands}", { hand: table.hand, hands: table.hands }) + (table.announcement ? ` · ${table.announcement}` : "");
    const rules = state.snapshot.format_rules;
    const wagers = $("#t-wagers");
    if (wagers.dataset.wagers !== rules.wagers.join(",")) {
      wagers.dataset.wagers = rules.wagers.join(",");
      wagers.replaceChildren(el("legend", { text: t("Bet on") }));
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
    $("#t-limits").textContent = t("{minimum}–{maximum}, in {unit}s", { minimum: chips(s.min_bet), maximum: chips(most), unit: chips(rules.chip_unit) });
    buildChips(s.min_bet, most, rules.chip_unit);
    const mine = (table.bets || {})[e.entrant] || [];
    const passed = (table.passed || []).includes(e.entrant);
    $("#t-my-bet").textContent = mine.length
      ? t("Your bet: {bets}", { bets: mine.map((b) => `${WAGER_NAMES[b.wager] || b.wager} ${chips(b.stake)}`).join(", ") })
      : passed
        ? t("You sit this hand out")
        : t("No bet yet");
    $("#t-bet").textContent = mine.length ? t("Change bet") : t("Bet");
    $("#t-withdraw").disabled = !mine.length;
    $("#t-pass").disabled = mine.length > 0 || passed || e.must_bet;
  }

  function renderSudden(e) {
    const tb = (state.board || {}).tiebreak;
    const mine = !!e && !!tb && tb.entrants.includes(e.entrant) && !tb.chosen.includes(e.entrant);
    $("#t-sudden").classList.toggle("hidden", !mine);
    if (mine) $("#t-sudden-text").textContent = t("Sudden death {reason}: choose Banker or Player.", { reason: tb.reason });
  }

  function showResult(event) {
    const e = me();
    if (e && event && event.type === "hand_voided") {
      const stack = event.chips.find((c) => c.entrant === e.entrant);
      if (!stack) return;
      say(""); // the bet placed on the hand is gone with it
      $("#t-last-result").textContent = t("Hand {hand}: void ({clause}: {reason}) · every bet returned · chips {chips}", { hand: event.hand, clause: event.clause, reason: event.reason, chips: chips(stack.chips) });
      return;
    }
    if (!e || !event || event.type !== "hand_settled") return;
    const mine = event.results.find((r) => r.entrant === e.entrant);
    if (!mine) return;
    const key = `${event.session}:${event.table}:${event.hand}`;
    if (state.lastShown === key) return;
    state.lastShown = key;
    say(""); // what was said about the last hand's bet is stale now
    const net = mine.staked ? t("you {net}", { net: `${mine.net > 0 ? "+" : ""}${chips(mine.net)}` }) : t("you sat out");
    $("#t-last-result").textContent = t("Hand {hand}: {result} · {net} · chips {chips}", { hand: event.hand, result: handResult(event), net, chips: chips(mine.chips) });
  }

  // "Banker wins 9 to 5", "Tie 6": from the coup by side (the shoe order
  // before a server that sent it).
  function handResult(event) {
    const coup = event.coup;
    if (!coup) return event.winner === "tie" ? t("Tie") : t("{side} wins", { side: WAGER_NAMES[event.winner] || event.winner });
    return Punto.resultText({ winner: event.winner, player_total: coup.player.total, banker_total: coup.banker.total, natural: coup.natural });
  }

  // -- the felt: the hand at a table, as the player's page shows a coup ------------------------

  // The table on the felt: the player's own, else the one chosen, else the first.
  function feltTable() {
    const board = state.board;
    if (!board || !board.tables || !board.tables.length) return null;
    const mine = me();
    const number = (mine && mine.table) || state.watching || board.tables[0].table;
    return board.tables.find((x) => x.table === number) || board.tables[0];
  }

  // The last hand settled at a table as a round for Punto.renderHands: its
  // cards by side, totals and the winner.
  function asRound(event) {
    if (!event || !event.coup) return null;
    const cards = [];
    for (const side of ["player", "banker"]) for (const card of event.coup[side].cards) cards.push({ card, hand: side });
    return {
      phase: "settled",
      cards,
      player: event.coup.player,
      banker: event.coup.banker,
      result: { winner: event.winner, player_total: event.coup.player.total, banker_total: event.coup.banker.total, natural: event.coup.natural },
    };
  }

  function renderFelt() {
    const felt = $("#t-felt");
    const table = feltTable();
    felt.classList.toggle("hidden", !table);
    if (!table) return;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup());
    const board = state.board;
    const choose = $("#t-felt-choose");
    const numbers = board.tables.map((x) => String(x.table)).join(",");
    $("#t-felt-choose-box").classList.toggle("hidden", board.tables.length < 2 || !!(me() && me().table));
    if (choose.dataset.tables !== numbers) {
      choose.dataset.tables = numbers;
      choose.replaceChildren(...board.tables.map((x) => el("option", { value: String(x.table), text: t("Table {table}", { table: x.table }) })));
    }
    choose.value = String(table.table);
    $("#t-felt-table").textContent = String(table.table);
    const last = state.lastHands[table.table] || null;
    const betting = table.phase === "betting";
    const phases = { betting: t("Place your bets"), closed: t("No more bets"), idle: last ? t("Result") : t("Waiting for the first hand"), done: t("Session over") };
    const phase = $("#t-felt-title");
    phase.textContent = board.stage === "registration" ? t("Registration is open") : phases[table.phase] || Punto.words(table.phase);
    phase.dataset.phase = table.phase;
    $("#t-felt-hand").textContent = table.hands ? t("{hand} of {hands}", { hand: betting || table.phase === "closed" ? table.hand : Math.max(table.settled, 1), hands: table.hands }) : "–";
    // The cards of the last hand stay on the felt until the next is dealt.
    $("#t-felt-caption").textContent = last && last.coup ? [t("Hand {hand}", { hand: last.hand }), betting ? t("the next hand is being bet") : ""].filter(Boolean).join(" · ") : "";
    const round = asRound(last);
    Punto.renderHands($("#hands"), round);
    const banner = $("#result");
    banner.className = "result-banner";
    banner.replaceChildren();
    if (round) {
      banner.classList.add(round.result.winner);
      banner.append(el("span", { text: Punto.resultText(round.result) }));
      const e = me();
      const mine = e && last.results ? last.results.find((r) => r.entrant === e.entrant) : null;
      if (mine && mine.staked) {
        const net = `${mine.net > 0 ? "+" : mine.net < 0 ? "−" : ""}${chips(Math.abs(mine.net))}`;
        banner.append(el("span", { class: "banner-net", testid: "banner-net", text: t("you {net}", { net }) }));
      }
    }
  }

  // Chips to make up a stake: each press adds its value (a tournament's chips
  // are counted in its unit, between the session's minimum and the most allowed).
  function buildChips(minimum, most, unit) {
    const rack = $("#t-chips");
    const values = [1, 2, 5, 10, 25, 50, 100].map((k) => k * minimum).filter((v) => v <= most && v % unit === 0).slice(0, 6);
    const key = values.join(",");
    if (rack.dataset.values === key) return;
    rack.dataset.values = key;
    rack.replaceChildren(...values.map((value, i) => el("button", {
      type: "button", class: `chip c${i}`, testid: `t-chip-${value}`, text: value >= 1000 ? `${chips(value / 1000)}k` : chips(value),
      "aria-label": t("add {chips} chips", { chips: chips(value) }),
      onclick: () => {
        const stake = $("#t-stake");
        stake.value = String((Number(stake.value) || 0) + value);
      },
    })));
  }

  // -- actions -------------------------------------------------------------------------------

  async function act(method, path, body, headers) {
    if ($("#t-live").dataset.state === "closed") {
      say(t("Not connected to the tournament: nothing was sent. Wait until the connection is back."));
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
    for (const table of snap.tables || []) if (table.last_hand && table.last_hand.type === "hand_settled") state.lastHands[table.table] = table.last_hand;
    render(snap);
    for (const table of snap.tables || []) if (table.last_hand) showResult(table.last_hand);
  }

  function bindActions() {
    $("#t-register").addEventListener("click", async () => {
      say("");
      const result = await act("POST", "/register", undefined, { "Idempotency-Key": newKey() });
      if (result.ok) {
        say(result.data.fee ? t("Registered (entry fee {fee} paid)", { fee: money(result.data.fee) }) : t("Registered"), true);
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
        say(result.data.refund ? t("Entry taken back (entry fee {fee} given back)", { fee: money(result.data.refund) }) : t("Entry taken back"), true);
        await refreshUser();
        renderMe();
      }
    });
    $("#t-reenter").addEventListener("click", async () => {
      const result = await act("POST", "/reenter", undefined, { "Idempotency-Key": newKey() });
      if (result.ok) {
        say(t("Re-entered: {chips} chips", { chips: chips(result.data.chips) }), true);
        await refreshUser();
        renderMe();
      }
    });
    $("#t-play").addEventListener("submit", async (event) => {
      event.preventDefault();
      const chosen = document.querySelector('input[name="wager"]:checked');
      if (!chosen) {
        say(t("choose what to bet on"));
        return;
      }
      const stake = Number($("#t-stake").value);
      const table = myTable();
      const e = me();
      const replace = !!table && !!e && ((table.bets || {})[e.entrant] || []).length > 0;
      const result = await act("POST", "/bets", { bets: [{ wager: chosen.value, stake }], replace });
      if (result.ok) say(t("Bet placed"), true);
    });
    $("#t-withdraw").addEventListener("click", async () => {
      const result = await act("DELETE", "/bets");
      if (result.ok) say(t("Bet withdrawn"), true);
    });
    $("#t-pass").addEventListener("click", async () => {
      const result = await act("POST", "/bets", { pass_hand: true });
      if (result.ok) say(t("You sit this hand out"), true);
    });
    for (const side of ["banker", "player"]) {
      $(`#t-side-${side}`).addEventListener("click", async () => {
        const result = await act("POST", "/tiebreak", { side });
        if (result.ok) say(t("You chose {side}", { side: WAGER_NAMES[side] }), true);
      });
    }
    $("#t-stake-clear").addEventListener("click", () => {
      $("#t-stake").value = "";
    });
    $("#t-felt-choose").addEventListener("change", () => {
      state.watching = Number($("#t-felt-choose").value);
      renderFelt();
    });
    $("#t-board-link").href = `/tournaments/${encodeURIComponent(id)}/board`;
    const feltWindow = () => {
      const table = feltTable();
      return table ? state.windows[table.table] || null : null;
    };
    Punto.countdown($("#t-felt-countdown"), () => (feltWindow() ? feltWindow().deadline : null), () => (feltWindow() ? feltWindow().seconds : 0), $("#t-timer-bar"));
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
      if (data.event && data.event.type === "hand_settled") state.lastHands[data.event.table] = data.event;
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

  // The shared connection (live.js): the banner, the frozen countdowns, and
  // live again only with a fresh snapshot.
  function connect() {
    const live = $("#t-live");
    let seen = false;
    Punto.onLive((up) => {
      seen = seen || up;
      if (!seen) return; // still connecting the first time
      live.dataset.state = up ? "live" : "closed";
      live.textContent = up ? t("live") : t("reconnecting…");
      if (up && isPlayer()) refreshUser().then(renderMe);
    });
    Punto.connect(null, onMessage, (up, reason, code) => {
      if (!up && code === 4404) {
        live.textContent = t("no such tournament");
        live.dataset.state = "gone";
        $("#t-info").textContent = t("There is no tournament “{id}” here.", { id });
        $("#t-felt").classList.add("hidden");
      }
    }, `/ws/tournaments/${encodeURIComponent(id)}`);
  }

  async function start() {
    if (!id) {
      $("#t-info").textContent = t("no tournament in the address");
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

  Punto.ready.then(start);
})();
