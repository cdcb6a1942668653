// The player's page: log in, pick a chip, bet on the game's layout during
// the countdown (undo, clear, rebet), watch the coup card by card, take or
// pass Insurance Plus, see each bet's result and the net, follow the roads.
"use strict";

Punto.ready.then(() => {
  const { $, el, api, newKey, money, signed, t } = Punto;
  // a refusal in people's words, the wagers by their names at this table
  const errorText = (result) => Punto.errorText(result, nameOf);
  const table = Punto.tableId();
  const base = `/api/tables/${encodeURIComponent(table)}`;
  const CHIP_VALUES = [1, 5, 10, 25, 50, 100, 500, 1000, 5000, 10000, 25000];
  const say = Punto.sayer($("#message"));

  let state = null; // the latest `state` message
  let me = null; // the latest `me` (bets, balance, results, insurance caps)
  let user = null; // who is logged in
  let chip = null; // the chip value selected
  let chips = []; // the chip values of this table
  let built = ""; // the wagers the layout was built for
  let board = null; // the latest scoreboard
  let busy = false; // a bet is on its way
  const passed = new Set(); // Insurance offers passed: "round:moment:wager"
  const rebetKey = () => `punto:rebet:${table}:${user ? user.username : ""}`;

  // -- chips ---------------------------------------------------------------------------------

  function chipLabel(value) {
    return value >= 1000 ? `${Punto.count(value / 1000)}k` : Punto.count(value);
  }

  function buildChips(limits) {
    const low = Number(limits.minimum);
    const high = Number(limits.maximum);
    let values = CHIP_VALUES.filter((v) => v >= low && v <= high);
    if (!values.length) values = [low];
    if (values.length > 6) values = [0, 1, 2, 3, 4, 5].map((i) => values[Math.round((i * (values.length - 1)) / 5)]);
    if (values.join() === chips.join()) return;
    chips = values;
    if (!chips.includes(chip)) chip = chips[Math.min(1, chips.length - 1)];
    $("#chips").replaceChildren(...chips.map((value) =>
      el("button", {
        type: "button", class: `chip c${chips.indexOf(value)}`, role: "radio", text: chipLabel(value),
        dataset: { value: String(value) }, testid: `chip-${value}`, "aria-label": t("chip {value}", { value: money(value) }),
        onclick: () => { chip = value; renderChips(); },
      })));
    renderChips();
  }

  function renderChips() {
    for (const node of $("#chips").children) {
      const on = Number(node.dataset.value) === chip;
      node.classList.toggle("selected", on);
      node.setAttribute("aria-checked", on ? "true" : "false");
      node.tabIndex = on ? 0 : -1;
    }
  }

  $("#chips").addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step || !chips.length) return;
    event.preventDefault();
    chip = chips[(chips.indexOf(chip) + step + chips.length) % chips.length];
    renderChips();
    $(`[data-value="${chip}"]`, $("#chips")).focus();
  });

  // -- bets ----------------------------------------------------------------------------------

  // Bets sent while the connection was down and never answered: sent again,
  // with the same key, once the page is live again -- the answer then says
  // whether the server had it (the bet comes back) or not (refused or placed now).
  const unconfirmed = new Map(); // key -> { wager, stake, body }

  function betLabel(wager, stake) {
    return `${nameOf(wager)} ${money(stake)}`;
  }

  async function sendBet(key, wager, stake, body) {
    const result = await Punto.send("POST", `${base}/bets`, body, {
      key,
      pending: (text) => say(`${betLabel(wager, stake)}: ${text}`),
    });
    if (result.lost) {
      unconfirmed.set(key, { wager, stake, body });
      say(t("{bet}: not confirmed — the server could not be reached. It is asked again when the connection is back; until then your bets below are the last the server told.", { bet: betLabel(wager, stake) }));
      return null;
    }
    unconfirmed.delete(key);
    if (!result.ok) {
      say(t("{bet} not placed: {reason}", { bet: betLabel(wager, stake), reason: errorText(result) }));
      return null;
    }
    const placed = result.data.bet;
    say(t("{bet} placed.", { bet: betLabel(wager, placed.stake) }), true);
    $("#balance").textContent = money(result.data.balance);
    if (me && me.round_id === result.data.round_id && !me.bets.some((b) => b.bet_id === placed.bet_id)) {
      me = { ...me, bets: [...me.bets, placed], balance: result.data.balance };
      render();
    }
    return placed;
  }

  async function bet(wager, stake) {
    if (!user) return say(t("Log in to bet."));
    if (!Punto.isLive()) return say(t("Not connected to the table: no bet was sent. Wait until the connection is back."));
    if (busy) return;
    busy = true;
    say("");
    try {
      // the round on the screen: a bet delayed past it is refused, not put in the next one
      const body = { wager, stake: String(stake) };
      if (state && state.round) body.round_id = state.round.id;
      // The key is made now, when the player acted: every retry carries it.
      return await sendBet(newKey(), wager, stake, body);
    } finally {
      busy = false;
    }
  }

  async function confirmUnsent() {
    for (const [key, b] of [...unconfirmed]) await sendBet(key, b.wager, b.stake, b.body);
  }

  // MBS 5.18.1: the Dealer asks the players on the heavier hand to decrease
  // their wagers; a decrease comes back to the wallet.
  async function decrease(betId, stake) {
    if (!stake) return say(t("Give the smaller stake."));
    // Every action's key is made when the player acted; a retry carries it.
    const data = await Punto.perform("POST", `${base}/bets/${encodeURIComponent(betId)}/decrease`, { stake: String(stake) }, say, t("Decrease"));
    if (!data) return;
    $("#balance").textContent = money(data.balance);
    say(t("Decreased to {stake}: {returned} back.", { stake: money(data.bet.stake), returned: money(data.returned) }), true);
    if (me) {
      me = { ...me, balance: data.balance, bets: me.bets.map((b) => (b.bet_id === betId ? { ...b, stake: data.bet.stake } : b)) };
      render();
    }
  }

  async function withdraw(betId) {
    const data = await Punto.perform("DELETE", `${base}/bets/${encodeURIComponent(betId)}`, undefined, say, t("Taking the bet back"));
    if (!data) return false;
    $("#balance").textContent = money(data.balance);
    if (me && data.bet) {
      // Shown at once; the server's next `me` says the same.
      me = { ...me, balance: data.balance, bets: me.bets.map((b) => (b.bet_id === betId ? { ...b, ...data.bet } : b)) };
      render();
    }
    return true;
  }

  function myActiveBets() {
    return ((me && me.bets) || []).filter((b) => b.status === "active" && !isInsurance(b.wager));
  }

  $("#btn-undo").addEventListener("click", async () => {
    const bets = myActiveBets();
    if (!bets.length) return say(t("No bet to take back."));
    const last = bets[bets.length - 1];
    if (await withdraw(last.bet_id)) say(t("{bet} taken back.", { bet: betLabel(last.wager, last.stake) }), true);
  });

  $("#btn-clear").addEventListener("click", async () => {
    const bets = myActiveBets();
    if (!bets.length) return say(t("No bets to clear."));
    let done = 0;
    for (const b of bets) if (await withdraw(b.bet_id)) done++;
    if (done === bets.length) say(t("Your bets are cleared."), true);
  });

  $("#btn-rebet").addEventListener("click", async () => {
    let last = [];
    try {
      last = JSON.parse(localStorage.getItem(rebetKey()) || "[]");
    } catch (error) {
      last = [];
    }
    if (!last.length) return say(t("No bets of an earlier round to repeat."));
    for (const b of last) if (!(await bet(b.wager, b.stake))) return;
    say(t("Rebet: {bets}.", { bets: last.map((b) => betLabel(b.wager, b.stake)).join(", ") }), true);
  });

  // The bets of the latest round played are what Rebet repeats.
  function rememberBets() {
    if (!me || !state || !state.round || !user) return;
    const rows = me.results || me.bets || [];
    const bets = rows.filter((b) => !isInsurance(b.wager) && (b.status === "active" || b.outcome)).map((b) => ({ wager: b.wager, stake: b.stake }));
    if (bets.length && me.round_id === state.round.id && state.round.phase !== "betting") {
      localStorage.setItem(rebetKey(), JSON.stringify(bets));
    }
  }

  $("#withdraw-all").addEventListener("click", async () => {
    const data = await Punto.perform("POST", `${base}/withdrawal`, undefined, say, t("Withdrawal"));
    if (data) say(t("Your wagers were returned."), true);
  });

  // -- card handling (MBS 3.10, 3.12): the cards passed to me, the dealing device -------------

  async function handle(path, done, body) {
    const data = await Punto.perform("POST", `${base}/handling/${path}`, body, say, "");
    if (data) say(done, true);
  }

  function renderHandling(round) {
    const h = round && round.handling;
    const mine = me && me.username;
    const parts = [];
    if (h && mine) {
      for (const side of ["player", "banker"]) {
        if (h.squeezers[side] !== mine) continue;
        const name = Punto.SIDES[side].name;
        parts.push(el("p", { text: t("The {side} cards are passed to you to squeeze (clause 3.10.2).", { side: name }) }),
          el("button", { type: "button", class: "ghost", testid: `refuse-${side}`, text: t("Refuse the {side} cards", { side: name }),
            onclick: () => handle("refuse", t("You refused the {side} cards: the Dealer passes them on.", { side: name }), { hand: side }) }));
      }
      if (h.method === "C" && h.device === mine) {
        parts.push(el("p", { text: t("You control the dealing device (clause 3.12.8).") }),
          el("button", { type: "button", class: "ghost", testid: "relinquish-device", text: t("Relinquish the device"),
            disabled: round.phase === "dealing" || round.phase === "result",
            onclick: () => handle("relinquish-device", t("You relinquished the dealing device.")) }));
      } else if (h.method === "C" && !h.device && round.phase === "betting") {
        parts.push(el("button", { type: "button", class: "ghost", testid: "take-device", text: t("Take the dealing device (clause 3.12.1)"),
          onclick: () => handle("take-device", t("You control the dealing device: draw the cards.")) }));
      }
    }
    $("#handling").replaceChildren(...parts);
    $("#handling").classList.toggle("hidden", !parts.length);
  }

  // -- the layout ------------------------------------------------------------------------------

  function wagers() {
    return (state && state.table.wagers) || [];
  }
  function isInsurance(id) {
    const w = wagers().find((x) => x.id === id);
    return w ? !!w.insures : /_insurance$/.test(id);
  }
  function nameOf(id) {
    const w = wagers().find((x) => x.id === id);
    return Punto.wagerName(w ? w.name : Punto.words(id));
  }

  function area(w, big) {
    const lines = Punto.paysLines(w.pays);
    return el("button", {
      type: "button", class: `area ${Punto.areaSide(w.id)} ${big ? "main" : ""}`, testid: `area-${w.id}`,
      dataset: { wager: w.id }, "aria-describedby": `pays-${w.id}`,
      title: t("{name}: {pays} · clause {clause} · limits {minimum}–{maximum}", { name: nameOf(w.id), pays: lines.join(", "), clause: w.clause, minimum: money(w.minimum), maximum: money(w.maximum) }),
      onclick: () => bet(w.id, chip),
    },
    el("span", { class: "name", text: nameOf(w.id) }),
    el("span", { class: "pays", id: `pays-${w.id}` }, lines.map((l) => el("span", { text: l }))),
    el("span", { class: "stake", testid: `mine-${w.id}`, "aria-label": t("my bet on {name}", { name: nameOf(w.id) }) }),
    el("span", { class: "table-total", testid: `total-${w.id}` }));
  }

  function buildLayout() {
    const list = wagers().filter((w) => !w.insures);
    const key = list.map((w) => w.id).join(",");
    if (key === built) return;
    built = key;
    const groups = { "player-side": [], "centre-side": [], "banker-side": [] };
    const main = [];
    for (const w of list) {
      const side = Punto.areaSide(w.id);
      if (side === "player" || side === "banker" || side === "tie") main.push(w);
      else groups[side].push(w);
    }
    const order = { player: 0, tie: 1, banker: 2 };
    main.sort((a, b) => order[a.id] - order[b.id]);
    const columns = Object.entries(groups).filter(([, ws]) => ws.length);
    $("#layout").replaceChildren(
      el("div", { class: `side-bets cols-${columns.length}` }, columns.map(([side, ws]) => el("div", { class: `column ${side}` }, ws.map((w) => area(w, false))))),
      el("div", { class: "main-bets" }, main.map((w) => area(w, true))));
  }

  function renderLayout() {
    buildLayout();
    const round = state.round;
    const betting = !!round && round.phase === "betting" && Punto.isLive();
    const result = round && round.result;
    const mine = {};
    const returned = round && round.phase === "void";
    for (const b of (!returned && me && me.bets) || []) if (b.status === "active" || b.status === "settled") mine[b.wager] = (mine[b.wager] || 0) + Punto.cents(b.stake);
    const totals = (round && round.totals) || {};
    $("#layout").classList.toggle("open", betting && !!user);
    for (const w of wagers().filter((x) => !x.insures)) {
      const node = $(`[data-testid="area-${w.id}"]`);
      if (!node) continue;
      node.disabled = !betting || !user;
      const outcome = result ? Punto.areaOutcome(w, result.areas) : "";
      node.classList.toggle("won", outcome === "won");
      node.classList.toggle("push", outcome === "push");
      node.classList.toggle("lost", outcome === "lost");
      const outcomes = { won: t("won"), push: t("push"), lost: t("lost") };
      const label = [nameOf(w.id), mine[w.id] ? t("my bet {stake}", { stake: money(Punto.fromCents(mine[w.id])) }) : "", outcomes[outcome] || "", betting && user ? t("press to bet {stake}", { stake: money(chip) }) : ""];
      node.setAttribute("aria-label", label.filter(Boolean).join(", "));
      const stake = $(".stake", node);
      stake.textContent = mine[w.id] ? money(Punto.fromCents(mine[w.id])) : "";
      stake.classList.toggle("on", !!mine[w.id]);
      $(".table-total", node).textContent = totals[w.id] ? t("table {total}", { total: money(totals[w.id]) }) : "";
    }
  }

  // -- my bets and results ------------------------------------------------------------------------

  // Whether the Dealer asks this wager's hand to decrease now (5.18.1).
  function asked(b) {
    const request = state && state.round && state.round.differential && state.round.differential.request;
    return !!request && request.decrease === b.wager;
  }

  const drafts = {}; // the stakes being typed, kept across renders
  function decreaseControl(b) {
    const input = el("input", { type: "number", class: "small", min: "0.01", step: "0.01", value: drafts[b.bet_id] || "", testid: `decrease-stake-${b.bet_id}`, "aria-label": t("new stake for {bet}", { bet: betLabel(b.wager, b.stake) }), oninput: () => { drafts[b.bet_id] = input.value; } });
    return el("span", { class: "decrease" }, input,
      el("button", { type: "button", class: "small", testid: `decrease-${b.bet_id}`, text: t("Decrease"), onclick: () => decrease(b.bet_id, input.value.trim()) }));
  }

  // One line per wager (and Insurance moment): each chip put on an area is a
  // bet of its own on the server, but the player put them on one area.
  function lines(rows) {
    const byArea = new Map();
    for (const row of rows) {
      const key = `${row.wager}|${row.moment || ""}|${row.status || ""}`;
      if (!byArea.has(key)) byArea.set(key, []);
      byArea.get(key).push(row);
    }
    return [...byArea.values()].map((group) => ({
      ...group[0],
      bets: group,
      stake: Punto.fromCents(group.reduce((sum, b) => sum + Punto.cents(b.stake), 0)),
      payout: group[0].payout === undefined ? undefined : Punto.fromCents(group.reduce((sum, b) => sum + Punto.cents(b.payout), 0)),
    }));
  }

  function wagerText(row) {
    return nameOf(row.wager) + (row.moment ? ` (${t(Punto.eventWords(row.moment))})` : "");
  }

  async function takeBack(line) {
    let done = 0;
    for (const b of line.bets) if (await withdraw(b.bet_id)) done++;
    if (done === line.bets.length) say(t("{bet} taken back.", { bet: betLabel(line.wager, line.stake) }), true);
  }

  function renderMine() {
    const list = $("#my-bets");
    const round = state && state.round;
    const results = me && me.results;
    const rows = [];
    const outcomes = { win: t("won"), lose: t("lost"), push: t("push") };
    const statuses = { active: t("active"), settled: t("settled"), withdrawn: t("withdrawn"), returned: t("returned"), void: t("void") };
    let net = null;
    if (results) {
      net = 0;
      for (const r of lines(results)) {
        const change = Punto.cents(r.payout) - Punto.cents(r.stake);
        net += change;
        const shown = outcomes[r.outcome] || Punto.words(r.outcome);
        rows.push(el("tr", { testid: "my-result", dataset: { bet: r.bet_id, outcome: r.outcome, wager: r.wager } },
          el("td", { text: wagerText(r) }),
          el("td", { class: "num", text: money(r.stake) }),
          el("td", { class: `outcome ${r.outcome}`, text: `${shown}${r.event && !["win", "tie", "hand_loses"].includes(r.event) ? ` · ${t(Punto.eventWords(r.event))}` : ""}` }),
          el("td", { class: `num ${change > 0 ? "win" : change < 0 ? "lose" : ""}`, testid: "my-result-net", text: signed(Punto.fromCents(change)) })));
      }
    } else {
      for (const b of lines((me && me.bets) || [])) {
        const label = betLabel(b.wager, b.stake);
        rows.push(el("tr", { testid: "my-bet", dataset: { bet: b.bet_id, status: b.status, wager: b.wager, count: String(b.bets.length) } },
          el("td", { text: wagerText(b) }),
          el("td", { class: "num", text: money(b.stake) }),
          el("td", { text: statuses[b.status] || Punto.words(b.status) }),
          el("td", { class: "num" }, round && round.phase === "betting" && b.status === "active" && !isInsurance(b.wager)
            ? [el("button", { type: "button", class: "ghost small", testid: `withdraw-${b.bet_id}`, text: t("Take back"), "aria-label": t("take back {bet}", { bet: label }), onclick: () => takeBack(b) }),
              b.bets.length === 1 && asked(b) ? decreaseControl(b) : null]
            : "")));
      }
    }
    const head = el("tr", {}, el("th", { scope: "col", text: t("Wager") }), el("th", { scope: "col", class: "num", text: t("Stake") }), el("th", { scope: "col", text: results ? t("Outcome") : t("Status") }), el("th", { scope: "col", class: "num", text: results ? t("Net") : "" }));
    const empty = user ? (user.role === "player" ? t("No bets this round.") : t("Only players bet.")) : t("Log in to bet.");
    list.replaceChildren(head, ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 4, class: "empty", text: empty }))]));
    const line = $("#net");
    const returned = results && results.length && results.every((r) => !["win", "lose", "push"].includes(r.outcome));
    if (returned) {
      line.textContent = t("Stakes returned: {amount}", { amount: money(Punto.fromCents(results.reduce((sum, r) => sum + Punto.cents(r.payout), 0))) });
      line.className = "net";
      line.dataset.net = "0.00";
    } else if (net !== null && results.length) {
      line.textContent = netText(net);
      line.className = `net ${net > 0 ? "win" : net < 0 ? "lose" : ""}`;
      line.dataset.net = Punto.fromCents(net);
    } else {
      const staked = ((me && me.bets) || []).filter((b) => b.status === "active").reduce((sum, b) => sum + Punto.cents(b.stake), 0);
      line.textContent = staked ? t("On the table: {amount}", { amount: money(Punto.fromCents(staked)) }) : "";
      line.className = "net";
      delete line.dataset.net;
    }
  }

  // "You win +75.00", "You lose −25.00", "Net 0.00"
  function netText(net) {
    const amount = signed(Punto.fromCents(net));
    if (net > 0) return t("You win {amount}", { amount });
    if (net < 0) return t("You lose {amount}", { amount });
    return t("Net {amount}", { amount });
  }

  // -- Insurance Plus -----------------------------------------------------------------------------

  function renderInsurance() {
    const box = $("#insurance");
    const round = state && state.round;
    const insurance = round && round.insurance;
    if (!insurance || !insurance.offers.length) {
      box.classList.add("hidden");
      return;
    }
    const caps = (me && me.insurance_caps) || {};
    const key = (o) => `${round.id}:${o.moment}:${o.wager}`;
    const open = insurance.offers.filter((o) => !passed.has(key(o)));
    box.classList.toggle("hidden", !open.length);
    const offers = $("#offers");
    const shown = open.map((o) => `${key(o)}=${caps[o.wager] || ""}`).join("|");
    if (offers.dataset.shown === shown) return; // keep what the player is typing
    offers.dataset.shown = shown;
    offers.replaceChildren(...open.map((o) => {
      const cap = caps[o.wager];
      const side = Punto.SIDES[o.insures].name;
      const taken = ((me && me.bets) || []).filter((b) => b.wager === o.wager && b.moment === o.moment && b.status === "active");
      const stakeId = `insurance-stake-${o.wager}`;
      // (each message its own call: Babel's extractor does not see one nested in another's arguments)
      const moment = o.moment === "four_cards" ? t("after four cards") : t("after the Player's third card");
      const stake = el("input", { id: stakeId, type: "number", inputmode: "decimal", min: "0.01", step: "0.01", max: cap || null, value: cap ? String(Math.min(Number(cap), chip || Number(cap))) : "", testid: stakeId });
      const take = async () => {
        const placed = await bet(o.wager, stake.value);
        if (placed) say(t("{side} insured for {stake} at {odds}.", { side, stake: money(placed.stake), odds: o.odds }), true);
      };
      return el("div", { class: `offer ${o.insures}`, testid: `offer-${o.wager}`, dataset: { moment: o.moment } },
        el("div", { class: "offer-title" },
          el("strong", { text: nameOf(o.wager) }),
          el("span", { class: "offer-odds", testid: `offer-odds-${o.wager}`, text: t("pays {odds}", { odds: o.odds }) })),
        el("div", { class: "offer-detail", text: t("{player} {player_points} v {banker} {banker_points} · {moment} · clause {clause}", {
          player: Punto.SIDES.player.name, banker: Punto.SIDES.banker.name, player_points: o.player_points, banker_points: o.banker_points, clause: o.clause, moment }) }),
        taken.length ? el("div", { class: "offer-taken", testid: `offer-taken-${o.wager}`, text: t("Insured {stake}", { stake: money(Punto.fromCents(taken.reduce((sum, b) => sum + Punto.cents(b.stake), 0))) }) }) : "",
        cap
          ? el("div", { class: "offer-actions" },
            el("label", { for: stakeId, text: t("Stake") }), stake,
            el("span", { class: "offer-cap", testid: `offer-cap-${o.wager}`, text: t("up to {cap}", { cap: money(cap) }) }),
            el("button", { type: "button", testid: `insure-${o.wager}`, text: t("Take"), onclick: take }),
            el("button", { type: "button", class: "ghost", testid: `pass-${o.wager}`, text: t("Pass"), onclick: () => { passed.add(key(o)); renderInsurance(); } }))
          : el("div", { class: "offer-detail muted", text: user ? (taken.length ? t("Insured to the cap.") : t("Needs an Original Bet on the {side}.", { side })) : t("Log in to insure.") }));
    }));
  }

  // -- the whole page ----------------------------------------------------------------------------

  function renderLast() {
    const results = (board && board.results) || [];
    const letter = { banker: t("B"), player: t("P"), tie: t("T") };
    $("#last-results").replaceChildren(...results.slice(-12).reverse().map((r, i) =>
      el("li", { class: `last ${r.winner}`, testid: "last-result", title: Punto.resultText(r) },
        el("span", { class: "dot", text: letter[r.winner] }),
        r.player_total === null || r.player_total === undefined ? "" : el("span", { class: "score", text: `${t("P")} ${r.player_total} · ${t("B")} ${r.banker_total}` }),
        r.player_pair ? el("span", { class: "flag ppair", text: t("P pair") }) : "",
        r.banker_pair ? el("span", { class: "flag bpair", text: t("B pair") }) : "",
        r.natural ? el("span", { class: "flag", text: t("natural") }) : "",
        i === 0 ? el("span", { class: "flag latest", text: t("latest") }) : "")));
    if (!results.length) $("#last-results").append(el("li", { class: "empty", text: t("No coups yet in this shoe.") }));
  }

  function renderRoads() {
    if (!board) return;
    const root = $("#roads");
    const width = root.clientWidth || 600;
    const wide = width > 700;
    const cell = wide ? 24 : 18;
    const three = true;
    Punto.renderRoads(root, board, {
      wide, three,
      bead: Math.max(6, Math.floor((wide ? width / 3 : width) / cell)),
      big: Math.max(12, Math.floor((wide ? (width * 2) / 3 : width) / cell)),
      derived: Math.max(6, Math.floor(width / 3 / (wide ? 16 : 13))),
    });
  }

  function render() {
    if (!state) return;
    const table = state.table;
    const round = state.round;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup());
    if (me && round && me.round_id !== round.id) me = { ...me, bets: [], results: null, insurance_caps: {}, may_withdraw: false, round_id: round.id };
    document.title = `punto · ${table.name}`;
    $("#table-name").textContent = table.name;
    const info = [table.layout ? t("{game} · layout {layout}", { game: t(table.game_title), layout: table.layout }) : t(table.game_title),
      t("limits {minimum}–{maximum}", { minimum: money(table.limits.minimum), maximum: money(table.limits.maximum) })];
    if (table.limits.differential) info.push(t("differential {amount}", { amount: money(table.limits.differential) }));
    $("#table-info").textContent = info.join(" · ");
    buildChips(table.limits);
    const phase = $("#phase");
    const noMoreBets = round && round.phase === "dealing" && !round.cards.length;
    phase.textContent = noMoreBets ? t("No more bets") : Punto.phaseText(round);
    phase.dataset.phase = round ? round.phase : "";
    $("#round-id").textContent = round ? round.id : "–";
    $("#shoe").textContent = state.shoe.id ? Punto.tn("{n} card", "{n} cards", state.shoe.cards_left) : t("new");
    Punto.renderHands($("#hands"), round);
    const banner = $("#result");
    banner.className = "result-banner";
    if (round && round.result) {
      banner.replaceChildren(el("span", { text: Punto.resultText(round.result) }));
      banner.classList.add(round.result.winner);
      const net = me && me.results && me.results.length ? me.results.reduce((sum, r) => sum + Punto.cents(r.payout) - Punto.cents(r.stake), 0) : null;
      if (net !== null) banner.append(el("span", { class: "banner-net", testid: "banner-net", text: netText(net) }));
    } else if (round && round.void) {
      banner.textContent = t("Round void: {reason} (clause {clause}). Every bet is returned.", { reason: round.void.reason, clause: round.void.clause });
      banner.classList.add("void");
    } else if (round && round.ruling_pending) {
      // filed by one person, waiting for a second (MBS 6.2): nothing has moved
      banner.textContent = t("A ruling is pending (clause {clause}): play waits for the pit's decision.", { clause: round.ruling_pending.clause });
      banner.classList.add("void");
    } else if (round && round.power_failed) {
      banner.textContent = t("Power failure: play is interrupted.");
      banner.classList.add("void");
    } else {
      banner.textContent = "";
    }
    const withdrawal = round && round.withdrawal;
    $("#withdrawal").classList.toggle("hidden", !withdrawal || !(me && me.may_withdraw));
    if (withdrawal) $("#withdrawal-text").textContent = t("{reason} (clause {clause}): you may withdraw all your wagers.", { reason: withdrawal.reason, clause: withdrawal.clause });
    renderHandling(round);
    const request = round && round.differential && round.differential.request;
    $("#differential").classList.toggle("hidden", !request);
    if (request) $("#differential-text").textContent = `${request.text.charAt(0).toUpperCase()}${request.text.slice(1)}.`;
    const notice = table.insurance_notice;
    $("#insurance-notice").classList.toggle("hidden", !notice);
    $("#insurance-notice").textContent = notice ? `${t("{text} (clause {clause})", { text: notice.text, clause: notice.clause })}.` : "";
    if (me) $("#balance").textContent = money(me.balance);
    const betting = !!round && round.phase === "betting" && !!user && Punto.isLive();
    for (const id of ["#btn-undo", "#btn-clear", "#btn-rebet"]) $(id).disabled = !betting;
    $("#withdraw-all").disabled = !Punto.isLive();
    renderLayout();
    renderMine();
    renderInsurance();
    rememberBets();
  }

  // No countdown while an exceeded differential holds betting open (MBS 5.18): it
  // closes once the players or the pit have met it, not at a time.
  const held = (round) => !!round.differential && round.differential.asked && round.differential.exceeded;
  const bettingDeadline = () => (state && state.round && state.round.phase === "betting" && !held(state.round) ? state.round.deadline : null);
  Punto.countdown($("#countdown"), bettingDeadline, () => state && state.table.betting_seconds, $("#timer-bar"));
  Punto.countdown($("#insurance-countdown"), () => (state && state.round && state.round.insurance ? state.round.insurance.ends : null));

  // After a reconnection: what the rules did to the round on the screen, and
  // the bets never answered asked again.
  Punto.onReconnect(() => state && state.round, render, say, {
    ended: t("Your balance and bets shown are the server's."),
    void: t("Every bet is returned."),
    withdrawal: t("You may withdraw all your wagers, or leave them to play on."),
    betting: t("Your bets and balance are the server's."),
  }, () => {
    if (unconfirmed.size) confirmUnsent();
  });

  let socket = null;
  const login = Punto.loginBox($("#login"), (who) => {
    const changed = (who && who.username) !== (user && user.username);
    user = who;
    if (!who) {
      me = null;
      $("#balance").textContent = "–";
    }
    if (who && who.role !== "player") say(t("A {role} watches; only players bet.", { role: Punto.roleName(who.role) }));
    $(".wallet").classList.toggle("hidden", !who || who.role !== "player");
    if (socket && changed) socket.reconnect();
    render();
  });

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderRoads, 150);
  });

  login.refresh().then(() => {
    socket = Punto.connect(table, (m) => {
      switch (m.type) {
        case "state":
          state = m;
          if (m.me) me = m.me;
          else if (!user || user.role !== "player") me = null;
          render();
          break;
        case "me":
          me = m.me;
          render();
          break;
        case "scoreboard":
          board = m.scoreboard;
          renderRoads();
          renderLast();
          break;
        case "betting_open":
          say(t("Place your bets, please."), true);
          break;
        case "betting_closed":
          say(t("No more bets."));
          break;
        case "card":
          if (Punto.applyCard(state, m)) render();
          break;
        case "results":
          say("");
          break;
        case "round_void":
          say("");
          break;
        default:
          break;
      }
    }, (up, reason, code) => {
      if (!up && code === 4404) {
        // no table to connect to: the page says so, and nothing of a round
        const phase = $("#phase");
        phase.textContent = Punto.noSuchTable(table);
        phase.dataset.phase = "gone";
        $("#table-name").textContent = t("No such table");
        document.body.classList.add("no-table");
        say("");
        $("#message").replaceChildren(el("a", { href: "/", testid: "link-tables", text: t("See the tables that are running") }));
      }
    });
  });
});
