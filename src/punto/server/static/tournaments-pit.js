// The pit's tournaments: a pit manager (or higher) creates a tournament from
// a format, registers automated entrants, starts its sessions, advances one
// that is not live (the runner plays the next steps), and cancels one with a
// reason (T8.4: every entry fee given back).  Every control is the API's own.
"use strict";

Punto.ready.then(() => {
  const { $, el, api, money } = Punto;
  const say = Punto.sayer($("#m-message"));
  const MANAGERS = ["pit_manager", "shift_manager", "assistant_casino_manager", "admin"];
  const STRATEGIES = ["flat", "banker", "catchup", "pairs"];
  let user = null;
  let formats = [];

  const manager = () => !!user && MANAGERS.includes(user.role);
  const base = (x) => `/api/tournaments/${encodeURIComponent(x.id)}`;

  async function act(method, path, body, done) {
    const data = await Punto.perform(method, path, body, say, "");
    if (data) say(done(data), true);
    await load();
    return data;
  }

  // What the pit typed survives the page's refresh every few seconds (the
  // rows are built again from the server's list).
  const typed = new Map();
  function kept(node) {
    const id = node.dataset.testid;
    if (typed.has(id)) node.value = typed.get(id);
    node.addEventListener("input", () => typed.set(id, node.value));
    return node;
  }

  function controls(x) {
    const over = x.stage === "finished" || x.stage === "cancelled";
    const parts = [];
    if (!manager() || over) return parts;
    if (x.stage === "registration" || (x.stage === "between_sessions" && !x.live)) {
      parts.push(el("button", { type: "button", testid: `m-start-${x.id}`, text: x.stage === "registration" ? "Start the first session" : "Start the next session",
        onclick: () => act("POST", `${base(x)}/start`, undefined, (d) => `${x.id}: ${d.session ? d.session.name : "session"} started`) }));
    }
    if (!x.live) {
      const steps = kept(el("input", { type: "number", min: "1", max: "5000", value: "10", class: "small", testid: `m-steps-${x.id}`, "aria-label": `steps to advance ${x.id}` }));
      parts.push(el("span", { class: "m-advance" }, steps,
        el("button", { type: "button", class: "secondary", testid: `m-advance-${x.id}`, text: "Advance",
          onclick: () => act("POST", `${base(x)}/advance`, { steps: Number(steps.value) }, (d) => `${x.id}: ${d.steps} steps played${d.finished ? "; finished, prizes paid" : ""}`) })));
    }
    if (x.stage === "registration") {
      const strategy = el("select", { testid: `m-strategy-${x.id}`, "aria-label": `strategy of an automated entrant of ${x.id}` }, STRATEGIES.map((s) => el("option", { value: s, text: s })));
      parts.push(el("span", { class: "m-bot" }, strategy,
        el("button", { type: "button", class: "secondary", testid: `m-bot-${x.id}`, text: "Add an automated entrant",
          onclick: () => act("POST", `${base(x)}/register`, { name: `Bot ${x.entrants + 1} (${strategy.value})`, strategy: strategy.value }, (d) => `${d.name} registered`) })));
    }
    const reason = kept(el("input", { maxlength: "500", placeholder: "reason", testid: `m-reason-${x.id}`, "aria-label": `reason to cancel ${x.id}` }));
    parts.push(el("span", { class: "m-cancel" }, reason,
      el("button", { type: "button", class: "secondary", testid: `m-cancel-${x.id}`, text: "Cancel the tournament",
        onclick: () => {
          if (!reason.value.trim()) return say("Give the reason the tournament is called off.");
          if (!window.confirm(`Cancel ${x.id}? Every entry fee paid is given back (T8.4); this cannot be undone.`)) return undefined;
          return act("POST", `${base(x)}/cancel`, { reason: reason.value.trim() }, (d) => `${x.id} cancelled; ${d.cancelled.refunds.length} entry fees given back`);
        } })));
    return parts;
  }

  function row(x) {
    const stage = x.session ? `${Punto.stageName(x.stage)} · ${x.session.name}` : Punto.stageName(x.stage);
    return el("article", { class: "l-card", testid: `m-tournament-${x.id}`, dataset: { stage: x.stage } },
      el("h3", { text: `${x.title} · ${x.id}` }),
      el("p", { testid: `m-stage-${x.id}`, text: `${stage}${x.live ? " · live" : " · run by the pit"} · ${x.entrants} of ${x.seats} entrants (at least ${x.min_entrants}) · fee ${x.entry_fee ? money(x.entry_fee) : "none"} · prizes ${money(x.prize_pool)} ${x.currency}` }),
      el("div", { class: "l-actions" },
        el("a", { href: `/tournaments/${encodeURIComponent(x.id)}`, class: "l-link", text: "Table" }),
        el("a", { href: `/tournaments/${encodeURIComponent(x.id)}/board`, class: "l-link alt", text: "Leaderboard" }),
        controls(x)));
  }

  async function load() {
    const result = await api("GET", "/api/tournaments");
    if (!result.ok) return say(Punto.errorText(result));
    const list = result.data;
    $("#m-list").replaceChildren(...(list.length ? list.map(row) : [el("p", { class: "empty", text: "No tournaments yet." })]));
    return undefined;
  }

  function about() {
    const f = formats.find((x) => x.id === $("#m-format").value);
    $("#m-format-about").textContent = f ? `${f.description} Entry fee ${f.registration.entry_fee ? money(f.registration.entry_fee) : "none"}; ${f.registration.min_entrants}–${f.registration.max_entrants} entrants; ${f.sessions.length} sessions.` : "";
  }

  $("#m-format").addEventListener("change", about);
  $("#m-create").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { id: $("#m-id").value.trim(), format: $("#m-format").value, live: $("#m-live").checked };
    if (body.live) {
      body.betting_seconds = Number($("#m-betting").value);
      body.pause_seconds = Number($("#m-pause").value);
    }
    const data = await act("POST", "/api/tournaments", body, (d) => `${d.id} created (${d.title}): open for registration`);
    if (data) $("#m-id").value = "";
  });

  const login = Punto.loginBox($("#login"), (who) => {
    user = who;
    $("#m-create-box").classList.toggle("hidden", !manager());
    $("#m-who").textContent = manager() ? "" : who ? `A ${Punto.roleName(who.role)} sees the tournaments; a pit manager or higher runs them.` : "Log in as a pit manager (or higher) to run the tournaments.";
    load();
  });

  (async () => {
    const result = await api("GET", "/api/tournament-formats");
    formats = result.ok ? result.data : [];
    $("#m-format").replaceChildren(...formats.map((f) => el("option", { value: f.id, text: `${f.title} (${f.id})` })));
    about();
    await login.refresh();
  })();
  setInterval(load, 5000);
});
