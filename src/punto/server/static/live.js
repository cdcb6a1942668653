// punto: a page that follows a table (or a tournament) live -- the server's
// clock and countdowns, the WebSocket that reconnects, and the ruling said
// after a reconnection.  Loaded after common.js; adds to `Punto`.
"use strict";

Object.assign(Punto, (() => {
  const { t, setLive, isLive, isGone, onLive, noSuchTable, phaseText } = Punto;

  // whether this page follows a stream at all (a page that only fetches is never "not live")
  let tracked = false;

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
      if (isGone()) {
        node.textContent = ""; // nothing to count down: there is no such table
        node.classList.remove("urgent");
        if (bar) bar.parentElement.classList.add("hidden");
        return;
      }
      if (tracked && !isLive()) {
        // The server's clock governs: nothing counts down on a stale picture.
        node.textContent = t("paused");
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
        node.textContent = t("{seconds} s", { seconds: left.toFixed(1) });
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

  // What the rules did to the round that was on the screen when the
  // connection dropped (the game's power failure clause: MBS 5.17.1
  // withdrawal option, RWS 5.4 void, or play on), in words; `tails` adds a
  // page's own sentence to a case (the player's choice, say).
  function ruling(before, round, tails) {
    const tail = (key) => (tails[key] ? ` ${tails[key]}` : "");
    if (!before) return t("Reconnected: the table is live again.");
    if (!round || round.id !== before) return t("Reconnected. Round {round} ended while the connection was down.", { round: before }) + tail("ended");
    if (round.void) return t("Reconnected. Round {round} was interrupted and is void: {reason} (clause {clause}).", { round: round.id, reason: round.void.reason, clause: round.void.clause }) + tail("void");
    if (round.withdrawal) return t("Reconnected. Round {round} was interrupted: {reason} (clause {clause}).", { round: round.id, reason: round.withdrawal.reason, clause: round.withdrawal.clause }) + tail("withdrawal");
    if (round.power_failed) return t("Reconnected. Round {round} was interrupted by a power failure; under the rules play goes on.", { round: round.id });
    if (round.phase === "betting") return t("Reconnected. Round {round} is still taking bets.", { round: round.id }) + tail("betting");
    return t("Reconnected. Round {round}: {phase}.", { round: round.id, phase: phaseText(round) });
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
    setLive("lost", t("Connecting…"));
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
        if (!isLive() && message.type !== "pong" && (message.type === "state" || message.type === "snapshot" || message.type === "tournament")) {
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
          setLive("gone", noSuchTable(table));
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

  return { syncClock, secondsLeft, countdown, onReconnect, connect };
})());
