// The pit's game protection: players' ratings (by player, table or shift;
// the same figures as GET /api/pit/ratings and its CSV export) and the
// advantage-play alerts with their evidence (GET /api/pit/alerts).
"use strict";

(() => {
  const { $, el, api, money } = Punto;

  // An exact fraction ("-123/4567") as a percentage to four places, by
  // integer arithmetic (half away from zero), with a true minus sign.
  function percentOf(fraction) {
    const [num, den] = String(fraction).split("/").concat("1");
    let n = BigInt(num) * 2000000n;
    const d = BigInt(den);
    const negative = n < 0n;
    if (negative) n = -n;
    const units = (n / d + 1n) / 2n; // ten-thousandths of a percent
    const whole = units / 10000n;
    const part = String(units % 10000n).padStart(4, "0");
    return `${negative && units !== 0n ? "−" : ""}${whole}.${part}%`;
  }
  const signedPercent = (text) => String(text).replace(/^-/, "−");
  const negated = (fraction) => (String(fraction).startsWith("-") ? String(fraction).slice(1) : `-${fraction}`);

  const COLUMNS = [
    ["key", "", (r) => r.key],
    ["hands", "Hands", (r) => String(r.hands)],
    ["staked", "Staked", (r) => money(r.staked)],
    ["actual", "Actual win", (r) => money(r.actual_win)],
    ["theoretical", "Theoretical win", (r) => money(r.theoretical_win)],
    ["average", "Average bet", (r) => money(r.average_bet)],
    ["edge", "House edge", (r) => signedPercent(r.house_edge)],
  ];

  async function loadRatings() {
    const by = $("#ratings-by").value;
    const result = await api("GET", `/api/pit/ratings?by=${encodeURIComponent(by)}`);
    if (!result.ok) return false;
    $("#ratings-csv").setAttribute("href", `/api/pit/ratings?by=${encodeURIComponent(by)}&format=csv`);
    const head = el("tr", {}, COLUMNS.map(([, label], i) =>
      el("th", { scope: "col", text: i === 0 ? by[0].toUpperCase() + by.slice(1) : label })));
    const rows = result.data.rows.map((r) => el("tr", { testid: `rating-${r.key}` },
      COLUMNS.map(([name, , show], i) => el(i === 0 ? "th" : "td", {
        scope: i === 0 ? "row" : null,
        testid: `rating-${name}-${r.key}`,
        title: name === "theoretical" ? `exact: ${r.theoretical_win_exact} minor units` : null,
        text: show(r),
      }))));
    const empty = rows.length ? [] : [el("tr", {}, el("td", { colspan: COLUMNS.length, class: "muted", text: "No settled bets valued yet." }))];
    $("#ratings").replaceChildren(el("thead", {}, head), el("tbody", {}, rows, empty));
    return true;
  }

  // The bets of an alert's run: the round, the wager, the stake, who placed
  // it (the table's tests name every player), its exact value at placement
  // and the cards unseen then (the count, exactly).
  function evidenceTable(alert) {
    if (alert.test === "a wager that favours the player") {
      return el("ul", {}, alert.evidence.map((e, i) => el("li", { testid: `evidence-${alert.id}-${i}` },
        `${e.wager} returns the player ${percentOf(negated(e.house_edge))} of each stake off the top (house edge ${percentOf(e.house_edge)}, exactly ${e.house_edge}; clause ${e.clause}; ${e.decks} decks, pairs read by the ${e.pair_rule} rule)`)));
    }
    const head = el("tr", {}, ["Round", "Wager", "Stake", "Placed by", "Value (return)", "Cards unseen (A–K)"].map((t) => el("th", { scope: "col", text: t })));
    const rows = alert.evidence.map((e, i) => el("tr", { testid: `evidence-${alert.id}-${i}` },
      el("td", { text: e.round_id }),
      el("td", { text: e.wager }),
      el("td", { text: money(e.stake) }),
      el("td", { testid: `evidence-players-${alert.id}-${i}`, text: e.players ? e.players.map((p) => `${p.player} ${money(p.stake)}`).join(", ") : alert.player }),
      el("td", { title: `exact: ${e.value}`, text: percentOf(e.value) }),
      el("td", { class: "muted", text: e.composition.join(" ") })));
    return el("table", { class: "list" }, el("thead", {}, head), el("tbody", {}, rows));
  }

  function summary(a) {
    const who = a.player ? el("strong", { testid: `alert-player-${a.id}`, text: a.player }) : el("strong", { testid: `alert-player-${a.id}`, text: "the table" });
    const test = el("span", { testid: `alert-test-${a.id}`, text: a.test });
    const when = el("span", { class: "muted", text: `(${new Date(a.raised_at).toLocaleString()}; false alarms: ${a.false_alarm_rate})` });
    if (a.test === "a wager that favours the player") {
      return el("summary", {}, el("strong", { testid: `alert-player-${a.id}`, text: a.table_id }), " offers ", test, " ", when);
    }
    const players = new Set(a.evidence.flatMap((e) => (e.players || []).map((p) => p.player)));
    const named = a.player ? "" : ` by ${players.size} player${players.size === 1 ? "" : "s"} (${Array.from(players).join(", ")})`;
    // the value tests' bets carry their expected net to the bettors: the run's, added in cents
    const nets = a.evidence.filter((e) => e.expected_net !== undefined);
    const cents = nets.reduce((sum, e) => sum + Math.round(Number(e.expected_net) * 100), 0);
    const worth = nets.length ? el("span", { testid: `alert-expected-${a.id}`, text: `; worth ${money((cents / 100).toFixed(2))} to the bettor${a.player ? "" : "s"} at placement` }) : "";
    return el("summary", {},
      who, ` at ${a.table_id}, `, test, `: statistic `,
      el("span", { testid: `alert-statistic-${a.id}`, text: Number(a.statistic).toFixed(2) }),
      ` reached ${a.threshold} over ${a.evidence.length} bet${a.evidence.length === 1 ? "" : "s"}${named}`,
      worth, " ", when);
  }

  async function loadAlerts() {
    const result = await api("GET", "/api/pit/alerts");
    if (!result.ok) return false;
    const open = new Set(Array.from(document.querySelectorAll("#protection-alerts details[open]")).map((d) => d.dataset.id));
    const items = result.data.alerts.map((a) => el("details", { testid: `alert-${a.id}`, dataset: { id: String(a.id), test: a.test }, open: open.has(String(a.id)) },
      summary(a),
      evidenceTable(a)));
    $("#protection-alerts").replaceChildren(...(items.length ? items : [el("p", { class: "muted", text: "No alerts." })]));
    return true;
  }

  async function load() {
    // Only the pit sees them: ask who is logged in first (no refused request).
    const session = await api("GET", "/api/session");
    const user = session.ok && session.data ? session.data.user : null;
    if (!Punto.seesPit(user)) {
      $("#ratings-panel").classList.add("hidden");
      $("#alerts-panel").classList.add("hidden");
      return;
    }
    const [ratings, alerts] = await Promise.all([loadRatings(), loadAlerts()]);
    $("#ratings-panel").classList.toggle("hidden", !ratings);
    $("#alerts-panel").classList.toggle("hidden", !alerts);
  }

  $("#ratings-by").addEventListener("change", load);
  load();
  setInterval(load, 4000);
})();
