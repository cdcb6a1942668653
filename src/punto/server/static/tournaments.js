// The tournaments' lobby: every tournament on the server, scheduled (open for
// registration), running and finished, with its format, entry fee, prize
// pool, seats and stage; a logged-in player registers (the entry fee from
// the wallet) or takes an entry back before the first session (T2.4), and
// goes to the tournament's table or its big-screen leaderboard.
"use strict";

Punto.ready.then(() => {
  const { $, el, api, money, t, count } = Punto;
  const say = Punto.sayer($("#l-message"));
  let user = null;
  const mine = new Map(); // tournament id -> my entry (a registered player's)

  function stageText(x) {
    if (x.stage === "registration") return t("Open for registration");
    if (x.stage === "playing") return x.session ? t("{session} in play", { session: t(x.session.name) }) : t("In play");
    if (x.stage === "between_sessions") return t("Between sessions");
    if (x.stage === "finished") return t("Finished");
    if (x.stage === "cancelled") return t("Cancelled");
    return Punto.words(x.stage);
  }

  function fact(label, value, testid) {
    return el("div", { class: "l-fact" }, el("dt", { text: label }), el("dd", { text: value, testid }));
  }

  async function register(x) {
    const path = `/api/tournaments/${encodeURIComponent(x.id)}/register`;
    const data = await Punto.perform("POST", path, undefined, say, t("Registering"));
    if (!data) return;
    say(data.fee ? t("Registered for {title} (entry fee {fee} paid)", { title: t(x.title), fee: money(data.fee) }) : t("Registered for {title}", { title: t(x.title) }), true);
    await load();
  }

  async function withdraw(x) {
    const path = `/api/tournaments/${encodeURIComponent(x.id)}/register`;
    const data = await Punto.perform("DELETE", path, undefined, say, t("Taking the entry back"));
    if (!data) return;
    say(data.refund ? t("Entry taken back (entry fee {fee} given back)", { fee: money(data.refund) }) : t("Entry taken back"), true);
    await load();
  }

  function actions(x) {
    const links = [
      el("a", { href: `/tournaments/${encodeURIComponent(x.id)}`, class: "l-link", testid: `l-open-${x.id}`, text: x.stage === "registration" || x.stage.endsWith("sessions") || x.stage === "playing" ? t("Go to the table") : t("Results") }),
      el("a", { href: `/tournaments/${encodeURIComponent(x.id)}/board`, class: "l-link alt", testid: `l-board-${x.id}`, text: t("Leaderboard") }),
    ];
    const entry = mine.get(x.id);
    if (user && user.role === "player") {
      if (entry && entry.may_take_back) {
        links.push(el("button", { type: "button", class: "secondary", testid: `l-withdraw-${x.id}`, text: t("Take my entry back"), onclick: () => withdraw(x) }));
      } else if (!entry && x.stage === "registration") {
        links.push(el("button", { type: "button", testid: `l-register-${x.id}`, text: t("Register"), onclick: () => register(x) }));
      }
    } else if (!user && x.stage === "registration") {
      links.push(el("span", { class: "sub", text: t("Log in to register.") }));
    }
    return el("div", { class: "l-actions" }, links);
  }

  function card(x) {
    const entry = mine.get(x.id);
    const fee = x.entry_fee ? `${money(x.entry_fee)} ${x.currency}` : t("Free entry");
    return el("article", { class: "l-card", testid: `l-tournament-${x.id}`, dataset: { stage: x.stage } },
      el("h3", {}, el("span", { text: t(x.title) }), el("span", { class: "l-id", text: ` · ${x.id}` })),
      el("p", { class: "l-stage", testid: `l-stage-${x.id}`, text: x.live ? [stageText(x), t("live: every hand on the clock")].join(" · ") : stageText(x) }),
      el("dl", { class: "l-facts" },
        fact(t("Format"), t(x.title), `l-format-${x.id}`),
        fact(t("Entry fee"), fee, `l-fee-${x.id}`),
        fact(t("Prize pool"), `${money(x.prize_pool)} ${x.currency}`, `l-prizes-${x.id}`),
        fact(t("Seats"), t("{entrants} of {seats} taken", { entrants: count(x.entrants), seats: count(x.seats) }), `l-seats-${x.id}`),
        fact(t("Starting chips"), count(x.starting_chips), `l-chips-${x.id}`)),
      entry ? el("p", { class: "l-mine", testid: `l-mine-${x.id}`, text: entry.chips ? t("You are registered · {chips} chips", { chips: count(entry.chips) }) : t("You are registered") }) : null,
      actions(x));
  }

  async function entries(list) {
    mine.clear();
    if (!user || user.role !== "player") return;
    // a player's own entries, from each open or running tournament's snapshot
    await Promise.all(list.filter((x) => x.stage !== "finished" && x.stage !== "cancelled").map(async (x) => {
      const result = await api("GET", `/api/tournaments/${encodeURIComponent(x.id)}`);
      const found = result.ok ? (result.data.entrants || []).find((e) => e.entrant === user.username) : null;
      if (found) mine.set(x.id, found);
    }));
  }

  async function load() {
    const result = await api("GET", "/api/tournaments");
    if (!result.ok) return say(Punto.errorText(result));
    const list = result.data;
    await entries(list);
    const groups = { scheduled: [], running: [], finished: [] };
    for (const x of list) {
      if (x.stage === "registration") groups.scheduled.push(x);
      else if (x.stage === "finished" || x.stage === "cancelled") groups.finished.push(x);
      else groups.running.push(x);
    }
    const empty = { scheduled: t("No tournament is open for registration."), running: t("No tournament is running."), finished: t("No tournament has finished yet.") };
    for (const [name, xs] of Object.entries(groups)) {
      $(`#l-${name}`).replaceChildren(...(xs.length ? xs.map(card) : [el("p", { class: "empty", text: empty[name] })]));
    }
    if (user && user.role === "player") {
      const me = await api("GET", "/api/me");
      if (me.ok) $("#l-balance").textContent = money(me.data.balance);
    }
  }

  const login = Punto.loginBox($("#login"), (who) => {
    user = who;
    $("#l-wallet").classList.toggle("hidden", !who || who.role !== "player");
    if (who && who.role === "player") $("#l-balance").textContent = money(who.balance);
    load();
  });
  login.refresh();
  setInterval(load, 5000);
});
