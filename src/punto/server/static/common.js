// punto: what every page shares -- the API, login, the table's WebSocket,
// cards, money, countdowns and the roads.  Plain JavaScript, no build step.
"use strict";

const Punto = (() => {
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

  function $(selector, root) {
    return (root || document).querySelector(selector);
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
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function tableId() {
    const parts = location.pathname.split("/").filter(Boolean);
    return parts.length > 1 ? decodeURIComponent(parts[1]) : "";
  }

  // -- the API -------------------------------------------------------------------------

  async function api(method, path, body, headers) {
    const options = { method, headers: { ...(headers || {}) }, credentials: "same-origin" };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (error) {
      return { ok: false, status: 0, data: { error: { message: "the server cannot be reached", text: String(error) } } };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    return { ok: response.ok, status: response.status, data };
  }

  function errorText(result) {
    const error = result && result.data && result.data.error;
    if (!error) return `error ${result ? result.status : "?"}`;
    return error.text || error.message;
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  }

  // -- money, cards, time -------------------------------------------------------------

  function money(amount) {
    if (amount === null || amount === undefined) return "–";
    const number = Number(amount);
    if (!Number.isFinite(number)) return String(amount);
    return number.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }

  function card(text, extra) {
    const suit = text.slice(-1).toUpperCase();
    let rank = text.slice(0, -1).toUpperCase();
    if (rank === "T") rank = "10";
    const red = suit === "H" || suit === "D";
    return el(
      "span",
      { class: `card ${red ? "red" : "black"} ${extra || ""}`, testid: "card", dataset: { card: text } },
      el("span", { class: "rank", text: rank }),
      el("span", { class: "suit", text: SUITS[suit] || suit })
    );
  }

  function words(text) {
    return String(text || "").replace(/_/g, " ");
  }

  // Server time minus local time, so countdowns agree with the table.
  let clockOffset = 0;
  function syncClock(serverTime) {
    if (typeof serverTime === "number") clockOffset = serverTime - Date.now() / 1000;
  }
  function secondsLeft(deadline) {
    if (!deadline) return null;
    return Math.max(0, deadline - (Date.now() / 1000 + clockOffset));
  }

  function countdown(node, getDeadline, label) {
    const tick = () => {
      const left = secondsLeft(getDeadline());
      if (left === null) {
        node.textContent = "";
        node.classList.remove("urgent");
      } else {
        node.textContent = `${label || ""}${left.toFixed(1)} s`;
        node.classList.toggle("urgent", left < 3);
      }
    };
    setInterval(tick, 100);
    tick();
  }

  // -- login ------------------------------------------------------------------------

  // A login box in `root`; `onUser(user)` is called with /api/me's answer (or null).
  function loginBox(root, onUser) {
    const name = el("input", { name: "username", autocomplete: "username", placeholder: "user name", testid: "login-username", required: true, maxlength: 64 });
    const password = el("input", { name: "password", type: "password", autocomplete: "current-password", placeholder: "password", testid: "login-password", required: true, maxlength: 1024 });
    const error = el("span", { class: "error", testid: "login-error", role: "alert" });
    const form = el("form", { class: "login", testid: "login-form" }, name, password, el("button", { type: "submit", testid: "login-submit", text: "Log in" }), error);
    const who = el("span", { class: "who", testid: "user" });
    const logout = el("button", { type: "button", class: "secondary", testid: "logout", text: "Log out" });
    const out = el("div", { class: "logged-in hidden" }, who, logout);
    root.replaceChildren(form, out);

    async function refresh() {
      const result = await api("GET", "/api/session");
      const user = result.ok ? result.data.user : null;
      form.classList.toggle("hidden", !!user);
      out.classList.toggle("hidden", !user);
      who.textContent = user ? `${user.username} (${words(user.role)})` : "";
      onUser(user);
      return user;
    }
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      const result = await api("POST", "/api/auth/login", { username: name.value, password: password.value });
      if (!result.ok) {
        error.textContent = errorText(result);
        return;
      }
      password.value = "";
      await refresh();
    });
    logout.addEventListener("click", async () => {
      await api("POST", "/api/auth/logout");
      await refresh();
    });
    return { refresh };
  }

  // -- the table's WebSocket ---------------------------------------------------------------

  // Calls onMessage(message) for each message; reconnects (with a fresh
  // snapshot) if the connection drops.  Returns { reconnect }.
  function connect(table, onMessage, onStatus) {
    let socket = null;
    let retry = 500;
    let closedOnPurpose = false;
    function open() {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(table)}`);
      socket.addEventListener("open", () => {
        retry = 500;
        if (onStatus) onStatus(true);
      });
      socket.addEventListener("message", (event) => {
        let message;
        try {
          message = JSON.parse(event.data);
        } catch (error) {
          return;
        }
        if (message.server_time) syncClock(message.server_time);
        onMessage(message);
      });
      socket.addEventListener("close", (event) => {
        if (onStatus) onStatus(false, event.reason);
        if (closedOnPurpose) {
          closedOnPurpose = false;
          open();
          return;
        }
        if (event.code === 4404) return; // no such table
        setTimeout(open, retry);
        retry = Math.min(retry * 2, 10000);
      });
    }
    open();
    setInterval(() => {
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
    }, 25000);
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

  function renderHands(root, round) {
    const cards = (round && round.cards) || [];
    for (const side of ["player", "banker"]) {
      const hand = $(`[data-testid="${side}-hand"]`, root);
      if (!hand) continue;
      const list = $(".cards", hand);
      const mine = cards.filter((c) => c.hand === side);
      // Reveal card by card: keep the cards already shown, add the new ones.
      while (list.children.length > mine.length) list.lastChild.remove();
      for (let i = list.children.length; i < mine.length; i++) list.append(card(mine[i].card, "dealt"));
      const total = round && round[side] ? round[side].total : null;
      $(".total", hand).textContent = total === null || total === undefined ? "" : String(total);
      const winner = round && round.result ? round.result.winner : null;
      hand.classList.toggle("winner", winner === side);
    }
  }

  function handsMarkup(names) {
    const hand = (side, title) =>
      el("div", { class: `hand ${side}`, testid: `${side}-hand` }, el("div", { class: "hand-title" }, el("span", { text: title }), el("span", { class: "total", testid: `${side}-total` })), el("div", { class: "cards" }));
    return el("div", { class: "hands" }, hand("player", (names && names.player) || "Player"), hand("banker", (names && names.banker) || "Banker"));
  }

  function sideNames(game) {
    return game === "dragon-tiger" ? { player: "Dragon (Player)", banker: "Tiger (Banker)" } : { player: "Player", banker: "Banker" };
  }

  // -- the roads -----------------------------------------------------------------------------

  function grid(cells, rows, width, draw, name) {
    const columns = Math.max(width || 0, 12);
    const box = el("div", { class: `road ${name}`, testid: `road-${name}` });
    box.style.gridTemplateColumns = `repeat(${columns}, var(--cell))`;
    box.style.gridTemplateRows = `repeat(${rows}, var(--cell))`;
    for (const cell of cells) {
      const node = draw(cell);
      node.style.gridColumn = String(cell.x + 1);
      node.style.gridRow = String(cell.y + 1);
      box.append(node);
    }
    return box;
  }

  const LETTER = { banker: "B", player: "P", tie: "T" };

  function renderRoads(root, board) {
    if (!board) return;
    const rows = board.rows || 6;
    const bead = grid(board.bead_plate.cells, rows, board.bead_plate.width, (c) =>
      el("span", { class: `bead ${c.winner}${c.player_pair ? " ppair" : ""}${c.banker_pair ? " bpair" : ""}`, text: LETTER[c.winner] || "?", title: `${c.winner} ${c.player_total ?? ""}-${c.banker_total ?? ""}` }), "bead");
    const big = grid(board.big_road.cells, rows, board.big_road.width, (c) =>
      el("span", { class: `ring ${c.side}${c.player_pair ? " ppair" : ""}${c.banker_pair ? " bpair" : ""}`, text: c.ties + c.leading_ties ? String(c.ties + c.leading_ties) : "" }), "big");
    const derived = ["big_eye_boy", "small_road", "cockroach_pig"].map((name) => {
      const road = board[name];
      return el("div", { class: "derived" }, el("h4", { text: words(name) }), grid(road.cells, rows, road.width, (c) => el("span", { class: `mark ${c.colour} ${name}` }), name));
    });
    const stats = board.stats || {};
    root.replaceChildren(
      el("div", { class: "road-block" }, el("h4", { text: "Bead plate" }), bead),
      el("div", { class: "road-block" }, el("h4", { text: "Big road" }), big),
      el("div", { class: "derived-roads" }, derived),
      el("p", { class: "stats", testid: "road-stats", text: `${stats.coups || 0} coups · Banker ${stats.banker || 0} · Player ${stats.player || 0} · Tie ${stats.tie || 0}` })
    );
  }

  // "Tiger (Banker) wins 9 to 1", "Tie 5".
  function resultText(result, game) {
    if (!result) return "";
    if (result.winner === "tie") return `Tie ${result.player_total}`;
    const names = sideNames(game);
    const high = Math.max(result.player_total, result.banker_total);
    const low = Math.min(result.player_total, result.banker_total);
    return `${names[result.winner]} wins ${high} to ${low}`;
  }

  return { resultText, $, el, api, errorText, newKey, money, card, words, syncClock, secondsLeft, countdown, loginBox, connect, renderHands, handsMarkup, sideNames, renderRoads, tableId };
})();
