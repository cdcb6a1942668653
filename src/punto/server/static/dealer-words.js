// The dealer's screen in words: each event of the table (the staff's
// `event` messages of the table's WebSocket, one per record the round
// writes) as a sentence a dealer reads at a glance -- "demo bet 25.00 on
// Banker at seat 3", "No more bets", "Player 7, Banker 5: Player wins" --
// never the record itself.  A kind this file does not know still gets a
// readable line.  Loaded after common.js and felt.js; the console's English
// only (the dealer's pages are not translated).
"use strict";

const DealerWords = (() => {
  const { money, words, eventWords } = Punto;

  // The positions as the rules name them ("a Pit Supervisor or above").
  const ROLES = {
    player: "player", dealer: "Dealer", pit_supervisor: "Pit Supervisor", pit_manager: "Pit Manager",
    shift_manager: "Gaming Shift Manager", assistant_casino_manager: "Assistant Casino Manager", admin: "administrator",
  };
  function roleTitle(role) {
    return ROLES[role] || words(role);
  }
  function article(text) {
    return /^[aeiou]/i.test(text) ? `an ${text}` : `a ${text}`;
  }
  function capital(text) {
    return text ? `${text[0].toUpperCase()}${text.slice(1)}` : text;
  }
  function clause(c) {
    return c ? ` (clause ${c})` : "";
  }
  // "Q♥ 9♣": cards as the felt shows them, short enough for a line.
  const SUIT_MARKS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  function cardShort(text) {
    const s = String(text);
    const suit = s.slice(-1).toUpperCase();
    return `${s.slice(0, -1).toUpperCase().replace(/^T$/, "10")}${SUIT_MARKS[suit] || suit}`;
  }
  function cardList(cards) {
    return (cards || []).map(cardShort).join(" ");
  }
  function list(names) {
    const all = (names || []).map(String);
    return all.length < 2 ? all.join("") : `${all.slice(0, -1).join(", ")} and ${all[all.length - 1]}`;
  }
  function side(name) {
    return Punto.SIDES[name] ? Punto.SIDES[name].name : words(name);
  }

  // "Player 7, Banker 5: Player wins" (a tie: "Player 6, Banker 6: Tie").
  function coupText(totals) {
    if (!totals || totals.player === null || totals.player === undefined) return "";
    const p = Number(totals.player);
    const b = Number(totals.banker);
    const outcome = p === b ? "Tie" : `${p > b ? side("player") : side("banker")} wins`;
    return `${side("player")} ${p}, ${side("banker")} ${b}: ${outcome}`;
  }

  // A bet as a dealer says it: "demo's Banker 100.00" (its placing, when known).
  function betText(bet, ctx) {
    if (!bet) return "a bet";
    return `${bet.player}'s ${ctx.nameOf(bet.wager)} ${money(bet.stake)}`;
  }

  // The fields of a record this file does not know, in words: "player ann,
  // clause 5.3" -- scalars only, never a nested record.
  function fieldsText(e) {
    const parts = [];
    for (const [key, value] of Object.entries(e)) {
      if (key === "type" || key === "role" || value === null || value === undefined || value === "") continue;
      if (Array.isArray(value)) {
        if (value.length && value.every((v) => typeof v !== "object")) parts.push(`${words(key)} ${value.join(" ")}`);
      } else if (typeof value !== "object") {
        parts.push(`${words(key)} ${typeof value === "boolean" ? (value ? "yes" : "no") : value}`);
      }
    }
    return parts.join(", ");
  }

  // The sentence for one event.  ctx: nameOf(wager id) -> the wager's name,
  // bet(bet id) -> { player, wager, stake } of a bet seen before, totals
  // (round id) -> { player, banker } of the coup, cardHand -> the hand a
  // card went to ("player"/"banker", or null when not yet known).
  const SAY = {
    round_opened: () => "Place your bets: betting is open",
    bet_placed: (e, ctx) => `${e.player} bet ${money(e.stake)} on ${ctx.nameOf(e.wager)} ${e.seated === false ? "behind" : "at"} seat ${e.position}${e.role && e.role !== "player" ? ` (placed by the ${roleTitle(e.role)})` : ""}`,
    bet_withdrawn: (e, ctx) => `${capital(betText(ctx.bet(e.bet_id), ctx))} taken back`,
    bet_reduced: (e, ctx) => `${capital(betText(ctx.bet(e.bet_id), ctx))} ${Number(e.stake) === 0 ? "removed" : `reduced to ${money(e.stake)}`}${clause(e.clause)}`,
    bets_closed: () => "No more bets",
    card_dealt: (e, ctx) => {
      const hand = ctx.cardHand ? ` to the ${side(ctx.cardHand)}` : "";
      const how = { keyed: " (keyed)", device: " (from the card-reading shoe)", held: " (held from the last round)", reconstructed: " (put back in order)", simultaneous: " (drawn together)", replacement: " (a replacement)", set_aside: " (set aside before)", table: " (from the table)" }[e.source] || "";
      return `${capital(Punto.cardName(e.card))}${hand}${how}`;
    },
    insurance_placed: (e, ctx) => `${e.player} insured with ${ctx.nameOf(e.wager)} ${money(e.stake)} at seat ${e.position} (${eventWords(e.moment)})`,
    insurance_waived: (e) => `Insurance after the Player's third card waived: ${e.reason}`,
    power_failed: () => "Power failure: the round is interrupted",
    withdrawal_offered: (e) => `Withdrawal option open: ${e.reason}${clause(e.clause)}`,
    player_withdrew: (e) => `${e.player} took the withdrawal option: their undecided wagers are returned`,
    withdrawal_closed: () => "Withdrawal option closed: the others play on",
    round_voided: (e) => `Round void: ${e.reason}${clause(e.clause)}. Every bet is returned`,
    cards_reconstructed: (e) => `Cards put back in their order${clause(e.clause)}: ${cardList(e.cards)}`,
    cards_held: (e) => `Held for the next round${clause(e.clause)}: ${cardList(e.cards)}`,
    betting_reopened: (e) => `Betting open again${clause(e.clause)}`,
    irregularity_noted: (e) => `Irregularity noted${clause(e.clause)}: ${e.reason}`,
    bet_returned: (e, ctx) => `${capital(betText(ctx.bet(e.bet_id), ctx))} returned${clause(e.clause)}: ${e.reason}`,
    ruling_claimed: (e) => `Ruling pending: ${words(e.procedure)}${clause(e.clause)}, filed by ${e.by}, waiting for ${article(roleTitle(e.confirming))}`,
    claim_confirmed: (e) => `Ruling confirmed by ${e.by} (${roleTitle(e.role)})`,
    claim_rejected: (e, ctx) => (ctx.filedBy && ctx.filedBy === e.by ? `Ruling withdrawn by ${e.by}: nothing moved` : `Ruling rejected by ${e.by} (${roleTitle(e.role)}): ${e.reason}. Nothing moved`),
    insurance_reoffered: (e) => `Insurance offered again to ${list(e.players)} (${eventWords(e.moment)})${clause(e.clause)}`,
    shoe_started: (e) => (e.clause ? `The cards are replaced${clause(e.clause)}: new shoe ${e.shoe_id}` : `New shoe ${e.shoe_id}`),
    table_configured: (e) => `Table set: ${e.decks} decks, cut card ${e.cut_card_from_end} from the end${e.insurance_offered ? ", Insurance offered" : ""}${e.hlga ? ", HLGA" : ""}`,
    round_settled: (e, ctx) => {
      const coup = coupText(ctx.totals);
      return coup ? `${coup}. Settled` : "Settled: every bet is paid or taken";
    },
    method_chosen: (e) => `Method ${e.method} chosen by the ${roleTitle(e.role)}${clause(e.clause)}`,
    cards_passed: (e) => `The ${side(e.side)} cards passed to ${e.player}${clause(e.clause)}`,
    cards_refused: (e) => `${e.player} refused the ${side(e.side)} cards${clause(e.clause)}`,
    draw_allowed: (e) => `${e.player} may draw from the device${clause(e.clause)}`,
    device_taken: (e) => `${e.player} takes the dealing device${clause(e.clause)}`,
    device_relinquished: (e) => `${e.player} gives up the dealing device${clause(e.clause)}`,
    device_lost: (e) => `${e.player}'s wager lost: the dealing device passes on${clause(e.clause)}`,
  };

  function eventText(e, ctx) {
    const say = SAY[e.type];
    if (say) return say(e, ctx);
    const detail = fieldsText(e);
    return `${capital(words(e.type))}${detail ? `: ${detail}` : ""}`;
  }

  return { eventText, coupText, roleTitle, article, cardShort, capital };
})();
