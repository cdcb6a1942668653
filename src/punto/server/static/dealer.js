// The dealer console: open and close betting, draw from the shoe or key
// cards in (keyboard or keypad), the Insurance Plus windows, settle, and the
// irregularities (void, power failure, withdrawal, and every procedure of the
// rules through /irregularities, its form made from the parameter kinds),
// each ruling that moves money filed as a claim for the pit to confirm.
"use strict";

(() => {
  const { $, el, api, errorText, money, words } = Punto;
  const table = Punto.tableId();
  const base = `/api/tables/${encodeURIComponent(table)}`;
  const say = Punto.sayer($("#message"));
  let state = null;
  let staff = null;
  let user = null;

  async function act(path, body, done) {
    if (!Punto.isLive()) {
      say("Not connected to the table: nothing was sent. Wait until the connection is back.");
      return null;
    }
    // Every action carries a key made now, when the dealer acted: sent again
    // with it while no answer comes, the server does it once (a second deal
    // is never a second card) and answers a retry as it answered the first.
    const key = (body && body.idempotency_key) || Punto.newKey();
    const data = await Punto.perform("POST", `${base}${path}`, body, say, "", { key });
    if (data) say(done || "Done.", true);
    return data;
  }

  // "King of spades to the Banker."
  function dealt(data) {
    if (!data.card) return `The cut card came out first: the players may withdraw their wagers (clause ${data.withdrawal}).`;
    const name = Punto.cardName(data.card);
    const hand = Punto.SIDES[data.hand] ? Punto.SIDES[data.hand].name : data.hand;
    return `${name[0].toUpperCase()}${name.slice(1)} to the ${hand}${data.complete ? ": the coup is complete" : ""}.`;
  }

  // A ruling that moves money after "No more bets" is filed (202) and waits
  // for a second person on the pit page (MBS 6.2).
  function filed(data) {
    const c = data.claim;
    return `Filed: ${words(c.procedure)} under clause ${c.clause} waits for a ${words(c.confirming)}'s confirmation on the pit page (claim ${c.claim_id}). The round waits.`;
  }

  $("#btn-withdraw-claim").addEventListener("click", async () => {
    const claim = staff && staff.claim;
    if (!claim) return say("No claim is pending.");
    if (!window.confirm(`Withdraw claim ${claim.claim_id} (${words(claim.procedure)})? Nothing will have moved.`)) return;
    await act(`/claims/${encodeURIComponent(claim.claim_id)}/reject`, { reason: "withdrawn at the table" },
      `Claim ${claim.claim_id} withdrawn: nothing moved, the round goes on.`);
  });

  $("#btn-open").addEventListener("click", () => act("/round/open", undefined, "Place your bets, please."));
  $("#btn-close").addEventListener("click", async () => {
    const data = await act("/round/close", undefined, "No more bets.");
    if (data && data.rejected && data.rejected.length) say(`No more bets. Over the differential, returned: ${data.rejected.join(", ")}.`, true);
  });
  $("#btn-draw").addEventListener("click", async () => {
    const data = await act("/round/deal");
    if (data) say(dealt(data), true);
  });
  $("#btn-settle").addEventListener("click", async () => {
    const data = await act("/round/settle", undefined);
    if (data) say(`${Punto.resultText(data)}. Settled.`, true);
  });
  // Card handling (MBS 3.9-3.12): the Dealer passes a hand's cards to the
  // player the amounts name; the pit chooses the Method between rounds.
  for (const side of ["player", "banker"]) {
    $(`#btn-pass-${side}`).addEventListener("click", async () => {
      const data = await act("/handling/pass", { hand: side, idempotency_key: Punto.newKey() });
      if (data) say(`The ${Punto.SIDES[side].name} cards to ${data.handling.squeezers[side]}.`, true);
    });
  }
  $("#method-select").addEventListener("change", () => render());
  $("#btn-method").addEventListener("click", async () => {
    const method = $("#method-select").value;
    const data = await act("/handling/method", { method, idempotency_key: Punto.newKey() });
    if (data) say(`Method ${data.method} from the next round (clause 3.9.2).`, true);
  });
  $("#btn-close-withdrawal").addEventListener("click", () => act("/round/withdrawal/close", undefined, "Withdrawal option closed."));

  // keying cards: type them, or tap a rank and a suit on the keypad
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
  let rank = "";
  function pressRank(value) {
    rank = rank === value ? "" : value;
    for (const node of $("#ranks").children) node.setAttribute("aria-pressed", node.dataset.rank === rank ? "true" : "false");
    $("#card-input").value = rank;
  }
  function pressSuit(value) {
    const input = $("#card-input");
    const typed = input.value.trim().toUpperCase().replace(/[SHDC♠♥♦♣]$/, "");
    if (!typed) return say("Pick the rank first.");
    rank = "";
    for (const node of $("#ranks").children) node.setAttribute("aria-pressed", "false");
    input.value = `${typed}${value}`;
    $("#key-form").requestSubmit();
  }
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  $("#ranks").append(...RANKS.map((r) => el("button", { type: "button", class: "rank", dataset: { rank: r }, testid: `key-${r}`, "aria-pressed": "false", text: r, "aria-label": `rank ${r}`, onclick: () => pressRank(r) })));
  $("#suits").append(...SUITS.map(([s, sym]) => el("button", { type: "button", class: `suit ${s === "H" || s === "D" ? "red" : ""}`, testid: `key-${s}`, text: sym, "aria-label": `deal the ${SUIT_NAMES[s].slice(0, -1)} of the rank keyed`, onclick: () => pressSuit(s) })));

  $("#key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("#card-input");
    const text = input.value.trim();
    if (!text) return say("Key a card, e.g. QH or 10S.");
    const data = await act("/round/deal", { card: text });
    if (data) {
      say(dealt(data), true);
      if (input.value.trim() === text) input.value = ""; // unless the next card is keyed already
    }
    input.focus();
  });

  $("#btn-void").addEventListener("click", async () => {
    const reason = $("#void-reason").value.trim();
    if (!reason) {
      $("#void-reason").focus();
      return say("Give the reason for the void.");
    }
    // The Gaming Shift Manager's decision (MBS 6.1; RWS 5.19): no clause by hand.
    const data = await act("/round/void", { reason }, "The round is void: every bet is returned.");
    if (data && data.pending) say(filed(data), true);
    if (data) $("#void-reason").value = "";
  });
  $("#btn-replace-shoe").addEventListener("click", async () => {
    const clause = state && state.shoe.replacement_due;
    if (!clause) return say("No rule calls for the cards to be replaced now.");
    const data = await act("/shoe/replace", { clause }, `The cards are replaced (clause ${clause}): a new shoe.`);
    if (data) say(`New shoe ${data.shoe_id}, commitment ${data.commitment.slice(0, 16)}…`, true);
  });
  $("#btn-power-failure").addEventListener("click", async () => {
    const data = await act("/round/power-failure");
    if (data) say(data.pending ? filed(data) : `Power failure: ${words(data.consequence)}.`, true);
  });

  // The procedures of the rules (sections 5 and 6): the list comes from the
  // server, the form from each parameter's kind, the values go as a replay
  // file writes them (docs/replay.md).
  let procedures = [];
  let loadedFor = null;
  async function loadProcedures() {
    const who = user && user.username;
    if (loadedFor === who) return;
    loadedFor = who;
    procedures = [];
    if (Punto.isStaff(user)) {
      const result = await api("GET", `${base}/irregularities`);
      if (result.ok) procedures = result.data.procedures;
    }
    const select = $("#irr-select");
    select.replaceChildren(
      el("option", { value: "", text: procedures.length ? "Choose the irregularity…" : "Log in as a dealer to see the procedures" }),
      ...procedures.map((p) => el("option", { value: p.name, text: words(p.name) })));
    showProcedure();
  }

  const KIND_PLACEHOLDERS = {
    "cards": "e.g. QH 2C", "cards?": "e.g. QH 2C", "cards_with_gaps": "e.g. QH ? 2C", "shoe": "empty: the table's shoe",
    "card?": "e.g. QH", "players": "e.g. ann, bob", "players?": "e.g. ann, bob", "sides?": "e.g. ann:player bob:banker",
  };

  function paramField(p) {
    const id = `irr-param-${p.name}`;
    const label = `${words(p.name)}${p.required ? "" : " (optional)"}`;
    if (p.kind === "flag") {
      return el("div", { class: "field check" },
        el("label", { for: id }, el("input", { type: "checkbox", id, testid: id, dataset: { param: p.name, kind: p.kind }, checked: p.default === true }), ` ${label}`));
    }
    let input;
    if (p.kind === "moment?") {
      input = el("select", { id, testid: id, dataset: { param: p.name, kind: p.kind } },
        el("option", { value: "", text: "the last one missed" }),
        el("option", { value: "four_cards", text: "after four cards" }),
        el("option", { value: "player_third_card", text: "after the Player's third card" }));
    } else {
      const number = p.kind === "int" || p.kind === "position";
      input = el("input", {
        id, testid: id, type: number ? "number" : "text", inputmode: number ? "numeric" : null,
        autocomplete: "off", autocapitalize: /card|shoe/.test(p.kind) ? "characters" : "off", spellcheck: "false",
        maxlength: "2000", placeholder: KIND_PLACEHOLDERS[p.kind] || p.help, dataset: { param: p.name, kind: p.kind },
      });
      if (p.default !== null && p.default !== undefined && typeof p.default !== "object") input.value = String(p.default);
    }
    return el("div", { class: "field" }, el("label", { for: id, text: label }), input, el("small", { class: "muted", text: p.help }));
  }

  function showProcedure() {
    const chosen = procedures.find((p) => p.name === $("#irr-select").value);
    $("#irr-summary").textContent = chosen ? chosen.summary : "";
    $("#irr-params").replaceChildren(...(chosen ? chosen.params.map(paramField) : []));
    $("#btn-irregularity").disabled = !chosen;
  }
  $("#irr-select").addEventListener("change", showProcedure);

  // A form value in the JSON form the procedure's parameter reads; undefined: not given.
  function paramValue(node) {
    const kind = node.dataset.kind;
    if (kind === "flag") return node.checked;
    const text = node.value.trim();
    if (!text) return undefined;
    if (kind === "int" || kind === "position") return /^-?\d+$/.test(text) ? Number(text) : text;
    if (kind === "players" || kind === "players?") return text.split(/[\s,]+/).filter(Boolean);
    if (kind === "shoe" && /^\d+$/.test(text)) return Number(text);
    if (kind === "sides?") {
      const sides = {};
      for (const item of text.split(/[\s,]+/).filter(Boolean)) {
        const [player, side] = item.split(":");
        sides[player] = (side || "").toLowerCase();
      }
      return sides;
    }
    return text;
  }

  function rulingText(name, data) {
    const r = data.ruling;
    const title = words(name);
    const parts = [`${title.charAt(0).toUpperCase()}${title.slice(1)}: ruling under clause ${r.clause}, ${words(r.consequence)}`];
    if (r.withdrawn && r.withdrawn.length) parts.push(`withdrawn (wagers returned): ${r.withdrawn.join(", ")}`);
    if (r.returned && r.returned.length) parts.push(`bets returned: ${r.returned.join(", ")}`);
    if (r.next_round && r.next_round.length) parts.push(`held for the next round, dealt first: ${r.next_round.join(" ")}`);
    if (r.missing && r.missing.length) parts.push(`missing, replaced: ${r.missing.join(" ")}`);
    if (r.unused && r.unused.length) parts.push(`set aside, unused: ${r.unused.join(" ")}`);
    if (data.void) parts.push("the round is void: every bet is returned");
    return `${parts.join("; ")}.`;
  }

  $("#irr-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("#irr-select").value;
    if (!name) return say("Choose the irregularity.");
    const body = {};
    for (const node of $("#irr-params").querySelectorAll("[data-param]")) {
      const value = paramValue(node);
      if (value !== undefined) body[node.dataset.param] = value;
    }
    const data = await act(`/irregularities/${encodeURIComponent(name)}`, body);
    if (data) say(data.pending ? filed(data) : rulingText(name, data), true);
  });

  // The settlement of a finished round, per bet: what to pay and what to take.
  let settled = null;
  let fetching = "";
  async function loadResults(roundId) {
    fetching = roundId;
    const result = await api("GET", `${base}/rounds/${encodeURIComponent(roundId)}`);
    if (result.ok && result.data.results) settled = { round_id: roundId, results: result.data.results };
    render();
  }

  // MBS 5.18.3: once the Dealer has asked and the differential is still
  // exceeded, the Pit Manager removes wagers on the heavier hand.
  function removable(b) {
    const d = state && state.round && state.round.differential;
    return !!d && d.asked && !!d.request && d.request.decrease === b.wager && b.status === "active";
  }

  async function removeBet(b) {
    return act(`/bets/${encodeURIComponent(b.bet_id)}/remove`, { idempotency_key: Punto.newKey() },
      `${b.player}'s ${nameOf(b.wager)} ${money(b.stake)} removed (clause 5.18.3): returned to the player.`);
  }

  function betRows(bets) {
    return bets.map((b) => el("tr", { testid: "bet-row", dataset: { bet: b.bet_id } },
      el("td", { text: b.player }),
      el("td", { text: nameOf(b.wager) + (b.moment ? ` (${Punto.eventWords(b.moment)})` : "") }),
      el("td", { class: "num", text: money(b.stake) }),
      el("td", {}, b.status + (b.clause ? ` (${b.clause})` : ""),
        removable(b) ? el("button", { type: "button", class: "danger small", testid: `remove-${b.bet_id}`, text: "Remove", "aria-label": `remove ${b.player}'s ${nameOf(b.wager)} ${money(b.stake)}`, onclick: () => removeBet(b) }) : null)));
  }

  function resultRows(results) {
    return results.map((r) => el("tr", { testid: "bet-result", dataset: { bet: r.bet_id, outcome: r.outcome } },
      el("td", { text: r.player }),
      el("td", { text: nameOf(r.wager) + (r.moment ? ` (${Punto.eventWords(r.moment)})` : "") }),
      el("td", { class: "num", text: money(r.stake) }),
      el("td", { class: `outcome ${r.outcome}`, text: `${r.outcome}${r.event && !["win", "tie"].includes(r.event) ? ` · ${Punto.eventWords(r.event)}` : ""}` }),
      el("td", { class: "num", testid: "bet-payout", text: money(r.payout) })));
  }

  function nameOf(id) {
    const w = state && state.table.wagers.find((x) => x.id === id);
    return w ? w.name : words(id);
  }

  function render() {
    if (!state) return;
    const t = state.table;
    const round = state.round;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup());
    document.title = `punto · ${t.name} · dealer`;
    $("#table-name").textContent = t.name;
    $("#table-info").textContent = `${t.game_title}${t.layout ? ` · layout ${t.layout}` : ""} · ${t.mode === "auto" ? "automatic dealer" : "dealer-driven"} · cards from ${t.card_source === "device" ? "the card-reading shoe" : "the server's shoe"} · limits ${money(t.limits.minimum)}–${money(t.limits.maximum)}`;
    const phase = $("#phase");
    phase.textContent = round && round.phase === "dealing" && !round.cards.length ? "No more bets" : Punto.phaseText(round);
    phase.dataset.phase = round ? round.phase : "";
    $("#round-id").textContent = round ? round.id : "–";
    const next = round && round.phase === "dealing" && round.next_hand ? round.next_hand : "";
    $("#next-hand").textContent = next ? Punto.SIDES[next].name : "–";
    $("#next-hand").className = `next-card ${next}`;
    const due = state.shoe.replacement_due;
    $("#shoe").textContent = due ? `the cards must be replaced before the next round (clause ${due})` : state.shoe.id ? `${state.shoe.cards_left} cards${state.shoe.cut_card_reached ? " · cut card out: a new shoe next" : ""}` : "a new shoe at the first round";
    Punto.renderHands($("#hands"), round);
    const banner = $("#result");
    banner.className = "result-banner";
    banner.textContent = round && round.result ? `${Punto.resultText(round.result)}${round.result.settled ? "" : " · settle now"}` : round && round.void ? `Void: ${round.void.reason} (clause ${round.void.clause})` : "";
    if (round && round.result) banner.classList.add(round.result.winner);
    if (round && round.void) banner.classList.add("void");

    const insurance = round && round.insurance;
    $("#insurance").classList.toggle("hidden", !insurance);
    const bets = (staff && staff.bets) || [];
    const finished = !!round && (round.phase === "settled" || round.phase === "void");
    if (finished && staff && user && user.role !== "admin" && fetching !== round.id) loadResults(round.id);
    const results = finished && settled && settled.round_id === round.id ? settled.results : null;
    if (insurance) {
      $("#offers").replaceChildren(...insurance.offers.map((o) => el("li", { testid: `dealer-offer-${o.wager}`, text: `${Punto.SIDES[o.insures].name} insurance: Player ${o.player_points} v Banker ${o.banker_points}, pays ${o.odds} (clause ${o.clause})` })));
      const insured = bets.filter((b) => /_insurance$/.test(b.wager) && b.status === "active");
      $("#insurance-bets").textContent = insured.length ? `Insured: ${insured.map((b) => `${b.player} ${nameOf(b.wager)} ${money(b.stake)}`).join(", ")}` : "No insurance taken yet.";
    }
    const withdrawal = round && round.withdrawal;
    $("#withdrawal").classList.toggle("hidden", !withdrawal);
    if (withdrawal) $("#withdrawal").textContent = `Withdrawal option open: ${withdrawal.reason} (clause ${withdrawal.clause}).`;

    const claim = staff && staff.claim;
    $("#claim-pending").hidden = !claim;
    if (claim) $("#claim-text").textContent = `A ruling is pending: ${words(claim.procedure)} under clause ${claim.clause}, filed by ${claim.filed_by}, waits for a ${words(claim.confirming)}'s confirmation on the pit page (claim ${claim.claim_id}). The round waits.`;
    $("#btn-withdraw-claim").disabled = !claim || !user || claim.filed_by !== user.username;

    const can = (staff && staff.can) || {};
    const allowed = {
      "#btn-open": can.open, "#btn-close": can.close, "#btn-draw": can.deal && t.card_source !== "device",
      "#btn-settle": can.settle, "#btn-key": can.deal && t.card_source === "device", "#btn-close-withdrawal": can.close_withdrawal,
      "#btn-power-failure": can.power_failure, "#btn-void": can.void, "#btn-replace-shoe": can.replace_shoe,
    };
    // Nothing is done on a stale picture: every action waits for the connection.
    const up = Punto.isLive();
    for (const [id, ok] of Object.entries(allowed)) $(id).disabled = !ok || !up;
    // cards are keyed only from a physical shoe: the server's own shoe takes none (2.1)
    for (const node of $("#keypad").querySelectorAll("button")) node.disabled = !(can.deal && t.card_source === "device") || !up;
    const step = can.open ? "#btn-open" : can.close ? "#btn-close" : can.settle ? "#btn-settle" : can.deal ? "#btn-draw" : "";
    for (const id of ["#btn-open", "#btn-close", "#btn-draw", "#btn-settle"]) $(id).classList.toggle("next-step", id === step);

    const handling = round && round.handling;
    $("#handling-box").classList.toggle("hidden", !t.method);
    if (t.method) {
      // "Method A · banker: demo squeezes", "Method C · device: demo" (the engine's line)
      $("#handling").textContent = handling ? `${handling.text}${handling.method !== t.method ? ` · Method ${t.method} from the next round` : ""}` : `Method ${t.method}`;
      const pass = (staff && staff.handling && staff.handling.pass) || {};
      for (const side of ["player", "banker"]) {
        const to = handling && handling.next ? handling.next[side] : null;
        $(`#btn-pass-${side}`).disabled = !pass[side];
        $(`#btn-pass-${side}`).textContent = `Pass the ${Punto.SIDES[side].name} cards${to ? ` to ${to}` : ""}`;
      }
      $("#btn-method").disabled = !staff || !(staff.handling && staff.handling.choose_method && staff.handling.choose_method[$("#method-select").value]);
    }

    const d = round && round.differential;
    $("#differential").textContent = d && d.exceeded
      ? `differential ${money(d.now)} over ${money(d.limit)} (clause ${d.clause})${d.request ? (d.asked ? ` · asked: ${nameOf(d.request.decrease)} to decrease (${d.request.clauses.decrease}); remove wagers (${d.request.clauses.remove})` : " · 'No more bets' asks the players") : ""}`
      : staff && staff.differential ? `differential ${money(staff.differential)}` : "";
    const totals = (round && round.totals) || {};
    $("#totals").replaceChildren(...Object.entries(totals).map(([w, v]) => el("li", { testid: `dealer-total-${w}`, text: `${nameOf(w)} ${money(v)}` })));
    const head = ["Player", "Wager", "Stake", results ? "Outcome" : "Status", ...(results ? ["Pays"] : [])];
    const rows = results ? resultRows(results) : betRows(bets);
    $("#bets").replaceChildren(
      el("tr", {}, ...head.map((h) => el("th", { scope: "col", class: h === "Stake" || h === "Pays" ? "num" : "", text: h }))),
      ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: head.length, class: "empty", text: staff ? "No bets this round." : "Log in as a dealer to see the bets." }))])
    );
    const house = results ? results.reduce((sum, r) => sum + Punto.cents(r.stake) - Punto.cents(r.payout), 0) : null;
    $("#house").textContent = results && results.length ? `Taken ${money(Punto.fromCents(results.reduce((s, r) => s + Punto.cents(r.stake), 0)))} · paid ${money(Punto.fromCents(results.reduce((s, r) => s + Punto.cents(r.payout), 0)))} · house ${Punto.signed(Punto.fromCents(house))}` : "";
  }

  // No countdown while an exceeded differential holds betting open (MBS 5.18).
  const held = (round) => !!round.differential && round.differential.asked && round.differential.exceeded;
  Punto.countdown($("#countdown"), () => (state && state.round && state.round.phase === "betting" && !held(state.round) ? state.round.deadline : null));
  Punto.countdown($("#insurance-countdown"), () => (state && state.round && state.round.insurance ? state.round.insurance.ends : null));

  function eventLine(m) {
    const e = m.event;
    const detail = Object.entries(e).filter(([k]) => k !== "type").map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(" ");
    return el("li", { testid: "event" }, el("span", { class: "eround", text: m.round_id }), el("span", { class: "etype", text: words(e.type) }), ` ${detail}`);
  }

  // After a reconnection: what the rules did to the round that was open.
  Punto.onReconnect(() => state && state.round, render, say, {
    withdrawal: "The withdrawal option is open.",
  });

  let socket = null;
  const login = Punto.loginBox($("#login"), (who) => {
    const changed = (who && who.username) !== (user && user.username);
    user = who;
    if (!Punto.isStaff(who)) {
      staff = null;
      say(who ? "The console is for dealers and the pit: log in with a dealer's account." : "Log in with a dealer's account.");
    } else {
      say("");
    }
    if (socket && changed) socket.reconnect();
    loadProcedures();
    render();
  });
  login.refresh().then(() => {
    socket = Punto.connect(table, (m) => {
      if (m.type === "state") {
        state = m;
        if (m.staff) staff = m.staff;
        render();
      } else if (m.type === "staff") {
        staff = m.staff;
        render();
      } else if (m.type === "card" && Punto.applyCard(state, m)) {
        render();
      } else if (m.type === "event") {
        $("#events").prepend(eventLine(m));
        while ($("#events").children.length > 200) $("#events").lastChild.remove();
      }
    }, (up, reason, code) => {
      if (!up && code === 4404) say(reason || "There is no such table.");
    });
  });
})();
