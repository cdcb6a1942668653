// The dealer's screen: the procedures of the rules (sections 5 and 6).  The
// list comes from the server, the form from each parameter's kind, the
// values go as a replay file writes them (docs/replay.md).  Every procedure
// is confirmed in the screen's dialog before it is applied or filed.
"use strict";

const DealerProcedures = (() => {
  const { $, el, api, words } = Punto;

  const KIND_PLACEHOLDERS = {
    "cards": "e.g. QH 2C", "cards?": "e.g. QH 2C", "cards_with_gaps": "e.g. QH ? 2C", "shoe": "empty: the table's shoe",
    "card?": "e.g. QH", "players": "e.g. ann, bob", "players?": "e.g. ann, bob", "sides?": "e.g. ann:player bob:banker",
  };

  function paramField(p) {
    const id = `irr-param-${p.name}`;
    const label = `${words(p.name)}${p.required ? "" : " (optional)"}`;
    if (p.kind === "flag") {
      return el("div", { class: "field check" },
        el("label", { for: id }, el("input", { type: "checkbox", id, testid: id, dataset: { param: p.name, kind: p.kind }, checked: p.default === true }), ` ${label}`));
    }
    let input;
    if (p.kind === "moment?") {
      input = el("select", { id, testid: id, dataset: { param: p.name, kind: p.kind } },
        el("option", { value: "", text: "the last one missed" }),
        el("option", { value: "four_cards", text: "after four cards" }),
        el("option", { value: "player_third_card", text: "after the Player's third card" }));
    } else {
      const number = p.kind === "int" || p.kind === "position";
      input = el("input", {
        id, testid: id, type: number ? "number" : "text", inputmode: number ? "numeric" : null,
        autocomplete: "off", autocapitalize: /card|shoe/.test(p.kind) ? "characters" : "off", spellcheck: "false",
        maxlength: "2000", placeholder: KIND_PLACEHOLDERS[p.kind] || p.help, dataset: { param: p.name, kind: p.kind },
      });
      if (p.default !== null && p.default !== undefined && typeof p.default !== "object") input.value = String(p.default);
    }
    return el("div", { class: "field" }, el("label", { for: id, text: label }), input, el("small", { class: "muted", text: p.help }));
  }

  // A form value in the JSON form the procedure's parameter reads; undefined: not given.
  function paramValue(node) {
    const kind = node.dataset.kind;
    if (kind === "flag") return node.checked;
    const text = node.value.trim();
    if (!text) return undefined;
    if (kind === "int" || kind === "position") return /^-?\d+$/.test(text) ? Number(text) : text;
    if (kind === "players" || kind === "players?") return text.split(/[\s,]+/).filter(Boolean);
    if (kind === "shoe" && /^\d+$/.test(text)) return Number(text);
    if (kind === "sides?") {
      const sides = {};
      for (const item of text.split(/[\s,]+/).filter(Boolean)) {
        const [player, side] = item.split(":");
        sides[player] = (side || "").toLowerCase();
      }
      return sides;
    }
    return text;
  }

  // What was asked, in words, for the confirmation: "card QH, withdrawing ann".
  function givenText(body) {
    return Object.entries(body).map(([k, v]) => {
      const shown = Array.isArray(v) ? v.join(", ") : typeof v === "object" ? Object.entries(v).map(([a, b]) => `${a} ${b}`).join(", ") : typeof v === "boolean" ? (v ? "yes" : "no") : v;
      return `${words(k)} ${shown}`;
    }).join("; ");
  }

  function rulingText(name, data) {
    const r = data.ruling;
    const title = words(name);
    const parts = [`${title.charAt(0).toUpperCase()}${title.slice(1)}: ruling under clause ${r.clause}, ${words(r.consequence)}`];
    if (r.withdrawn && r.withdrawn.length) parts.push(`withdrawn (wagers returned): ${r.withdrawn.join(", ")}`);
    if (r.returned && r.returned.length) parts.push(`bets returned: ${r.returned.join(", ")}`);
    if (r.next_round && r.next_round.length) parts.push(`held for the next round, dealt first: ${r.next_round.join(" ")}`);
    if (r.missing && r.missing.length) parts.push(`missing, replaced: ${r.missing.join(" ")}`);
    if (r.unused && r.unused.length) parts.push(`set aside, unused: ${r.unused.join(" ")}`);
    if (data.void) parts.push("the round is void: every bet is returned");
    return `${parts.join("; ")}.`;
  }

  // The form, wired: `screen` gives base, act(path, body), ask(title, text,
  // ok), say(text, good), filed(data) and user().
  function mount(screen) {
    let procedures = [];
    let loadedFor = null;

    function show() {
      const chosen = procedures.find((p) => p.name === $("#irr-select").value);
      $("#irr-summary").textContent = chosen ? chosen.summary : "";
      $("#irr-params").replaceChildren(...(chosen ? chosen.params.map(paramField) : []));
      $("#btn-irregularity").disabled = !chosen;
    }
    $("#irr-select").addEventListener("change", show);

    async function load() {
      const user = screen.user();
      const who = user && user.username;
      if (loadedFor === who) return;
      loadedFor = who;
      procedures = [];
      if (Punto.isStaff(user)) {
        const result = await api("GET", `${screen.base}/irregularities`);
        if (result.ok) procedures = result.data.procedures;
      }
      $("#irr-select").replaceChildren(
        el("option", { value: "", text: procedures.length ? "Choose the irregularity…" : "Log in as a dealer to see the procedures" }),
        ...procedures.map((p) => el("option", { value: p.name, text: words(p.name) })));
      show();
    }

    $("#irr-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = $("#irr-select").value;
      if (!name) return screen.say("Choose the irregularity.");
      const body = {};
      for (const node of $("#irr-params").querySelectorAll("[data-param]")) {
        const value = paramValue(node);
        if (value !== undefined) body[node.dataset.param] = value;
      }
      const chosen = procedures.find((p) => p.name === name);
      const given = givenText(body);
      const sure = await screen.ask(`Apply “${words(name)}”?`,
        `${chosen ? chosen.summary : ""}${given ? ` As given: ${given}.` : ""} A ruling that returns or changes wagers is filed for the pit to confirm; any other is applied now and cannot be undone.`,
        "Apply the procedure");
      if (!sure) return screen.say("Nothing was applied.");
      const data = await screen.act(`/irregularities/${encodeURIComponent(name)}`, body);
      if (data) screen.say(data.pending ? screen.filed(data) : rulingText(name, data), true);
    });

    return { load };
  }

  return { mount };
})();
