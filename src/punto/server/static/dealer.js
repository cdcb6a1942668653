// The dealer console: open and close betting, draw or key cards, settle,
// and the irregularities (void, power failure) with a manager's confirmation.
"use strict";

(() => {
  const { $, el, api, errorText, money, words } = Punto;
  const table = Punto.tableId();
  const base = `/api/tables/${encodeURIComponent(table)}`;
  let state = null;
  let staff = null;

  const message = $("#message");
  function say(text, good) {
    message.textContent = text || "";
    message.className = `message ${good ? "good" : text ? "bad" : ""}`;
  }

  async function act(path, body, done) {
    say("");
    const result = await api("POST", `${base}${path}`, body);
    if (!result.ok) return say(errorText(result));
    say(done || "Done.", true);
    return result.data;
  }

  function manager() {
    const username = $("#manager-username").value.trim();
    const password = $("#manager-password").value;
    return username ? { username, password } : undefined;
  }

  $("#btn-open").addEventListener("click", () => act("/round/open", undefined, "Place your bets, please."));
  $("#btn-close").addEventListener("click", () => act("/round/close", undefined, "No more bets."));
  $("#btn-draw").addEventListener("click", async () => {
    const data = await act("/round/deal");
    if (data) say(`${data.card} to ${data.hand}`, true);
  });
  $("#btn-settle").addEventListener("click", () => act("/round/settle", undefined, "Settled."));
  $("#btn-close-withdrawal").addEventListener("click", () => act("/round/withdrawal/close", undefined, "Withdrawal option closed."));
  $("#key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("#card-input");
    const data = await act("/round/deal", { card: input.value.trim() });
    if (data) {
      say(`${data.card} to ${data.hand}`, true);
      input.value = "";
    }
    input.focus();
  });
  $("#btn-void").addEventListener("click", async () => {
    const reason = $("#void-reason").value.trim();
    if (!reason) return say("Give the reason for the void.");
    const clause = $("#void-clause").value.trim() || undefined;
    const data = await act("/round/void", { reason, clause, manager: manager() }, "The round is void: every bet is returned.");
    if (data) $("#manager-password").value = "";
  });
  $("#btn-power-failure").addEventListener("click", async () => {
    const data = await act("/round/power-failure", { manager: manager() });
    if (data) say(`Power failure: ${words(data.consequence)}.`, true);
    $("#manager-password").value = "";
  });

  function render() {
    if (!state) return;
    const t = state.table;
    const round = state.round;
    if (!$("#hands").firstChild) $("#hands").append(Punto.handsMarkup(Punto.sideNames(t.game)));
    $("#table-name").textContent = t.name;
    $("#table-info").textContent = `${t.game_title}${t.layout ? `, layout ${t.layout}` : ""} · ${t.mode === "auto" ? "automatic dealer" : "dealer-driven"} · cards from ${t.card_source === "device" ? "the card-reading shoe" : "the server's shoe"}`;
    $("#phase").textContent = round ? words(round.phase) : "no round yet";
    $("#round-id").textContent = round ? round.id : "–";
    $("#next-hand").textContent = round && round.next_hand && round.phase === "dealing" ? round.next_hand : "–";
    $("#shoe").textContent = `${state.shoe.cards_left} cards${state.shoe.cut_card_reached ? " (cut card out)" : ""}`;
    Punto.renderHands($("#hands"), round);
    $("#result").textContent = round && round.result ? Punto.resultText(round.result, t.game) : round && round.void ? `void: ${round.void.reason}` : "";
    const insurance = round && round.insurance;
    $("#insurance").classList.toggle("hidden", !insurance);
    if (insurance) $("#offers").replaceChildren(...insurance.offers.map((o) => el("li", { text: o.text })));
    const withdrawal = round && round.withdrawal;
    $("#withdrawal").classList.toggle("hidden", !withdrawal);
    if (withdrawal) $("#withdrawal").textContent = `Withdrawal option open: ${withdrawal.reason} (clause ${withdrawal.clause}).`;
    const can = (staff && staff.can) || {};
    $("#btn-open").disabled = !can.open;
    $("#btn-close").disabled = !can.close;
    $("#btn-draw").disabled = !can.deal || t.card_source === "device";
    $("#btn-key").disabled = !can.deal;
    $("#btn-settle").disabled = !can.settle;
    $("#btn-close-withdrawal").disabled = !can.close_withdrawal;
    $("#btn-power-failure").disabled = !can.power_failure;
    $("#btn-void").disabled = !can.void;
    $("#differential").textContent = staff && staff.differential ? `differential ${money(staff.differential)}` : "";
    const bets = (staff && staff.bets) || [];
    $("#bets").replaceChildren(
      el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Wager" }), el("th", { class: "num", text: "Stake" }), el("th", { text: "Status" })),
      ...bets.map((b) => el("tr", { testid: "bet-row", dataset: { bet: b.bet_id } }, el("td", { text: b.player }), el("td", { text: words(b.wager) + (b.moment ? ` (${words(b.moment)})` : "") }), el("td", { class: "num", text: money(b.stake) }), el("td", { text: b.status })))
    );
  }

  Punto.countdown($("#countdown"), () => state && state.round && state.round.phase === "betting" ? state.round.deadline : null);
  Punto.countdown($("#insurance-countdown"), () => state && state.round && state.round.insurance ? state.round.insurance.ends : null);

  let socket = null;
  let user = null;
  const login = Punto.loginBox($("#login"), (who) => {
    const changed = (who && who.username) !== (user && user.username);
    user = who;
    if (who && who.role === "player") say("The console is for dealers and the pit; log in with a dealer's account.");
    if (socket && changed) socket.reconnect();
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
      } else if (m.type === "event") {
        const line = el("li", { testid: "event", text: `${m.round_id} ${m.event.type} ${JSON.stringify(m.event)}` });
        $("#events").prepend(line);
        while ($("#events").children.length > 200) $("#events").lastChild.remove();
      }
    });
  });
})();
