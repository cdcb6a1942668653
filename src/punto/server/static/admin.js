// The admin's account controls: every account with its locks, and a button
// for each action (unlock, disable or enable, end every session), and a
// password reset.  The server refuses all of it to anyone but the admin.
"use strict";

(() => {
  const { $, el, api, errorText, words } = Punto;
  const say = Punto.sayer($("#message"));
  let user = null;

  async function act(username, action, body, done) {
    // The key is made now; a retry after a lost answer carries it, and the
    // server makes the change once.
    const data = await Punto.perform("POST", `/api/admin/accounts/${encodeURIComponent(username)}/${action}`, body, say, "");
    if (data) say(done, true);
    await load();
    return !!data;
  }

  function button(text, testid, onClick) {
    const b = el("button", { type: "button", class: "secondary small", testid, text });
    b.addEventListener("click", onClick);
    return b;
  }

  async function load() {
    if (!user || user.role !== "admin") {
      $("#admin-only").classList.add("hidden");
      $("#accounts").replaceChildren();
      say(user ? `A ${words(user.role)} may not manage accounts: it takes the admin.` : "Log in as the admin.");
      return;
    }
    const result = await api("GET", "/api/admin/accounts");
    if (!result.ok) {
      say(errorText(result));
      return;
    }
    $("#admin-only").classList.remove("hidden");
    const head = el("tr", {}, ...["Account", "Role", "State", "Locked out", ""].map((t) => el("th", { text: t })));
    const rows = result.data.map((a) => {
      const locks = a.locked.map((l) => `${l.client === "*" ? "addresses it has not used" : l.client || "unknown"} until ${l.until.slice(11, 19)} UTC: ${l.reason}`).join("; ");
      const actions = el("td", { class: "actions" },
        button("Unlock", `unlock-${a.username}`, () => act(a.username, "unlock", undefined, `${a.username}: unlocked.`)),
        a.disabled
          ? button("Enable", `enable-${a.username}`, () => act(a.username, "enable", undefined, `${a.username}: enabled.`))
          : button("Disable", `disable-${a.username}`, () => act(a.username, "disable", undefined, `${a.username}: disabled, every session ended.`)),
        button("End sessions", `revoke-${a.username}`, () => act(a.username, "revoke", undefined, `${a.username}: every session ended.`)));
      return el("tr", { testid: `account-${a.username}` },
        el("td", { text: a.username }),
        el("td", { text: words(a.role) }),
        el("td", { text: a.disabled ? "disabled" : "active" }),
        el("td", { text: locks || "–" }),
        actions);
    });
    $("#accounts").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
    const select = $("#reset-account");
    const chosen = select.value;
    select.replaceChildren(...result.data.map((a) => el("option", { value: a.username, text: a.username })));
    if (chosen) select.value = chosen;
  }

  $("#reset-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const username = $("#reset-account").value;
    const ok = await act(username, "password", { password: $("#reset-password").value }, `${username}: new password set, every session ended.`);
    if (ok) $("#reset-password").value = "";
  });

  Punto.loginBox($("#login"), (who) => {
    user = who;
    say("");
    load();
  }).refresh();
})();
