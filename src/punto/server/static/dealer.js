// The dealer's screen at the table: a touch screen whose controls follow
// the round -- place your bets, no more bets, the cards (drawn from the
// server's shoe, or keyed from a physical one), settle, the next round --
// the step that moves the round on highlighted, the others disabled with
// the reason said.  What cannot be undone is confirmed in the screen's own
// dialog first.  A ruling filed for the pit is shown with who filed it,
// when, and what it would change; the round waits meanwhile.  The events
// panel says what happened in words (dealer-words.js); the procedures of
// the rules are in dealer-procedures.js.
"use strict";

(() => {
  const { $, el, api, money, words } = Punto;
  const table = Punto.tableId();
  const base = `/api/tables/${encodeURIComponent(table)}`;
  const say = Punto.sayer($("#message"));
  let state = null;
  let staff = null;
  let user = null;

  // -- the confirmation dialog ---------------------------------------------------------------

  // The screen's own dialog (a modal <dialog>: reached by touch and by the
  // keyboard, Escape cancels, focus starts on Cancel): resolves true only
  // when the dealer presses the confirming button.
  const dialog = $("#confirm");
  function ask(title, text, ok) {
    if (dialog.open) dialog.close("cancel");
    $("#confirm-title").textContent = title;
    $("#confirm-text").textContent = text;
    $("#confirm-ok").textContent = ok;
    dialog.returnValue = "";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
      dialog.showModal();
      $("#confirm-cancel").focus();
    });
  }

  // -- actions ------------------------------------------------------------------------------

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
    return `Filed: ${words(c.procedure)} under clause ${c.clause} waits for ${DealerWords.article(DealerWords.roleTitle(c.confirming))}'s confirmation on the pit page. The round waits.`;
  }

  // An action that cannot be undone: asked first, sent only on "ok".
  async function confirmed(title, text, ok, run) {
    if (!(await ask(title, text, ok))) {
      say("Nothing was done.");
      return null;
    }
    return run();
  }

  const betCount = () => ((staff && staff.bets) || []).filter((b) => b.status === "active").length;

  $("#btn-open").addEventListener("click", () => act("/round/open", undefined, "Place your bets, please."));
  $("#btn-close").addEventListener("click", () => confirmed("No more bets?",
    `Betting closes for round ${state && state.round ? state.round.id : ""} with ${betCount()} bet(s) on the layout. No bet can be placed or taken back after it.`,
    "No more bets", async () => {
      const data = await act("/round/close", undefined, "No more bets.");
      if (data && data.rejected && data.rejected.length) say(`No more bets. Over the differential, returned: ${data.rejected.join(", ")}.`, true);
    }));
  $("#btn-draw").addEventListener("click", async () => {
    if (state && state.table.card_source === "device") {
      // cards come from the physical shoe: the keypad below takes them
      $("#card-input").focus();
      return say("Key the card the shoe gave: its rank, then its suit.");
    }
    const data = await act("/round/deal");
    if (data) say(dealt(data), true);
  });
  $("#btn-settle").addEventListener("click", () => {
    const result = state && state.round && state.round.result;
    return confirmed("Settle the coup?",
      `${result ? `${DealerWords.coupText({ player: result.player_total, banker: result.banker_total })}. ` : ""}Every bet is paid or taken now; a settlement is not undone.`,
      "Settle", async () => {
        const data = await act("/round/settle", undefined);
        if (data) say(`${Punto.resultText(data)}. Settled.`, true);
      });
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
  $("#btn-close-withdrawal").addEventListener("click", () => confirmed("Close the withdrawal option?",
    "Players can no longer withdraw their wagers this round; the others play on.", "Close it",
    () => act("/round/withdrawal/close", undefined, "Withdrawal option closed.")));

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
    const data = await confirmed("Void the round?", `Reason: ${reason}. Every bet of round ${state && state.round ? state.round.id : ""} would be returned; after “No more bets” the void is filed for a Gaming Shift Manager to confirm.`, "Void the round",
      () => act("/round/void", { reason }, "The round is void: every bet is returned."));
    if (data && data.pending) say(filed(data), true);
    if (data) $("#void-reason").value = "";
  });
  $("#btn-replace-shoe").addEventListener("click", async () => {
    const clause = state && state.shoe.replacement_due;
    if (!clause) return say("No rule calls for the cards to be replaced now.");
    const data = await confirmed("Replace the cards?", `The shoe is retired and a new one started (clause ${clause}). The old shoe's cards are not dealt again.`, "Replace the cards",
      () => act("/shoe/replace", { clause }, `The cards are replaced (clause ${clause}): a new shoe.`));
    if (data) say(`New shoe ${data.shoe_id}: the cards are replaced (clause ${clause}).`, true);
  });
  $("#btn-power-failure").addEventListener("click", async () => {
    const data = await confirmed("Declare a power failure?", "The round is interrupted and the game's clause decides what follows (a withdrawal option, a void, or play on); a ruling that moves money waits for the pit.", "Power failure",
      () => act("/round/power-failure"));
    if (data) say(data.pending ? filed(data) : `Power failure: ${words(data.consequence)}.`, true);
  });

  const procedures = DealerProcedures.mount({ base, act, ask, say, filed, user: () => user });

  // -- a pending ruling -------------------------------------------------------------------------

  // What the pit sees of the claim (GET .../claims): when it was filed and
  // the wagers it would return or change; fetched once per claim.
  let claimDetail = { id: "", data: null };
  async function loadClaim(claim) {
    claimDetail = { id: claim.claim_id, data: null };
    const result = await api("GET", `${base}/claims`);
    if (claimDetail.id === claim.claim_id && result.ok) claimDetail.data = result.data;
    render();
  }

  function claimChange(detail) {
    if (!detail) return "…";
    if (!detail.affected.length) return "No wager changes.";
    return detail.affected.map((a) => `${a.player}'s ${nameOf(a.wager)} ${money(a.stake)}: ${a.now} → ${a.then}`).join("; ");
  }

  $("#btn-withdraw-claim").addEventListener("click", async () => {
    const claim = staff && staff.claim;
    if (!claim) return say("No claim is pending.");
    await confirmed("Withdraw the claim?", `${DealerWords.capital(words(claim.procedure))} (clause ${claim.clause}) is taken back: nothing moves and the round goes on.`, "Withdraw the claim",
      () => act(`/claims/${encodeURIComponent(claim.claim_id)}/reject`, { reason: "withdrawn at the table" },
        `Claim withdrawn: nothing moved, the round goes on.`));
  });

  function renderClaim(claim) {
    $("#claim-pending").hidden = !claim;
    document.body.classList.toggle("ruling-pending", !!claim);
    if (!claim) return;
    if (claimDetail.id !== claim.claim_id) loadClaim(claim);
    const detail = claimDetail.id === claim.claim_id ? claimDetail.data : null;
    const record = detail && detail.claims.find((c) => c.claim_id === claim.claim_id);
    const when = record && record.filed_at ? new Date(record.filed_at) : null;
    const waits = `${DealerWords.article(DealerWords.roleTitle(claim.confirming))} or above, on the pit page`;
    $("#claim-text").textContent = `Ruling pending: ${words(claim.procedure)}, filed by ${claim.filed_by}, waiting for ${DealerWords.article(DealerWords.roleTitle(claim.confirming))}. The round waits.`;
    $("#claim-what").textContent = `${DealerWords.capital(words(claim.procedure))} (clause ${claim.clause})${Object.keys(claim.parameters || {}).length ? `: ${Object.entries(claim.parameters).map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(" ") : v}`).join(", ")}` : ""}`;
    $("#claim-who").textContent = `${claim.filed_by} (${DealerWords.roleTitle(claim.filed_role)})`;
    $("#claim-when").textContent = when ? when.toLocaleTimeString("en-GB") : "–";
    $("#claim-waits").textContent = waits;
    $("#claim-change").textContent = claimChange(detail);
    const own = !!user && claim.filed_by === user.username;
    $("#btn-withdraw-claim").disabled = !own || !Punto.isLive();
    $("#why-withdraw").textContent = own ? "" : `Only ${claim.filed_by}, who filed it, withdraws it here; the pit confirms or rejects it.`;
  }

  // -- the round's steps ---------------------------------------------------------------------

  // Why a step cannot be taken now, in the dealer's words ("" when it can).
  function reasons(round, can, claim) {
    const out = { open: "", close: "", cards: "", settle: "" };
    let all = "";
    if (!Punto.isStaff(user)) all = "Log in with a dealer's account.";
    else if (!Punto.isLive()) all = "Not connected to the table.";
    else if (claim) all = "A ruling is pending: the round waits for the pit.";
    const phase = round ? round.phase : "none";
    const over = !round || phase === "settled" || phase === "void";
    const due = state && state.shoe.replacement_due;
    if (!can.open) out.open = all || (!over ? `Round ${round.id} is in play: settle it first.` : due ? `Replace the cards first (clause ${due}).` : "Not possible now.");
    if (!can.close) out.close = all || (over ? "Open betting first." : phase === "betting" ? "Not possible now." : "Betting is already closed.");
    if (!can.deal) {
      out.cards = all || (over ? "Open betting first." : phase === "betting" ? "Call “No more bets” first." : phase === "result" ? "The coup is complete." : round.withdrawal ? "The withdrawal option is open: close it first." : "Not possible now.");
    }
    if (!can.settle) out.settle = all || (over ? (phase === "settled" ? "Settled." : "No coup to settle.") : phase === "betting" ? "The cards are not dealt yet." : phase === "result" ? "Not possible now." : "The coup is not complete yet.");
    return out;
  }

  function renderSteps(t, round, can, claim) {
    const up = Punto.isLive();
    const device = t.card_source === "device";
    const allowed = { open: can.open, close: can.close, cards: can.deal, settle: can.settle };
    const why = reasons(round, can, claim);
    const next = claim ? "" : can.open ? "open" : can.close ? "close" : can.settle ? "settle" : can.deal ? "cards" : "";
    const ids = { open: "#btn-open", close: "#btn-close", cards: "#btn-draw", settle: "#btn-settle" };
    for (const [step, id] of Object.entries(ids)) {
      const ok = !!allowed[step] && up && !claim;
      $(id).disabled = !ok;
      $(id).classList.toggle("next-step", step === next && ok);
      $(id).closest(".step").classList.toggle("next", step === next && ok);
      $(`#why-${step}`).textContent = ok ? (step === next ? "Next" : "") : why[step];
    }
    const finished = !round || round.phase === "settled" || round.phase === "void";
    $("#btn-open .label").textContent = round && finished ? "Next round: place your bets" : "Place your bets";
    $("#btn-draw .label").textContent = device ? "Key the next card" : "Draw a card";
    // cards are keyed only from a physical shoe: the server's own shoe takes none (2.1)
    $("#key-form").classList.toggle("hidden", !device);
    $("#key-form").classList.toggle("next-step", device && next === "cards" && up);
    const keying = !!can.deal && device && up && !claim;
    $("#btn-key").disabled = !keying;
    for (const node of $("#keypad").querySelectorAll("button")) node.disabled = !keying;
  }

  // -- the bets ------------------------------------------------------------------------------

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

  let knownWagers = []; // the table's wagers before the first snapshot (seed)
  function nameOf(id) {
    const w = ((state && state.table.wagers) || knownWagers).find((x) => x.id === id);
    return w ? w.name : words(id);
  }

  function renderBets(round, results) {
    const bets = (staff && staff.bets) || [];
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
    const sum = (key) => (results || []).reduce((s, r) => s + Punto.cents(r[key]), 0);
    $("#house").textContent = results && results.length ? `Taken ${money(Punto.fromCents(sum("stake")))} · paid ${money(Punto.fromCents(sum("payout")))} · house ${Punto.signed(Punto.fromCents(sum("stake") - sum("payout")))}` : "";
  }

  // -- the whole screen ----------------------------------------------------------------------

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
    renderClaim(claim);
    const can = (staff && staff.can) || {};
    renderSteps(t, round, can, claim);
    // Nothing is done on a stale picture: every action waits for the connection.
    const up = Punto.isLive();
    const others = { "#btn-close-withdrawal": can.close_withdrawal, "#btn-power-failure": can.power_failure, "#btn-void": can.void, "#btn-replace-shoe": can.replace_shoe };
    for (const [id, ok] of Object.entries(others)) $(id).disabled = !ok || !up || !!claim;

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
    renderBets(round, results);
  }

  // No countdown while an exceeded differential holds betting open (MBS 5.18).
  const held = (round) => !!round.differential && round.differential.asked && round.differential.exceeded;
  Punto.countdown($("#countdown"), () => (state && state.round && state.round.phase === "betting" && !held(state.round) ? state.round.deadline : null));
  Punto.countdown($("#insurance-countdown"), () => (state && state.round && state.round.insurance ? state.round.insurance.ends : null));

  // -- the events, in words --------------------------------------------------------------------

  const seenBets = new Map(); // bet id -> { player, wager, stake }, from the events and the staff's bets
  const coups = new Map(); // round id -> { player, banker }: the totals the cards came to
  const claimants = new Map(); // claim id -> who filed it
  const cardLines = []; // lines of cards dealt, waiting for the hand the `card` message names

  function eventContext(m) {
    const e = m.event;
    const r = state && state.round;
    const result = r && r.id === m.round_id && r.result ? { player: r.result.player_total, banker: r.result.banker_total } : null;
    return {
      nameOf,
      bet: (id) => seenBets.get(id) || ((staff && staff.bets) || []).find((b) => b.bet_id === id) || null,
      totals: result || coups.get(m.round_id) || null,
      filedBy: e.claim_id ? claimants.get(e.claim_id) : null,
      cardHand: null,
    };
  }

  // One line of the panel; `hand`: the hand a card went to, when known now;
  // `earlier`: an event written before the page watched (no time to show).
  function eventLine(m, hand, earlier) {
    const e = m.event;
    if (e.type === "bet_placed" || e.type === "insurance_placed") seenBets.set(e.bet_id, { player: e.player, wager: e.wager, stake: e.stake });
    if (e.type === "ruling_claimed") claimants.set(e.claim_id, e.by);
    const text = DealerWords.eventText(e, { ...eventContext(m), cardHand: hand || null });
    const time = earlier ? "earlier" : new Date().toLocaleTimeString("en-GB");
    const line = el("li", { testid: "event", dataset: { kind: e.type, round: m.round_id || "" } },
      el("span", { class: "etime", text: time }),
      el("span", { class: "eround", text: m.round_id ? `round ${m.round_id}` : "" }),
      el("span", { class: "etext", testid: "event-text", text }));
    if (e.type === "card_dealt" && !earlier) cardLines.push({ round: m.round_id, card: String(e.card), line, event: e });
    return line;
  }

  // What the round in play had written before the page watched it (GET
  // .../rounds/{id}: its events), in the same words, so that a screen
  // opened or reloaded mid-round shows how it got there.
  async function seed() {
    const now = await api("GET", base);
    const round = now.ok && now.data.round;
    if (!round) return;
    const detail = await api("GET", `${base}/rounds/${encodeURIComponent(round.id)}`);
    if (!detail.ok) return;
    knownWagers = now.data.table.wagers;
    const cards = round.cards || [];
    let dealtSoFar = 0;
    const lines = detail.data.events.map((event) => {
      let hand = null;
      if (event.type === "card_dealt") {
        const c = cards[dealtSoFar++];
        hand = c && c.card === event.card ? c.hand : null;
      }
      return eventLine({ round_id: round.id, event }, hand, true);
    });
    $("#events").replaceChildren(...lines.reverse());
  }

  // A `card` message names the hand and the totals: the line of its card says them.
  function cardSeen(m) {
    coups.set(m.round_id, { player: m.player_total, banker: m.banker_total });
    const i = cardLines.findIndex((c) => c.round === m.round_id && c.card === m.card);
    if (i < 0) return;
    const [c] = cardLines.splice(0, i + 1).slice(-1);
    const text = DealerWords.eventText(c.event, { ...eventContext({ event: c.event, round_id: m.round_id }), cardHand: m.hand });
    // the totals once both hands hold a card (the first card is the Player's)
    const totals = m.index >= 1 ? ` · ${DealerWords.coupText({ player: m.player_total, banker: m.banker_total }).replace(/:.*/, "")}` : "";
    $(".etext", c.line).textContent = `${text}${totals}`;
  }

  // After a reconnection: what the rules did to the round that was open.
  Punto.onReconnect(() => state && state.round, render, say, {
    withdrawal: "The withdrawal option is open.",
  });

  let socket = null;
  let seeding = Promise.resolve();
  const login = Punto.loginBox($("#login"), (who) => {
    const changed = (who && who.username) !== (user && user.username);
    user = who;
    if (!Punto.isStaff(who)) {
      staff = null;
      say(who ? "The console is for dealers and the pit: log in with a dealer's account." : "Log in with a dealer's account.");
    } else {
      say("");
    }
    if (changed && Punto.isStaff(who)) {
      seeding = seed();
      seeding.then(() => socket && socket.reconnect());
    } else if (socket && changed) socket.reconnect();
    procedures.load();
    render();
  });
  login.refresh().then(() => seeding).then(() => {
    socket = Punto.connect(table, (m) => {
      if (m.type === "state") {
        state = m;
        if (m.staff) staff = m.staff;
        render();
      } else if (m.type === "staff") {
        staff = m.staff;
        render();
      } else if (m.type === "card") {
        cardSeen(m);
        if (Punto.applyCard(state, m)) render();
      } else if (m.type === "event") {
        $("#events").prepend(eventLine(m));
        while ($("#events").children.length > 200) $("#events").lastChild.remove();
        while (cardLines.length > 20) cardLines.shift();
      }
    }, (up, reason, code) => {
      if (!up && code === 4404) say(reason || "There is no such table.");
    });
  });
})();
