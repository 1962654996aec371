/* The match list: filters by competition, variant, bot and result, kept in the page's query
 * string (?t=demo&bot=heuristic&result=won) so a filtered list can be linked to, on the
 * server and in a static report alike.  The server filters itself (its form is a plain
 * one, sent with its button); a report's list carries every match and is filtered here. */
"use strict";

Arena.init.push(function matchList() {
  const form = document.getElementById("match-filters");
  const rows = Arena.data("match-data");
  if (!form || !rows) return;
  const body = document.querySelector("#match-list tbody");
  const more = document.getElementById("show-more");
  const PAGE = 300;
  let limit = PAGE;

  const choices = {
    t: [...new Set(rows.map((r) => r.t))].sort(),
    v: [...new Set(rows.map((r) => r.v))].sort(),
    bot: [...new Set(rows.flatMap((r) => r.seats.map((s) => s.bot)))].sort(),
  };
  const asked = new URLSearchParams(window.location.search);
  for (const select of form.querySelectorAll("select")) {
    const field = select.dataset.field;
    if (field) {
      select.replaceChildren(Arena.el("option", { value: "", text: "any" }),
        ...choices[field].map((value) => Arena.el("option", { value, text: value })));
    }
    select.value = asked.get(select.name) || "";
    if (select.value !== (asked.get(select.name) || "")) select.value = "";
  }

  function wanted() {
    return Object.fromEntries([...form.querySelectorAll("select")].map((s) => [s.name, s.value]));
  }

  function keeps(row, f) {
    if (f.t && row.t !== f.t) return false;
    if (f.v && row.v !== f.v) return false;
    const mine = f.bot ? row.seats.filter((s) => s.bot === f.bot) : row.seats;
    if (f.bot && !mine.length) return false;
    if (f.result === "won") return mine.some((s) => s.place === 1);
    if (f.result === "lost") return f.bot ? mine.every((s) => s.place !== 1) : true;
    if (f.result === "faults") return mine.some((s) => s.faults > 0);
    return true;
  }

  function line(row) {
    const seats = row.seats.map((s, i) => Arena.el("span", { class: s.place === 1 ? "seat winner" : "seat" }, [
      Arena.el("a", { href: Arena.link(s.page), text: s.bot }), ` (${s.place})`, s.faults ? Arena.el("span",
        { class: "fault-mark", title: `${s.faults} fault(s)`, text: "!" }) : null, i + 1 < row.seats.length ? ", " : "",
    ]));
    return Arena.el("tr", { "data-match": row.id }, [
      Arena.el("td", {}, Arena.el("a", { href: Arena.link(row.page), text: row.id })),
      Arena.el("td", { text: row.t }), Arena.el("td", { text: row.v }), Arena.el("td", {}, seats),
      Arena.el("td", { text: row.reason }), Arena.el("td", { class: "num", text: row.rounds }),
      Arena.el("td", { class: "when", text: row.finished }),
    ]);
  }

  function draw() {
    const f = wanted();
    const kept = rows.filter((r) => keeps(r, f));
    body.replaceChildren(...kept.slice(0, limit).map(line));
    document.getElementById("match-count").textContent = String(kept.length);
    more.hidden = kept.length <= limit;
    more.textContent = `show ${Math.min(PAGE, kept.length - limit)} more of ${kept.length - limit}`;
    const query = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
    const shown = query.toString();
    window.history.replaceState(null, "", shown ? `?${shown}` : window.location.pathname);
  }

  form.addEventListener("change", () => { limit = PAGE; draw(); });
  form.addEventListener("submit", (event) => { event.preventDefault(); draw(); });
  more.onclick = () => { limit += PAGE; draw(); };
  draw();
});
