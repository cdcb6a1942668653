// The player's page: log in, pick a chip, bet on the layout during the
// countdown, watch the coup card by card, take Insurance Plus, see results.
"use strict";

(() => {
  const { $, el, api, errorText, newKey, money, words } = Punto;
  const table = Punto.tableId();
  const CHIPS = [10, 25, 100, 500, 1000];
  let chip = 25;
  let state = null;
  let me = null;
  let user = null;

  const message = $("#message");
  function say(text, good) {
    message.textContent = text || "";
    message.className = `message ${good ? "good" : text ? "bad" : ""}`;
  }

  // chips
  const chips = $("#chips");
  for (const value of CHIPS) {
    chips.append(
      el("button", {
        type: "button", class: "chip", text: value >= 1000 ? `${value / 1000}k` : value,
        dataset: { value: String(value) }, testid: `chip-${value}`, "aria-label": `chip ${value}`,
        onclick: () => { chip = value; renderChips(); },
      })
    );
  }
  function renderChips() {
    for (const node of chips.children) node.classList.toggle("selected", Number(node.dataset.value) === chip);
  }
  renderChips();

  async function bet(wager, stake) {
    if (!user) return say("Log in to bet.");
    say("");
    const result = await api("POST", `/api/tables/${encodeURIComponent(table)}/bets`, { wager, stake: String(stake) }, { "Idempotency-Key": newKey() });
    if (!result.ok) return say(errorText(result));
    say(`${words(wager)} ${money(result.data.bet.stake)} placed.`, true);
    $("#balance").textContent = money(result.data.balance);
  }

  async function withdraw(betId) {
    const result = await api("DELETE", `/api/tables/${encodeURIComponent(table)}/bets/${encodeURIComponent(betId)}`);
    say(result.ok ? "Bet withdrawn." : errorText(result), result.ok);
  }

  $("#withdraw-all").addEventListener("click", async () => {
    const result = await api("POST", `/api/tables/${encodeURIComponent(table)}/withdrawal`);
    say(result.ok ? "Your wagers were returned." : errorText(result), result.ok);
  });

  // the layout
  function renderLayout() {
    const layout = $("#layout");
    if (!state) return;
    const round = state.round;
    const betting = round && round.phase === "betting";
    const areas = (round && round.result && round.result.areas) || {};
    const mine = {};
    for (const b of (me && me.bets) || []) if (b.status === "active") mine[b.wager] = (mine[b.wager] || 0) + Number(b.stake);
    const totals = (round && round.totals) || {};
    layout.replaceChildren(
      ...state.table.wagers.filter((w) => !w.insures).map((w) => {
        const pays = Object.entries(w.pays).map(([event, odds]) => (event === "win" ? odds : `${words(event)} ${odds}`)).join(" · ");
        const outcome = round && round.result ? (areas[w.id] ? "won" : "lost") : "";
        return el(
          "button",
          {
            type: "button", class: `area ${w.id} ${outcome}`, testid: `area-${w.id}`, disabled: !betting || !user,
            dataset: { wager: w.id }, title: `clause ${w.clause}; limits ${money(w.minimum)}–${money(w.maximum)}`,
            onclick: () => bet(w.id, chip),
          },
          el("span", { class: "name", text: w.name }),
          el("span", { class: "pays", text: pays }),
          el("span", { class: "mine", testid: `mine-${w.id}`, text: mine[w.id] ? money(mine[w.id]) : "" }),
          el("span", { class: "total", text: totals[w.id] ? `table ${money(totals[w.id])}` : "" })
        );
      })
    );
  }

  function renderMine() {
    const list = $("#my-bets");
    const round = state && state.round;
    const rows = [];
    const results = me && me.results;
    if (results) {
      for (const r of results) {
        rows.push(el("tr", { testid: "my-result", dataset: { bet: r.bet_id, outcome: r.outcome } },
          el("td", { text: words(r.wager) }), el("td", { class: "num", text: money(r.stake) }),
          el("td", { class: r.outcome === "win" ? "win" : r.outcome === "lose" ? "lose" : "", text: `${r.outcome}${r.event && r.event !== "win" ? ` (${words(r.event)})` : ""}` }),
          el("td", { class: "num", text: money(r.payout) })));
      }
    } else {
      for (const b of (me && me.bets) || []) {
        const canWithdraw = round && round.phase === "betting" && b.status === "active";
        rows.push(el("tr", { testid: "my-bet", dataset: { bet: b.bet_id, status: b.status } },
          el("td", { text: words(b.wager) + (b.moment ? ` (${words(b.moment)})` : "") }), el("td", { class: "num", text: money(b.stake) }),
          el("td", { text: b.status }),
          el("td", {}, canWithdraw ? el("button", { type: "button", class: "secondary", testid: `withdraw-${b.bet_id}`, text: "Withdraw", onclick: () => withdraw(b.bet_id) }) : "")));
      }
    }
    const head = el("tr", {}, el("th", { text: "Wager" }), el("th", { class: "num", text: "Stake" }), el("th", { text: results ? "Outcome" : "Status" }), el("th", { class: results ? "num" : "", text: results ? "Paid" : "" }));
    list.replaceChildren(head, ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 4, text: user ? "No bets yet." : "Log in to bet." }))]));
  }

  function renderInsurance() {
    const box = $("#insurance");
    const round = state && state.round;
    const insurance = round && round.insurance;
    const caps = (me && me.insurance_caps) || {};
    box.classList.toggle("hidden", !insurance);
    if (!insurance) return;
    $("#offers").replaceChildren(...insurance.offers.map((o) => {
      const cap = caps[o.wager];
      const stake = el("input", { type: "number", min: "0.01", step: "0.01", value: cap ? String(Math.min(Number(cap), chip)) : "", testid: `insurance-stake-${o.wager}`, "aria-label": "insurance stake" });
      return el("div", { class: "offer", testid: `offer-${o.wager}` },
        el("span", { text: `${o.text}` }),
        cap ? el("span", { text: `up to ${money(cap)}` }) : el("span", { class: "pays", text: "needs an Original Bet on that hand" }),
        cap ? stake : "",
        cap ? el("button", { type: "button", testid: `insure-${o.wager}`, text: "Insure", onclick: () => bet(o.wager, stake.value) }) : "");
    }));
  }

  function render() {
    if (!state) return;
    const t = state.table;
    const round = state.round;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup(Punto.sideNames(t.game)));
    if (me && round && me.round_id !== round.id) me = { ...me, bets: [], results: null, insurance_caps: {}, may_withdraw: false, round_id: round.id };
    document.title = `punto · ${t.name}`;
    $("#table-name").textContent = t.name;
    $("#table-info").textContent = `${t.game_title}${t.layout ? `, layout ${t.layout}` : ""} · limits ${money(t.limits.minimum)}–${money(t.limits.maximum)}${t.limits.differential ? ` · differential ${money(t.limits.differential)}` : ""}`;
    $("#phase").textContent = round ? words(round.phase) : "waiting for the first round";
    $("#round-id").textContent = round ? round.id : "–";
    Punto.renderHands($("#hands"), round);
    const result = $("#result");
    if (round && round.result) {
      result.textContent = Punto.resultText(round.result, t.game);
    } else if (round && round.void) {
      result.textContent = `Round void: ${round.void.reason} (clause ${round.void.clause}); all bets returned`;
    } else {
      result.textContent = round && round.power_failed ? "Power failure: play is interrupted" : "";
    }
    const withdrawal = round && round.withdrawal;
    $("#withdrawal").classList.toggle("hidden", !withdrawal || !(me && me.may_withdraw));
    if (withdrawal) $("#withdrawal-text").textContent = `${withdrawal.reason} (clause ${withdrawal.clause}): you may withdraw all your wagers.`;
    if (me) $("#balance").textContent = money(me.balance);
    renderLayout();
    renderMine();
    renderInsurance();
  }

  Punto.countdown($("#countdown"), () => state && state.round && state.round.phase === "betting" ? state.round.deadline : null);
  Punto.countdown($("#insurance-countdown"), () => state && state.round && state.round.insurance ? state.round.insurance.ends : null);

  let socket = null;
  const login = Punto.loginBox($("#login"), (who) => {
    const changed = (who && who.username) !== (user && user.username);
    user = who;
    if (!who) { me = null; $("#balance").textContent = "–"; }
    if (socket && changed) socket.reconnect();
    render();
  });

  login.refresh().then(() => {
    socket = Punto.connect(table, (m) => {
      switch (m.type) {
        case "state":
          state = m;
          if (m.me) me = m.me;
          render();
          break;
        case "me":
          me = m.me;
          render();
          break;
        case "scoreboard":
          Punto.renderRoads($("#roads"), m.scoreboard);
          break;
        case "betting_open":
          say("Place your bets, please.", true);
          break;
        case "betting_closed":
          say("No more bets.");
          break;
        default:
          break;
      }
    }, (up, reason) => { if (!up && reason) say(reason); });
  });
})();
