// punto: the felt -- cards, the two hands of a coup, its result, the wagers'
// pays and areas, and the roads of the scoreboard.  Loaded after common.js;
// adds to `Punto`.
"use strict";

Object.assign(Punto, (() => {
  const { $, $$, el, svg, t, tn, count, words, eventWords } = Punto;
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };

  // "0.95 to 1" -> "0.95:1"; "push" stays.
  function odds(text) {
    const match = /^\s*([\d.]+)\s+to\s+([\d.]+)\s*$/.exec(String(text || ""));
    return match ? `${match[1]}:${match[2]}` : String(text || "");
  }

  // The pays of a wager as short lines: ["1:1", "tie push"], ["2 cards 12:1", ...].
  function paysLines(pays) {
    return Object.entries(pays || {}).map(([event, value]) => {
      const shown = odds(value);
      const said = value === "push" ? t("push") : shown;
      return event === "win" ? said : `${t(eventWords(event))} ${said}`;
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

  // -- hands -----------------------------------------------------------------------------

  const SIDES = {
    // in the page's language when asked (the catalogue comes after this is made)
    player: { get name() { return t("Player"); } },
    banker: { get name() { return t("Banker"); } },
  };

  function handsMarkup() {
    const hand = (side) =>
      el("div", { class: `hand ${side}`, testid: `${side}-hand`, role: "group", "aria-label": t("{side} hand", { side: SIDES[side].name }) },
        el("div", { class: "hand-title" },
          el("span", { class: "hand-name", text: SIDES[side].name }),
          el("span", { class: "total", testid: `${side}-total`, "aria-label": t("{side} total", { side: SIDES[side].name }) })),
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
    if (result.winner === "tie") return t("Tie {total}", { total: result.player_total });
    const high = Math.max(result.player_total, result.banker_total);
    const low = Math.min(result.player_total, result.banker_total);
    const text = t("{side} wins {high} to {low}", { side: SIDES[result.winner].name, high, low });
    return result.natural ? `${text} · ${t("natural")}` : text;
  }

  // -- the roads -----------------------------------------------------------------------------

  const COLOURS = { banker: "#d32f2f", player: "#1e63d6", tie: "#2e9e4f", red: "#d32f2f", blue: "#1e63d6" };
  // A coup's mark on the bead plate and the tallies: B, P, T -- 庄, 闲, 和 as
  // the Chinese boards show them.
  function letter(winner) {
    return { banker: t("B"), player: t("P"), tie: t("T") }[winner] || "?";
  }
  // The roads by the names the boards give them.
  function roadName(name) {
    return {
      bead: t("Bead plate"), big: t("Big road"), big_eye_boy: t("Big eye boy"),
      small_road: t("Small road"), cockroach_pig: t("Cockroach pig"),
    }[name] || words(name);
  }

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
      g.append(svg("text", { y: 0.4, "text-anchor": "middle", "dominant-baseline": "middle", class: "bead-letter", text: letter(c.winner) }));
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
    const block = (title, node, cls, testid) => el("figure", { class: `road-block ${cls || ""}` }, el("figcaption", { text: title, testid }), node);
    const marks = (name, n) => tn("{road}: {n} mark", "{road}: {n} marks", n, { road: roadName(name) });
    const derived = ["big_eye_boy", "small_road", "cockroach_pig"].map((name) =>
      block(roadName(name), roadSvg(name, board[name], rows, o.derived, DRAW[name], marks(name, board[name].cells.length)), "derived", `road-name-${name}`));
    const stats = board.stats || {};
    const ask = board.ask || {};
    const askBox = (side) => el("div", { class: `ask ${side}`, testid: `ask-${side}`, title: t("what the derived roads would show after a {side} win", { side: SIDES[side].name }) },
      el("span", { class: "ask-name", text: side === "banker" ? t("B ask") : t("P ask") }),
      ["big_eye_boy", "small_road", "cockroach_pig"].map((name) => askMark(name, ask[side] ? ask[side][name] : null)));
    root.replaceChildren(
      el("div", { class: "roads-top" },
        block(roadName("bead"), roadSvg("bead", board.bead_plate, rows, o.bead, DRAW.bead, tn("{road}: {n} coup", "{road}: {n} coups", board.bead_plate.cells.length, { road: roadName("bead") })), "bead", "road-name-bead"),
        block(roadName("big"), roadSvg("big", board.big_road, rows, o.big, DRAW.big, marks("big", board.big_road.cells.length)), "big", "road-name-big")),
      el("div", { class: "derived-roads" }, derived),
      el("div", { class: "road-foot" },
        el("p", { class: "road-stats", testid: "road-stats" },
          el("span", { class: "stat banker", testid: "stat-banker" }, el("b", { text: letter("banker") }), ` ${count(stats.banker || 0)}`),
          el("span", { class: "stat player", testid: "stat-player" }, el("b", { text: letter("player") }), ` ${count(stats.player || 0)}`),
          el("span", { class: "stat tie", testid: "stat-tie" }, el("b", { text: letter("tie") }), ` ${count(stats.tie || 0)}`),
          el("span", { class: "stat", testid: "stat-coups", text: tn("{n} coup", "{n} coups", stats.coups || 0) })),
        el("div", { class: "asks" }, askBox("banker"), askBox("player")))
    );
  }

  return { SIDES, card, cardName, odds, paysLines, areaOutcome, areaSide, handsMarkup, renderHands, applyCard, resultText, renderRoads };
})());
