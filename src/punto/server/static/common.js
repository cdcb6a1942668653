// punto: what every page shares -- the API, login, the table's WebSocket,
// cards, money, countdowns, the betting layout's words and the roads.
// Plain JavaScript, no build step, no inline code (the pages run under a
// strict Content-Security-Policy: styles are set through the CSSOM only).
"use strict";

const Punto = (() => {
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };
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
      return { ok: false, status: 0, data: { error: { message: "the server cannot be reached" } } };
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
    if (opts.pending) opts.pending("sending…");
    for (;;) {
      const result = await api(method, path, body, headers);
      if (!unanswered(result) && !inProgress(result)) return { ...result, key };
      if (Date.now() - started + wait > patience) return { ...result, lost: true, key };
      if (opts.pending) opts.pending("sending… (no answer from the server yet: the same request goes again, and is done at most once)");
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 5000);
    }
  }

  // The words for a request never answered: nothing is claimed either way.
  const NOT_CONFIRMED = "not confirmed: the server could not be reached, so it may or may not have been done. The page shows the server's state once the connection is back.";

  // send() for a page's action, said on `say`: "sending…" while it waits,
  // the refusal in words, NOT_CONFIRMED if no answer came; the answer's data
  // when it was done (null otherwise).  `what`: the action's name, for the words.
  async function perform(method, path, body, say, what, options) {
    const label = what ? `${what}: ` : "";
    const result = await send(method, path, body, { ...(options || {}), pending: (text) => say(`${label}${text}`) });
    if (result.lost || unanswered(result)) {
      say(`${label}${NOT_CONFIRMED}`);
      return null;
    }
    if (!result.ok) {
      say(`${label}${errorText(result)}`);
      return null;
    }
    say("");
    return result.data || {};
  }

  function errorText(result) {
    const error = result && result.data && result.data.error;
    if (!error) {
      const detail = result && result.data && result.data.detail;
      if (Array.isArray(detail) && detail.length) return detail.map((d) => d.msg).join("; ");
      return `the server answered ${result ? result.status : "nothing"}`;
    }
    const text = error.text || error.message;
    return error.clause && !String(text).includes("clause") ? `${text} (clause ${error.clause})` : text;
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  }

  // -- money, odds, words -----------------------------------------------------------------

  // Amounts arrive as decimal strings ("10075.00"); they are shown exactly,
  // grouped by thousands, never passed through floating point.
  function money(amount) {
    if (amount === null || amount === undefined || amount === "") return "–";
    let text = typeof amount === "number" ? amount.toFixed(2) : String(amount).trim();
    if (!/^-?\d+(\.\d+)?$/.test(text)) return text;
    const negative = text.startsWith("-");
    if (negative) text = text.slice(1);
    let [whole, cents] = text.split(".");
    cents = ((cents || "") + "00").slice(0, Math.max(2, (cents || "").length));
    whole = whole.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return `${negative ? "−" : ""}${whole}.${cents}`;
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

  // "0.95 to 1" -> "0.95:1"; "push" stays.
  function odds(text) {
    const match = /^\s*([\d.]+)\s+to\s+([\d.]+)\s*$/.exec(String(text || ""));
    return match ? `${match[1]}:${match[2]}` : String(text || "");
  }

  // The pays of a wager as short lines: ["1:1", "tie push"], ["2 cards 12:1", ...].
  function paysLines(pays) {
    return Object.entries(pays || {}).map(([event, value]) => {
      const shown = odds(value);
      return event === "win" ? shown : `${eventWords(event)} ${shown}`;
    });
  }

  // How a betting area came out: "won", "push" or "lost".
  function areaOutcome(wager, areas) {
    const event = areas ? areas[wager.id] : null;
    if (!event) return "lost";
    return wager.pays && wager.pays[event] === "push" ? "push" : "won";
  }

  // Which side of the layout a wager belongs to (Player's side bets on the
  // left, the Banker's on the right, the rest in the middle).
  function areaSide(id) {
    if (id === "player" || id === "banker" || id === "tie") return id;
    if (/^player_|dragon$|^big_dragon|^small_dragon|buffalo$|^wu_dalang/.test(id) && id !== "tiger_buffalo") return "player-side";
    if (/^banker_|^big_tiger$|^small_tiger$|^tiger$/.test(id)) return "banker-side";
    return "centre-side";
  }

  // -- cards ---------------------------------------------------------------------------

  function cardParts(text) {
    const suit = text.slice(-1).toUpperCase();
    let rank = text.slice(0, -1).toUpperCase();
    if (rank === "T") rank = "10";
    return { rank, suit };
  }

  function cardName(text) {
    const { rank, suit } = cardParts(text);
    return `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit] || suit}`;
  }

  function card(text, extra) {
    const { rank, suit } = cardParts(text);
    const red = suit === "H" || suit === "D";
    return el(
      "span",
      { class: `card ${red ? "red" : "black"} ${extra || ""}`, testid: "card", dataset: { card: text }, role: "img", "aria-label": cardName(text) },
      el("span", { class: "corner", "aria-hidden": "true" }, el("span", { class: "rank", text: rank }), el("span", { class: "pip", text: SUITS[suit] || suit })),
      el("span", { class: "suit", "aria-hidden": "true", text: SUITS[suit] || suit })
    );
  }

  // -- time ------------------------------------------------------------------------------

  // Server time minus local time, so countdowns agree with the table.
  let clockOffset = 0;
  function syncClock(serverTime) {
    if (typeof serverTime === "number") clockOffset = serverTime - Date.now() / 1000;
  }
  function secondsLeft(deadline) {
    if (!deadline) return null;
    return Math.max(0, deadline - (Date.now() / 1000 + clockOffset));
  }

  // Keeps `node` (text) and `bar` (a progress bar, optional) showing the
  // seconds to getDeadline(); getLength() is the full length of the window.
  function countdown(node, getDeadline, getLength, bar) {
    const tick = () => {
      if (tracked && !live) {
        // The server's clock governs: nothing counts down on a stale picture.
        node.textContent = "paused";
        node.classList.remove("urgent");
        return;
      }
      const left = secondsLeft(getDeadline());
      const box = bar ? bar.parentElement : null;
      if (left === null) {
        node.textContent = "";
        node.classList.remove("urgent");
        if (box) box.classList.add("hidden");
      } else {
        node.textContent = `${left.toFixed(1)} s`;
        node.classList.toggle("urgent", left < 3);
        if (bar) {
          const length = (getLength && getLength()) || 0;
          const share = length > 0 ? Math.min(1, left / length) : 0;
          box.classList.remove("hidden");
          bar.style.transform = `scaleX(${share.toFixed(3)})`;
          bar.classList.toggle("urgent", left < 3);
          box.setAttribute("aria-valuenow", String(Math.round(left)));
        }
      }
    };
    setInterval(tick, 100);
    tick();
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
    const name = el("input", { id: `login-username-${n}`, name: "username", autocomplete: "username", placeholder: "user name", testid: "login-username", required: true, maxlength: 64 });
    const password = el("input", { id: `login-password-${n}`, name: "password", type: "password", autocomplete: "current-password", placeholder: "password", testid: "login-password", required: true, maxlength: 1024 });
    const error = el("span", { class: "login-error", testid: "login-error", role: "alert" });
    const form = el("form", { class: "login", testid: "login-form", "aria-label": "log in" },
      label(name.id, "User name"), name, label(password.id, "Password"), password,
      el("button", { type: "submit", testid: "login-submit", text: "Log in" }), error);
    const who = el("span", { class: "who", testid: "user" });
    const logout = el("button", { type: "button", class: "ghost", testid: "logout", text: "Log out" });
    const out = el("div", { class: "logged-in hidden" }, who, logout);
    root.replaceChildren(form, out);

    async function refresh() {
      const result = await api("GET", "/api/session");
      const user = result.ok && result.data ? result.data.user : null;
      form.classList.toggle("hidden", !!user);
      out.classList.toggle("hidden", !user);
      who.textContent = user ? `${user.username} · ${words(user.role)}` : "";
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
  // whether this page follows a stream at all (a page that only fetches is never "not live")
  let tracked = false;
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
    node.dataset.state = state;
    node.textContent = live ? "" : text || "Connection lost — reconnecting… Nothing shown here is live until the connection is back.";
    node.classList.toggle("hidden", live);
    document.body.classList.toggle("offline", !live);
    if (was !== live) for (const listener of liveListeners) listener(live);
  }

  // What the rules did to the round that was on the screen when the
  // connection dropped (the game's power failure clause: MBS 5.17.1
  // withdrawal option, RWS 5.4 void, or play on), in words; `tails` adds a
  // page's own sentence to a case (the player's choice, say).
  function ruling(before, round, tails) {
    const tail = (key) => (tails[key] ? ` ${tails[key]}` : "");
    if (!before) return "Reconnected: the table is live again.";
    if (!round || round.id !== before) return `Reconnected. Round ${before} ended while the connection was down.${tail("ended")}`;
    if (round.void) return `Reconnected. Round ${round.id} was interrupted and is void: ${round.void.reason} (clause ${round.void.clause}).${tail("void")}`;
    if (round.withdrawal) return `Reconnected. Round ${round.id} was interrupted: ${round.withdrawal.reason} (clause ${round.withdrawal.clause}).${tail("withdrawal")}`;
    if (round.power_failed) return `Reconnected. Round ${round.id} was interrupted by a power failure; under the rules play goes on.`;
    if (round.phase === "betting") return `Reconnected. Round ${round.id} is still taking bets.${tail("betting")}`;
    return `Reconnected. Round ${round.id}: ${phaseText(round)}.`;
  }

  // For a page that follows a table: render() whenever it goes off or on
  // line, and once it is live again after a loss, say() the ruling on the
  // round it showed (currentRound(): the round on the screen), then after().
  function onReconnect(currentRound, render, say, tails, after) {
    let lost; // undefined: never lost; null: lost with no round on the screen
    onLive((up) => {
      if (!up) {
        const round = currentRound();
        lost = round ? round.id : null;
        render();
        return;
      }
      render();
      if (lost === undefined) return;
      const before = lost;
      lost = undefined;
      say(ruling(before, currentRound(), tails || {}), true);
      if (after) after();
    });
  }

  // Calls onMessage(message) for each message; reconnects if the connection
  // drops, and is live again only once the new connection's first snapshot
  // (a `state` message) has arrived.  A connection that stays silent past
  // the pong it was asked for is treated as dropped.  Returns { reconnect }.
  function connect(table, onMessage, onStatus, path) {
    let socket = null;
    let retry = 500;
    let closedOnPurpose = false;
    let heard = Date.now();
    const where = path || `/ws/tables/${encodeURIComponent(table)}`;
    tracked = true;
    setLive("lost", "Connecting…");
    function open() {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}${where}`);
      heard = Date.now();
      socket.addEventListener("open", () => {
        retry = 500;
        heard = Date.now();
        if (onStatus) onStatus(true);
      });
      socket.addEventListener("message", (event) => {
        heard = Date.now();
        let message;
        try {
          message = JSON.parse(event.data);
        } catch (error) {
          return;
        }
        if (message.server_time) syncClock(message.server_time);
        if (!live && message.type !== "pong" && (message.type === "state" || message.type === "snapshot" || message.type === "tournament")) {
          onMessage(message);
          setLive("live");
          return;
        }
        onMessage(message);
      });
      socket.addEventListener("close", (event) => {
        if (closedOnPurpose) {
          closedOnPurpose = false;
          open();
          return;
        }
        if (event.code === 4404) {
          setLive("gone", event.reason || "There is no such table.");
          if (onStatus) onStatus(false, event.reason, event.code);
          // Asked again, slowly: a table another process runs, or one being
          // taken over from a process that died, is there again in a moment.
          setTimeout(open, 5000);
          return;
        }
        setLive("lost");
        if (onStatus) onStatus(false, event.reason, event.code);
        setTimeout(open, retry);
        retry = Math.min(retry * 2, 5000);
      });
    }
    open();
    // A ping every 5 s; a connection that has said nothing for 15 s (not even
    // the pong) is dead even if the browser has not noticed: closed and opened again.
    setInterval(() => {
      if (!socket || socket.readyState !== WebSocket.OPEN) return;
      if (Date.now() - heard > 15000) {
        socket.close();
        return;
      }
      socket.send(JSON.stringify({ type: "ping" }));
    }, 5000);
    return {
      // After logging in or out: connect again, so the server knows who is watching.
      reconnect() {
        if (socket && socket.readyState <= WebSocket.OPEN) {
          closedOnPurpose = true;
          socket.close();
        } else {
          open();
        }
      },
    };
  }

  // -- hands -----------------------------------------------------------------------------

  const SIDES = {
    player: { name: "Player" },
    banker: { name: "Banker" },
  };

  function handsMarkup() {
    const hand = (side) =>
      el("div", { class: `hand ${side}`, testid: `${side}-hand`, role: "group", "aria-label": `${SIDES[side].name} hand` },
        el("div", { class: "hand-title" },
          el("span", { class: "hand-name", text: SIDES[side].name }),
          el("span", { class: "total", testid: `${side}-total`, "aria-label": `${SIDES[side].name} total` })),
        el("div", { class: "cards" }));
    return el("div", { class: "hands" }, hand("player"), hand("banker"));
  }

  // Reveal card by card: the cards already shown stay, the new ones are dealt in.
  function renderHands(root, round) {
    const cards = (round && round.cards) || [];
    for (const side of ["player", "banker"]) {
      const hand = $(`[data-testid="${side}-hand"]`, root);
      if (!hand) continue;
      const list = $(".cards", hand);
      const mine = cards.filter((c) => c.hand === side);
      const shown = $$(".card", list);
      let keep = 0;
      while (keep < shown.length && keep < mine.length && shown[keep].dataset.card === mine[keep].card) keep++;
      for (const node of shown.slice(keep)) node.remove();
      for (const node of $$(".slot", list)) node.remove();
      for (let i = keep; i < mine.length; i++) {
        const node = card(mine[i].card, "dealt");
        if (i === 2) node.classList.add("third");
        list.append(node);
      }
      for (let i = mine.length; i < 2; i++) list.append(el("span", { class: "slot", "aria-hidden": "true" }));
      const total = round && round[side] ? round[side].total : null;
      $(".total", hand).textContent = total === null || total === undefined ? "" : String(total);
      const winner = round && round.result ? round.result.winner : null;
      hand.classList.toggle("winner", winner === side);
      hand.classList.toggle("next", !!round && round.phase === "dealing" && round.next_hand === side);
    }
  }

  // A `card` message into the state's round, so the coup is shown card by
  // card even when the server sends its snapshots less often than cards come.
  // Returns whether the state changed.
  function applyCard(state, m) {
    const round = state && state.round;
    if (!round || round.id !== m.round_id || round.cards.length !== m.index) return false;
    round.cards = [...round.cards, { index: m.index, card: m.card, hand: m.hand }];
    for (const side of ["player", "banker"]) {
      const hand = round[side] || { cards: [], total: null };
      round[side] = { ...hand, cards: side === m.hand ? [...hand.cards, m.card] : hand.cards };
      const total = m[`${side}_total`];
      if (round[side].cards.length) round[side].total = total;
    }
    if (round.phase === "betting") round.phase = "dealing";
    return true;
  }

  // "Banker wins 9 to 5", "Tie 6".
  function resultText(result) {
    if (!result) return "";
    if (result.winner === "tie") return `Tie ${result.player_total}`;
    const high = Math.max(result.player_total, result.banker_total);
    const low = Math.min(result.player_total, result.banker_total);
    return `${SIDES[result.winner].name} wins ${high} to ${low}${result.natural ? " · natural" : ""}`;
  }

  // -- the roads -----------------------------------------------------------------------------

  const COLOURS = { banker: "#d32f2f", player: "#1e63d6", tie: "#2e9e4f", red: "#d32f2f", blue: "#1e63d6" };
  const LETTER = { banker: "B", player: "P", tie: "T" };

  // One road as an SVG grid of `rows` rows, showing the latest `columns`
  // display columns (older columns scroll off to the left, as on a table's board).
  function roadSvg(name, road, rows, columns, drawCell, label) {
    const width = Math.max(road.width || 0, 0);
    const shown = Math.max(columns, 1);
    const offset = Math.max(0, width - shown);
    const size = 10;
    const root = svg("svg", {
      class: `road ${name}`, testid: `road-${name}`, viewBox: `0 0 ${shown * size} ${rows * size}`,
      preserveAspectRatio: "xMinYMin meet", role: "img", "aria-label": label, "data-width": width,
    });
    const lines = [];
    for (let x = 0; x <= shown; x++) lines.push(`M${x * size} 0V${rows * size}`);
    for (let y = 0; y <= rows; y++) lines.push(`M0 ${y * size}H${shown * size}`);
    root.append(svg("path", { d: lines.join(""), class: "grid-lines" }));
    for (const cell of road.cells) {
      if (cell.x < offset) continue;
      const g = svg("g", { transform: `translate(${(cell.x - offset) * size + size / 2} ${cell.y * size + size / 2})`, testid: `${name}-cell` });
      drawCell(g, cell);
      root.append(g);
    }
    return root;
  }

  function pairDots(g, cell, r) {
    if (cell.banker_pair) g.append(svg("circle", { cx: -r * 0.72, cy: -r * 0.72, r: 1.5, fill: COLOURS.banker, class: "pair-dot" }));
    if (cell.player_pair) g.append(svg("circle", { cx: r * 0.72, cy: r * 0.72, r: 1.5, fill: COLOURS.player, class: "pair-dot" }));
  }

  const DRAW = {
    bead(g, c) {
      g.append(svg("circle", { r: 4.3, fill: COLOURS[c.winner] }));
      g.append(svg("text", { y: 0.4, "text-anchor": "middle", "dominant-baseline": "middle", class: "bead-letter", text: LETTER[c.winner] || "?" }));
      pairDots(g, c, 4.3);
      g.setAttribute("data-winner", c.winner);
    },
    big(g, c) {
      g.append(svg("circle", { r: 3.6, fill: "none", stroke: COLOURS[c.side], "stroke-width": 1.5 }));
      const ties = (c.ties || 0) + (c.leading_ties || 0);
      if (ties) g.append(svg("line", { x1: -3.6, y1: 3.6, x2: 3.6, y2: -3.6, stroke: COLOURS.tie, "stroke-width": 1.4 }));
      if (ties > 1) g.append(svg("text", { y: 0.5, "text-anchor": "middle", "dominant-baseline": "middle", class: "tie-count", text: String(ties) }));
      pairDots(g, c, 4.3);
      g.setAttribute("data-side", c.side);
    },
    big_eye_boy(g, c) {
      g.append(svg("circle", { r: 3.2, fill: "none", stroke: COLOURS[c.colour], "stroke-width": 1.6 }));
      g.setAttribute("data-colour", c.colour);
    },
    small_road(g, c) {
      g.append(svg("circle", { r: 3.4, fill: COLOURS[c.colour] }));
      g.setAttribute("data-colour", c.colour);
    },
    cockroach_pig(g, c) {
      g.append(svg("line", { x1: -3.4, y1: 3.4, x2: 3.4, y2: -3.4, stroke: COLOURS[c.colour], "stroke-width": 1.8, "stroke-linecap": "round" }));
      g.setAttribute("data-colour", c.colour);
    },
  };

  // A small symbol of a derived road's colour (for the "ask" boxes).
  function askMark(name, colour) {
    const box = svg("svg", { viewBox: "-5 -5 10 10", class: "ask-mark", role: "img", "aria-label": `${words(name)} ${colour || "none"}` });
    if (colour) DRAW[name](box, { colour });
    else box.append(svg("circle", { r: 1.2, class: "ask-none" }));
    return box;
  }

  // The roads of a scoreboard JSON into `root`.  options.columns: how many
  // display columns each road shows (bead plate, big road, derived roads).
  // options.wide: bead plate and big road side by side; options.three: the
  // derived roads side by side (else one above the other).
  function renderRoads(root, board, options) {
    if (!board) return;
    const o = { bead: 12, big: 24, derived: 24, wide: false, three: false, ...(options || {}) };
    root.classList.toggle("wide", !!o.wide);
    root.classList.toggle("three", !!o.three);
    const rows = board.rows || 6;
    const block = (title, node, cls) => el("figure", { class: `road-block ${cls || ""}` }, el("figcaption", { text: title }), node);
    const derived = ["big_eye_boy", "small_road", "cockroach_pig"].map((name) =>
      block(words(name), roadSvg(name, board[name], rows, o.derived, DRAW[name], `${words(name)}: ${board[name].cells.length} marks`), "derived"));
    const stats = board.stats || {};
    const ask = board.ask || {};
    const askBox = (side) => el("div", { class: `ask ${side}`, testid: `ask-${side}`, title: `what the derived roads would show after a ${side} win` },
      el("span", { class: "ask-name", text: side === "banker" ? "B ask" : "P ask" }),
      ["big_eye_boy", "small_road", "cockroach_pig"].map((name) => askMark(name, ask[side] ? ask[side][name] : null)));
    root.replaceChildren(
      el("div", { class: "roads-top" },
        block("Bead plate", roadSvg("bead", board.bead_plate, rows, o.bead, DRAW.bead, `bead plate: ${board.bead_plate.cells.length} coups`), "bead"),
        block("Big road", roadSvg("big", board.big_road, rows, o.big, DRAW.big, `big road: ${board.big_road.cells.length} marks`), "big")),
      el("div", { class: "derived-roads" }, derived),
      el("div", { class: "road-foot" },
        el("p", { class: "road-stats", testid: "road-stats" },
          el("span", { class: "stat banker", testid: "stat-banker" }, el("b", { text: "B" }), ` ${stats.banker || 0}`),
          el("span", { class: "stat player", testid: "stat-player" }, el("b", { text: "P" }), ` ${stats.player || 0}`),
          el("span", { class: "stat tie", testid: "stat-tie" }, el("b", { text: "T" }), ` ${stats.tie || 0}`),
          el("span", { class: "stat", testid: "stat-coups", text: `${stats.coups || 0} coup${stats.coups === 1 ? "" : "s"}` })),
        el("div", { class: "asks" }, askBox("banker"), askBox("player")))
    );
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

  const PHASES = {
    betting: "Place your bets",
    dealing: "Dealing",
    result: "Result",
    settled: "Settled",
    void: "Void",
    closed: "No more bets",
  };
  function phaseText(round) {
    if (!round) return "Waiting for the first round";
    return PHASES[round.phase] || words(round.phase);
  }

  return {
    $, $$, el, svg, api, send, perform, NOT_CONFIRMED, unanswered, errorText, newKey, isLive, onLive, setLive, onReconnect, money, signed, cents, fromCents, card, cardName, words, eventWords,
    odds, paysLines, areaOutcome, areaSide, syncClock, secondsLeft, countdown, loginBox, isStaff, seesPit, connect,
    renderHands, handsMarkup, renderRoads, resultText, tableId, sayer, coalesced, phaseText, applyCard, SIDES,
  };
})();
