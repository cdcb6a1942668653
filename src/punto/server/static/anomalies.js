// The pit's protection: a standing warning for every
// wager a table offers that favours the player, with its exact edge and who
// confirmed it; and the dealer and table anomalies with their tests' alerts.
// The figures are the API's (/api/pit/warnings, /api/pit/anomalies) as given.
"use strict";

const PuntoProtection = (() => {
  const { $, el, api, errorText, money, words } = Punto;

  // The wagers of a table to be set up that favour the player: what a pit
  // manager confirms by ticking "confirm" on the new-table form.
  async function favoured(game, layout) {
    const query = `game=${encodeURIComponent(game)}${layout ? `&layout=${encodeURIComponent(layout)}` : ""}`;
    const result = await api("GET", `/api/pit/edges?${query}`);
    return result.ok ? result.data.filter((e) => e.player_favoured).map((e) => e.wager) : [];
  }

  const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(2).replace(/^-/, "−")}%`);
  const signed = (text) => String(text).replace(/^-/, "−");

  async function loadWarnings() {
    const result = await api("GET", "/api/pit/warnings");
    const list = $("#warnings-list");
    if (!result.ok) {
      list.replaceChildren(el("p", { class: "muted", text: errorText(result) }));
      return;
    }
    $("#warnings").classList.remove("hidden");
    if (!result.data.length) {
      list.replaceChildren(el("p", { class: "muted", testid: "warnings-none", text: "No table offers a wager that favours the player." }));
      return;
    }
    // One line per wager, in words: the table, the wager, what it gives the
    // player, its rule, and who allowed it when (or that no one has).
    const head = el("tr", {}, ...["Table", "Wager", "House edge", "Rule", "Allowed by"].map((h, i) => el("th", { scope: "col", class: i === 2 ? "num" : "", text: h })));
    list.replaceChildren(el("table", { class: "list warnings-table", testid: "warnings-table" }, el("thead", {}, head),
      el("tbody", {}, ...result.data.map((w) => {
        const c = w.confirmation;
        return el("tr", { class: c ? "" : "unconfirmed", role: c ? null : "alert", testid: `warning-${w.table_id}-${w.wager}`, dataset: { table: w.table_id, wager: w.wager, edge: w.house_edge } },
          el("td", {}, el("strong", { text: w.table_id }), el("div", { class: "muted", text: w.table_name || "" })),
          el("td", {}, el("strong", { text: w.name }),
            el("div", { text: `returns the player ${signed((-Number(w.house_edge_percent)).toFixed(2))}% of each stake on average` })),
          el("td", { class: "num neg" }, el("span", { testid: `warning-edge-${w.table_id}-${w.wager}`, text: `${signed(w.house_edge_percent)}%` }),
            el("div", { class: "muted", text: `exactly ${w.house_edge}` })),
          el("td", { text: `clause ${w.clause}; ${w.decks} decks; pairs by ${words(w.pair_rule)}` }),
          el("td", { testid: `warning-by-${w.table_id}-${w.wager}` }, c
            ? [el("div", { text: `${c.by} (${words(c.role)})` }), el("div", { class: "muted", text: new Date(c.at).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) })]
            : el("strong", { class: "neg", text: "not allowed yet: a pit manager must confirm it" })));
      }))));
  }

  // The counts of each dealer and table, in the order of the columns.
  const STATISTICS = ["keyed_cards", "voids", "resettlements", "irregularities", "claims_filed", "claims_confirmed", "claims_rejected", "claims_refused"];

  function countCell(a, statistic) {
    const c = a.counts[statistic];
    return el("td", { class: `num${c.alert ? " neg" : ""}`, testid: `anomaly-${a.kind}-${a.name}-${statistic}`, title: `${c.rounds_with} of ${c.rounds} rounds; pit ${c.pit_rate}; p = ${c.p_value.toPrecision(2)}`, text: c.per_hundred_rounds.toFixed(2) });
  }

  function rows(list) {
    return list.map((a) => el("tr", { testid: `anomaly-${a.kind}-${a.name}`, dataset: { kind: a.kind, name: a.name } },
      el("td", { text: `${a.kind === "dealer" ? "dealer" : "table"} ${a.name}` }),
      el("td", { class: "num", text: a.rounds }),
      ...STATISTICS.map((s) => countCell(a, s)),
      el("td", { class: "num", text: money(a.hold.staked) }),
      el("td", { class: "num", testid: `anomaly-${a.kind}-${a.name}-hold`, text: pct(a.hold.actual_hold) }),
      el("td", { class: "num", testid: `anomaly-${a.kind}-${a.name}-theoretical`, text: pct(a.hold.theoretical_hold) }),
      el("td", { class: `num${a.hold.alert ? " neg" : ""}`, text: a.hold.z === null ? "–" : signed(a.hold.z.toFixed(2)) }),
      el("td", { testid: `anomaly-${a.kind}-${a.name}-alerts` }, ...a.alerts.map((t) => el("div", { class: "notice", role: "alert", text: t })))));
  }

  // Each (dealer, player) a money ruling touched: the two exact tests, the
  // money the rulings left the player beyond what the cards gave, and the
  // ruled stakes with their value at placement.
  function rulingRows(list) {
    if (!list.length) return [el("p", { class: "muted", testid: "rulings-none", text: "No money ruling yet." })];
    return list.map((p) => el("details", { testid: `rulings-${p.dealer}-${p.player}`, dataset: { dealer: p.dealer, player: p.player }, open: p.alerts.length > 0 },
      el("summary", {},
        el("strong", { text: `dealer ${p.dealer}, player ${p.player}` }),
        `: ${p.rounds} rounds, ${p.stakes_ruled} stakes ruled, saved ${money(p.saved)} against the cards; `,
        ...p.tests.map((t) => el("span", { class: t.alert ? "neg" : "muted", text: `${t.statistic} ${t.count} of ${t.out_of} (pit ${t.pit_rate}, p = ${t.p_value.toPrecision(2)}) ` })),
        ...p.alerts.map((t) => el("div", { class: "notice", role: "alert", text: t }))),
      el("table", { class: "list" },
        el("thead", {}, el("tr", {}, ["Round", "Ruling", "Clause", "Wager", "Stake", "As dealt", "After", "Saved", "Value at placement"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, p.ruled.map((r, i) => el("tr", { testid: `ruled-${p.dealer}-${p.player}-${i}` },
          el("td", { text: r.round_id }),
          el("td", { text: r.ruling }),
          el("td", { text: r.clause || "–" }),
          el("td", { text: r.wager }),
          el("td", { class: "num", text: money(r.stake) }),
          el("td", { class: "num", text: r.as_dealt === null ? "not dealt" : money(r.as_dealt) }),
          el("td", { class: "num", text: money(r.net) }),
          el("td", { class: "num", text: r.saved === null ? "–" : money(r.saved) }),
          el("td", { class: "num", title: r.value === null ? "" : `exact return per unit: ${r.value}`, text: r.value === null ? "–" : pct(Number(r.value.split("/")[0]) / Number(r.value.split("/")[1] || 1)) })))))));
  }

  async function loadAnomalies() {
    const result = await api("GET", "/api/pit/anomalies");
    if (!result.ok) return;
    const data = result.data;
    $("#anomalies").classList.remove("hidden");
    $("#anomalies-tests").textContent = `${data.rounds} finished rounds. Counts: ${data.tests.counts}. Hold: ${data.tests.hold}.`;
    const head = el("tr", {}, ...["Who", "Rounds", "Keyed cards /100", "Voids /100", "Resettlements /100", "Irregularities /100", "Claims filed /100", "Confirmed /100", "Rejected /100", "Refused by the record /100", "Staked", "Hold", "Theoretical", "z", "Alerts"]
      .map((h, i) => el("th", { scope: "col", class: i > 0 && i < 10 ? "num" : "", text: h })));
    $("#anomalies-table").replaceChildren(head, ...rows(data.dealers), ...rows(data.tables));
    const open = new Set(Array.from(document.querySelectorAll("#anomalies-rulings details[open]")).map((d) => `${d.dataset.dealer}/${d.dataset.player}`));
    const found = rulingRows(data.players || []);
    found.forEach((d) => { if (d.dataset && open.has(`${d.dataset.dealer}/${d.dataset.player}`)) d.open = true; });
    $("#anomalies-rulings").replaceChildren(...found);
    $("#anomalies-tests").textContent += ` Rulings: ${data.tests.rulings}.`;
  }

  async function load() {
    // who is logged in, asked each time: the login box is the pit page's (pit.js)
    const session = await api("GET", "/api/session");
    const user = session.ok && session.data ? session.data.user : null;
    if (!Punto.seesPit(user)) {
      $("#warnings").classList.add("hidden");
      $("#anomalies").classList.add("hidden");
      return;
    }
    await loadWarnings();
    await loadAnomalies();
  }

  load();
  // like the pit's figures, every 4 s (they are read from the tables' logs)
  setInterval(load, 4000);
  return { favoured, load };
})();
