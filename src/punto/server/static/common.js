// punto: what every page shares -- the page's elements, its language, the
// API and login, money and words, whether the page is live.  A page that
// follows a table's stream loads live.js after this file, and one that
// shows the felt (cards, hands, roads) felt.js: each adds to `Punto`.
// Plain JavaScript, no build step, no inline code (the pages run under a
// strict Content-Security-Policy: styles are set through the CSSOM only).
"use strict";

const Punto = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";

  function $(selector, root) {
    return (root || document).querySelector(selector);
  }

  function $$(selector, root) {
    return Array.from((root || document).querySelectorAll(selector));
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else if (key === "testid") node.dataset.testid = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "style") throw new Error("inline styles are refused by the page's policy");
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // An SVG element; attributes are presentation attributes, not styles.
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "testid") node.setAttribute("data-testid", value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) if (child) node.append(child);
    return node;
  }

  // -- languages -------------------------------------------------------------------------

  // A translated page (<body data-i18n-page>) says everything through its
  // message catalogue (GET /api/i18n: Babel's catalogues on the server),
  // English, the source language, by the msgids themselves; numbers and
  // money are formatted by Intl for the same locale.  The language is the
  // browser's unless the page's switch chose one (remembered here).
  const LOCALE_KEY = "punto:locale";
  let language = { locale: "en", languages: { en: "English" }, messages: {} };

  function translatedPage() {
    return !!document.body && document.body.hasAttribute("data-i18n-page");
  }

  function chosenLocale() {
    try {
      return localStorage.getItem(LOCALE_KEY);
    } catch (error) {
      return null;
    }
  }

  async function loadLanguage() {
    if (!translatedPage()) return;
    const chosen = chosenLocale();
    const result = await api("GET", `/api/i18n${chosen ? `?locale=${encodeURIComponent(chosen)}` : ""}`);
    if (result.ok && result.data && result.data.messages) language = result.data;
    document.documentElement.lang = language.locale;
    document.body.dataset.locale = language.locale;
    translate(document);
  }

  // "{name}" in a message is params.name.
  function fill(text, params) {
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
  }

  // A message in the page's language.
  function t(msgid, params) {
    const found = language.messages[msgid];
    return fill(Array.isArray(found) ? found[0] : found || msgid, params);
  }

  // A message with a plural: the form Intl.PluralRules chooses for n in the
  // page's language ({n} is n, formatted).
  function tn(singular, plural, n, params) {
    const all = { n: count(n), ...(params || {}) };
    const found = language.messages[singular];
    if (Array.isArray(found)) {
      const forms = found.length;
      const index = forms === 1 ? 0 : new Intl.PluralRules(language.locale).select(n) === "one" ? 0 : 1;
      return fill(found[Math.min(index, forms - 1)], all);
    }
    return fill(new Intl.PluralRules("en").select(n) === "one" ? singular : plural, all);
  }

  // The marked texts and attributes of the page's HTML (Babel extracts the same).
  function translate(root) {
    for (const node of $$("[data-i18n]", root)) {
      if (node.dataset.i18nSource === undefined) node.dataset.i18nSource = node.textContent.replace(/\s+/g, " ").trim();
      node.textContent = t(node.dataset.i18nSource);
    }
    for (const node of $$("[data-i18n-attr]", root)) {
      for (const name of node.dataset.i18nAttr.split(/\s+/).filter(Boolean)) {
        const key = `i18n${name.replace(/(^|-)(\w)/g, (m, dash, c) => c.toUpperCase())}`;
        if (node.dataset[key] === undefined) node.dataset[key] = node.getAttribute(name) || "";
        node.setAttribute(name, t(node.dataset[key]));
      }
    }
  }

  function locale() {
    return language.locale;
  }

  // The language switch of a translated page: the choice is remembered and
  // the page opens again in it.
  function languageSwitch() {
    const id = "language-switch";
    const select = el("select", { id, testid: "language", "aria-label": t("Language") },
      Object.entries(language.languages || {}).map(([code, name]) =>
        el("option", { value: code, selected: code === language.locale, lang: code, text: name })));
    select.addEventListener("change", () => {
      try {
        localStorage.setItem(LOCALE_KEY, select.value);
      } catch (error) {
        // no storage: the choice holds for this page only
      }
      location.reload();
    });
    return select;
  }

  // Every page's header: the tables and the tournaments, and a translated
  // page's language switch.
  function decorateHeader() {
    const bar = $("header.bar");
    if (!bar || $("[data-testid=\"nav\"]", bar)) return;
    const here = location.pathname;
    const link = (href, text, testid, current) => el("a", { href, testid, text, "aria-current": current ? "page" : null });
    const nav = el("nav", { class: "nav", testid: "nav", "aria-label": t("Sections") },
      link("/", t("Tables"), "nav-tables", here === "/"),
      link("/tournaments", t("Tournaments"), "nav-tournaments", here.startsWith("/tournaments")));
    const title = $(".title", bar);
    if (title) title.after(nav);
    else bar.append(nav);
    if (translatedPage()) nav.append(languageSwitch());
  }

  function tableId() {
    const parts = location.pathname.split("/").filter(Boolean);
    return parts.length > 1 ? decodeURIComponent(parts[1]) : "";
  }

  // -- the API -------------------------------------------------------------------------

  async function api(method, path, body, headers) {
    const options = { method, headers: { ...(headers || {}) }, credentials: "same-origin" };
    // Every request that changes something says it is JSON, even with no body:
    // the server refuses cookie-driven requests that do not (a page of another
    // site cannot send this header without the server's permission).
    if (method !== "GET") options.headers["Content-Type"] = "application/json";
    if (body !== undefined) options.body = JSON.stringify(body);
    let response;
    try {
      response = await fetch(path, options);
    } catch (error) {
      // The browser's own words ("Failed to fetch") are not for the person
      // in front of the page: the request may or may not have arrived.
      return { ok: false, status: 0, data: { error: { message: t("the server cannot be reached") } } };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    return { ok: response.ok, status: response.status, data };
  }

  // Whether an answer says nothing about the request: no answer at all, or a
  // proxy's or an overloaded server's (the request may never have run).
  function unanswered(result) {
    return result.status === 0 || result.status === 502 || result.status === 503 || result.status === 504;
  }

  // Whether the server is still at the request with this key (the first
  // send, still running, holds it): ask again, the answer is coming.
  function inProgress(result) {
    const error = result.data && result.data.error;
    return result.status === 409 && !!error && error.type === "RequestKeyTakenError";
  }

  // A state-changing request that must survive a fault: it carries the
  // idempotency key made when the person acted, and goes again with the same
  // key while no answer comes (back-off from half a second to 5 s, for at
  // most `patience` seconds), so it is done once or not at all: the server
  // answers a retry of a request it has done with its first answer.
  // `pending` is told "sending…" from the start and while it waits (nothing
  // is said done before the server says so).  The last answer is returned; a
  // request never answered comes back with `lost: true`.
  async function send(method, path, body, options) {
    const opts = options || {};
    const key = opts.key || newKey();
    const headers = { ...(opts.headers || {}), "Idempotency-Key": key };
    const patience = (opts.patience || 45) * 1000;
    const started = Date.now();
    let wait = 500;
    if (opts.pending) opts.pending(t("sending…"));
    for (;;) {
      const result = await api(method, path, body, headers);
      if (!unanswered(result) && !inProgress(result)) return { ...result, key };
      if (Date.now() - started + wait > patience) return { ...result, lost: true, key };
      if (opts.pending) opts.pending(t("sending… (no answer from the server yet: the same request goes again, and is done at most once)"));
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 5000);
    }
  }

  // The words for a request never answered: nothing is claimed either way.
  function notConfirmed() {
    return t("not confirmed: the server could not be reached, so it may or may not have been done. The page shows the server's state once the connection is back.");
  }

  // send() for a page's action, said on `say`: "sending…" while it waits,
  // the refusal in words, NOT_CONFIRMED if no answer came; the answer's data
  // when it was done (null otherwise).  `what`: the action's name, for the words.
  async function perform(method, path, body, say, what, options) {
    const label = what ? `${what}: ` : "";
    const result = await send(method, path, body, { ...(options || {}), pending: (text) => say(`${label}${text}`) });
    if (result.lost || unanswered(result)) {
      say(`${label}${notConfirmed()}`);
      return null;
    }
    if (!result.ok) {
      say(`${label}${errorText(result)}`);
      return null;
    }
    say("");
    return result.data || {};
  }

  // A table's limits refusal in people's words, from the engine's message (the
  // API's error stays as it is, for programs): "The Player box at seat 1
  // takes at most 1,000.00 more (clause 3.6)".  nameOf(wager id) gives the
  // wager's name; null for a refusal of another kind.
  const OVER_MAXIMUM = /^(\w+) ([\d.,]+) would take the (?:seated bets of the )?(\w+) (box|area) of position (\d+) to ([\d.,]+), over its maximum of ([\d.,]+)$/;
  const UNDER_MINIMUM = /^(\w+) ([\d.,]+) is under the table minimum of ([\d.,]+)$/;
  function refusalWords(error, nameOf) {
    if (!error || error.type !== "LimitError" || !error.message) return null;
    const name = (id) => (nameOf ? nameOf(id) : wagerName(words(id).replace(/\b\w/g, (c) => c.toUpperCase())));
    const clause = (text) => (error.clause ? t("{text} (clause {clause})", { text, clause: error.clause }) : text);
    const plain = (amount) => String(amount).replace(/,/g, "");
    let m = OVER_MAXIMUM.exec(error.message);
    if (m) {
      const [, , stake, wager, kind, position, , maximum] = m;
      // what the area held before this stake: the total it would reach, less the stake
      const room = Math.max(0, cents(plain(maximum)) - (cents(plain(m[6])) - cents(plain(stake))));
      const where = { name: name(wager), seat: position };
      const place = kind === "box" ? t("The {name} box at seat {seat}", where) : t("The {name} area at seat {seat}", where);
      if (!room) return clause(t("{place} is full: its maximum of {maximum} is reached. Bet in another area.", { place, maximum: money(plain(maximum)) }));
      return clause(t("{place} takes at most {room} more", { place, room: money(fromCents(room)) }));
    }
    m = UNDER_MINIMUM.exec(error.message);
    if (m) return clause(t("The minimum bet on {name} is {minimum}", { name: name(m[1]), minimum: money(plain(m[3])) }));
    return null;
  }

  function errorText(result, nameOf) {
    const error = result && result.data && result.data.error;
    if (!error) {
      const detail = result && result.data && result.data.detail;
      if (Array.isArray(detail) && detail.length) return detail.map((d) => d.msg).join("; ");
      return t("the server answered {status}", { status: result ? result.status : "–" });
    }
    // A refusal the page can say in people's words (sayRefusal) is said so;
    // else the server's own text, with its clause.
    const said = refusalWords(error, nameOf);
    if (said) return said;
    const text = error.text || error.message;
    return error.clause && !String(text).includes("clause") ? t("{text} (clause {clause})", { text, clause: error.clause }) : text;
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  }

  // -- money, odds, words -----------------------------------------------------------------

  // Amounts arrive as decimal strings ("10075.00"); they are shown exactly,
  // grouped by thousands, never passed through floating point.
  // Intl formats the decimal string itself (exactly, as a decimal), with the
  // page's locale: one format for every amount on a page.
  const formats = new Map();
  function numberFormat(digits) {
    const key = `${language.locale}:${digits}`;
    if (!formats.has(key)) {
      formats.set(key, new Intl.NumberFormat(language.locale, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: true }));
    }
    return formats.get(key);
  }
  function money(amount) {
    if (amount === null || amount === undefined || amount === "") return "–";
    const text = typeof amount === "number" ? amount.toFixed(2) : String(amount).trim();
    if (!/^-?\d+(\.\d+)?$/.test(text)) return text;
    const digits = Math.max(2, (text.split(".")[1] || "").length);
    return numberFormat(digits).formatToParts(text).map((p) => (p.type === "minusSign" ? "−" : p.value)).join("");
  }

  // A count (chips, coups, hands) in the page's locale: 20,000.
  function count(n) {
    if (n === null || n === undefined || n === "") return "–";
    if (!/^-?\d+$/.test(String(n))) return String(n);
    return numberFormat(0).formatToParts(String(n)).map((p) => (p.type === "minusSign" ? "−" : p.value)).join("");
  }

  // "+75.00", "−25.00", "0.00"
  function signed(amount) {
    const text = money(amount);
    if (text === "–" || text.startsWith("−") || Number(amount) === 0) return text;
    return `+${text}`;
  }

  // Exact sums of decimal strings, in cents.
  function cents(amount) {
    const text = String(amount).trim();
    const negative = text.startsWith("-");
    const [whole, frac] = text.replace(/^[-+]/, "").split(".");
    const value = Number(whole || "0") * 100 + Number(((frac || "") + "00").slice(0, 2));
    return negative ? -value : value;
  }
  function fromCents(value) {
    const negative = value < 0;
    const abs = Math.abs(value);
    return `${negative ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
  }

  function words(text) {
    return String(text || "").replace(/_/g, " ");
  }

  const NUMBERS = { one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7" };
  // "two_cards" -> "2 cards", "win_on_six" -> "win on 6"
  function eventWords(event) {
    return words(event).replace(/\b(one|two|three|four|five|six|seven)\b/g, (w) => NUMBERS[w]);
  }


  // -- login ------------------------------------------------------------------------

  const STAFF_ROLES = ["dealer", "pit_supervisor", "pit_manager", "shift_manager", "assistant_casino_manager", "admin"];
  function isStaff(user) {
    return !!user && STAFF_ROLES.includes(user.role);
  }
  function seesPit(user) {
    return !!user && ["pit_supervisor", "pit_manager", "shift_manager", "assistant_casino_manager", "admin"].includes(user.role);
  }

  // A login box in `root`; `onUser(user)` is called with the session's user (or null).
  let loginCount = 0;
  function loginBox(root, onUser) {
    const n = ++loginCount;
    const label = (id, text) => el("label", { for: id, class: "visually-hidden", text });
    const name = el("input", { id: `login-username-${n}`, name: "username", autocomplete: "username", placeholder: t("user name"), testid: "login-username", required: true, maxlength: 64 });
    const password = el("input", { id: `login-password-${n}`, name: "password", type: "password", autocomplete: "current-password", placeholder: t("password"), testid: "login-password", required: true, maxlength: 1024 });
    const error = el("span", { class: "login-error", testid: "login-error", role: "alert" });
    const form = el("form", { class: "login", testid: "login-form", "aria-label": t("log in") },
      label(name.id, t("User name")), name, label(password.id, t("Password")), password,
      el("button", { type: "submit", testid: "login-submit", text: t("Log in") }), error);
    const who = el("span", { class: "who", testid: "user" });
    const logout = el("button", { type: "button", class: "ghost", testid: "logout", text: t("Log out") });
    const out = el("div", { class: "logged-in hidden" }, who, logout);
    root.replaceChildren(form, out);

    async function refresh() {
      const result = await api("GET", "/api/session");
      const user = result.ok && result.data ? result.data.user : null;
      form.classList.toggle("hidden", !!user);
      out.classList.toggle("hidden", !user);
      who.textContent = user ? `${user.username} · ${roleName(user.role)}` : "";
      onUser(user);
      return user;
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      const result = await api("POST", "/api/auth/login", { username: name.value, password: password.value });
      if (!result.ok) {
        error.textContent = errorText(result);
        password.focus();
        return;
      }
      password.value = "";
      await refresh();
    });
    logout.addEventListener("click", async () => {
      await api("POST", "/api/auth/logout");
      await refresh();
      name.focus();
    });
    return { refresh };
  }

  // -- the connection ----------------------------------------------------------------------

  // Whether the page shows the server's present state: false from the moment
  // its stream drops until a fresh snapshot has arrived.  While it is false
  // the page must not count down or take bets on what it last saw.
  let live = false;
  // whether the server said there is no such table (or tournament)
  let gone = false;
  function isGone() {
    return gone;
  }
  // The words for a table (or, without one, a tournament) the server does not have.
  function noSuchTable(table) {
    return table ? t("There is no table “{table}” here.", { table }) : t("There is no such tournament.");
  }
  const liveListeners = [];
  function isLive() {
    return live;
  }
  function onLive(listener) {
    liveListeners.push(listener);
  }
  function connectionBanner() {
    let node = document.getElementById("connection");
    if (!node) {
      node = el("div", { id: "connection", class: "connection hidden", role: "status", "aria-live": "assertive", testid: "connection" });
      document.body.prepend(node);
    }
    return node;
  }
  // `state`: "live", "lost" (reconnecting) or "gone" (the table no longer exists).
  function setLive(state, text) {
    const node = connectionBanner();
    const was = live;
    live = state === "live";
    gone = state === "gone";
    node.dataset.state = state;
    node.textContent = live ? "" : text || t("Connection lost — reconnecting… Nothing shown here is live until the connection is back.");
    node.classList.toggle("hidden", live);
    document.body.classList.toggle("offline", !live);
    if (was !== live) for (const listener of liveListeners) listener(live);
  }

  // -- little things --------------------------------------------------------------------------

  // A status line: say("text", true) for good news, say("text") for a refusal.
  function sayer(node) {
    return (text, good) => {
      node.textContent = text || "";
      node.className = `${node.className.replace(/\s*(good|bad)\b/g, "")} ${good ? "good" : text ? "bad" : ""}`.trim();
    };
  }

  // One run of `task` at a time: a call while it runs makes it run once more
  // when it is done, so what the page shows is never older than the last call
  // (a push that arrived while a fetch was on its way). Every caller gets the
  // promise of the run in progress.
  function coalesced(task) {
    let running = null;
    let again = false;
    return () => {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            again = false;
            await task();
          } while (again);
        } finally {
          running = null;
        }
      })();
      return running;
    };
  }

  function phaseText(round) {
    if (!round) return t("Waiting for the first round");
    const phases = {
      betting: t("Place your bets"),
      dealing: t("Dealing"),
      result: t("Result"),
      settled: t("Settled"),
      void: t("Void"),
      closed: t("No more bets"),
    };
    return phases[round.phase] || words(round.phase);
  }

  // A tournament's stage in words.
  function stageName(stage) {
    return {
      registration: t("registration"), playing: t("playing"), between_sessions: t("between sessions"),
      finished: t("finished"), cancelled: t("cancelled"),
    }[stage] || words(stage);
  }

  // A role in words: "pit manager".
  function roleName(role) {
    return {
      player: t("player"), dealer: t("dealer"), pit_supervisor: t("pit supervisor"), pit_manager: t("pit manager"),
      shift_manager: t("shift manager"), assistant_casino_manager: t("assistant casino manager"), admin: t("admin"),
    }[role] || words(role);
  }

  // The games', wagers', tournament formats' and sessions' names as the
  // server sends them, marked here for the catalogues (tests/server/test_i18n.py
  // holds this list to the games and formats).
  const N_ = (text) => text;
  const DATA_NAMES = [
    N_("Tiger Baccarat"), N_("Tiger No Commission Baccarat"), N_("Tiger Buffalo (Commission Baccarat with Insurance Plus)"),
    N_("Baccarat Tournament"), N_("Dragon Tiger Baccarat"),
    N_("Player"), N_("Banker"), N_("Tie"), N_("Player Pair"), N_("Banker Pair"),
    N_("Tiger"), N_("Big Tiger"), N_("Small Tiger"), N_("Tiger Pair"), N_("Tiger Tie"),
    N_("Big Buffalo"), N_("Small Buffalo"), N_("Tiger Buffalo"), N_("Wu Dalang"),
    N_("Banker Big 7"), N_("Banker Small 7"), N_("Player Big 7"), N_("Player Small 7"),
    N_("Player Char Siu"), N_("Banker Char Siu"), N_("Player Insurance"), N_("Banker Insurance"),
    N_("Dragon Tiger"), N_("Big Dragon"), N_("Small Dragon"),
    N_("Baccarat Championship"), N_("Daily Baccarat Tournament"), N_("Turbo Baccarat"),
    N_("Qualifying"), N_("Semi-final"), N_("Final"), N_("Heat"),
    // the events a wager pays on, as eventWords() says them
    N_("tie"), N_("pair"), N_("single"), N_("double"), N_("twin"), N_("2 cards"), N_("3 cards"),
    N_("4 cards"), N_("5 cards"), N_("6 cards"), N_("win on 6"),
  ];

  // A wager by its name in the page's language ("Banker" is 庄 in 简体中文):
  // the names of the games' wagers, as the server sends them, are in the catalogue.
  function wagerName(name) {
    return t(name);
  }

  // Once the page's catalogue is in: its marked texts translated, the header's
  // links and switch.  Every page's script starts from Punto.ready.
  const ready = (async () => {
    try {
      await loadLanguage();
    } finally {
      decorateHeader();
    }
  })();

  return {
    get NOT_CONFIRMED() { return notConfirmed(); },
    ready, t, tn, locale, DATA_NAMES, stageName, translate, count, roleName, wagerName, isGone, noSuchTable, refusalWords,
    $, $$, el, svg, api, send, perform, unanswered, errorText, newKey, isLive, onLive, setLive, money, signed, cents, fromCents, words, eventWords,
    loginBox, isStaff, seesPit, tableId, sayer, coalesced, phaseText,
  };
})();
