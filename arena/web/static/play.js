/* The play page: a form to choose a table, then the game, over one WebSocket.
 *
 * The server (arena/web/play.py) sends JSON messages: `seated`, then a `decision` at each
 * of the person's turns (arena/human/view.py's Decision, with the question's number and,
 * after a refused answer, why), `notice`, `left`, the `ending` (placements), then
 * `recorded` (the stored match and its replay page), or an `error`.  The page sends the
 * table it wants, then `answer` (the question's number and the text: an action, a card,
 * or anything typed, which the server reads as `arena play` does) and `leave`.
 *
 * Keys: 1-9 choose an action; the text box takes anything `arena play` takes.
 */
"use strict";

Arena.init.push(function playPage() {
  const data = Arena.data("play-data");
  const form = document.getElementById("play-form");
  if (!data || !form || form.dataset.ready) return;
  form.dataset.ready = "1";

  const $ = (id) => document.getElementById(id);
  const variants = new Map(data.offered.variants.map((v) => [v.name, v]));
  const bots = data.offered.bots;
  const CARD = /^[([]*((?:10|[2-9TJQKA])[cdhs]|\?\?)([\]),.;:]*)$/;

  // -- the form ---------------------------------------------------------------------------

  function options(select, values, label, wanted) {
    const keep = values.map(String).includes(String(wanted)) ? String(wanted) : String(values[0]);
    select.replaceChildren(...values.map((v) => Arena.el("option", { value: v, text: label(v) })));
    select.value = keep;
  }

  function botsFor(variant) {
    return bots.filter((b) => b.variants.includes("*") || b.variants.includes(variant));
  }

  function layout() {
    const variant = variants.get($("play-variant").value);
    const sizes = [];
    for (let n = variant.min; n <= variant.max; n++) sizes.push(n);
    options($("play-players"), sizes, (n) => `${n}`, $("play-players").value || variant.min);
    const players = Number($("play-players").value);
    const seats = Array.from({ length: players }, (_, s) => s);
    options($("play-seat"), seats, (s) => (s === 0 ? "0 (deals first)" : String(s)), $("play-seat").value || 0);
    const seat = Number($("play-seat").value);
    const playable = botsFor(variant.name);
    const before = [...$("play-bots").querySelectorAll("select")].map((s) => s.value);
    const fallback = playable.some((b) => b.name === "heuristic") ? "heuristic" : (playable[0] || {}).name;
    $("play-bots").replaceChildren(...Array.from({ length: players - 1 }, (_, i) => {
      const select = Arena.el("select", { name: "bot", "data-bot": i });
      select.replaceChildren(...playable.map((b) => Arena.el("option", { value: b.name,
        text: b.bundled ? b.name : `${b.name} (registered)`, title: b.description })));
      select.value = playable.some((b) => b.name === before[i]) ? before[i] : fallback;
      return Arena.el("label", {}, [`seat ${i < seat ? i : i + 1} `, select]);
    }));
    const defaults = Object.entries(variant.options).map(([k, v]) => `${k}=${v}`).join(" ");
    $("play-variant-note").textContent = `${variant.description}. Options and their values here: ${defaults}`;
  }

  for (const id of ["play-variant", "play-players", "play-seat"]) $(id).addEventListener("change", layout);
  layout();

  // -- text with cards in it ----------------------------------------------------------------

  function mini(code) {
    const card = code === "??" ? Cards.back() : Cards.face(code);
    card.classList.add("mini");
    return card;
  }

  /** ``text`` with every card code in it drawn as a small card. */
  function rich(text) {
    const parts = [];
    for (const token of String(text).split(/(\s+)/)) {
      const found = CARD.exec(token);
      if (found && (found[1] === "??" || Cards.is(found[1]))) {
        const before = token.slice(0, token.indexOf(found[1]));
        if (before) parts.push(before);
        parts.push(mini(found[1]));
        if (found[2]) parts.push(found[2]);
      } else if (token) {
        parts.push(token);
      }
    }
    return Arena.el("span", { class: "rich" }, parts);
  }

  function cardsIn(action) {
    return action.split(" ").filter(Cards.is);
  }

  // -- the game -----------------------------------------------------------------------------

  let socket = null;
  let question = null;
  let legal = [];
  let recorded = false;
  let over = false;

  let ticking = null;

  function status(text) {
    clearInterval(ticking);
    $("play-status").textContent = text;
  }

  /** "your move: N s", counted down to the deadline the referee set. */
  function countdown(ms) {
    const deadline = performance.now() + ms;
    const show = () => {
      $("play-status").textContent = `your move: ${Math.max(0, Math.ceil((deadline - performance.now()) / 1000))} s`;
    };
    status("");
    show();
    ticking = setInterval(show, 250);
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function answer(text) {
    if (question === null) return;
    send({ type: "answer", question, text });
    question = null;
    for (const node of $("play-ask").querySelectorAll("button, input")) node.disabled = true;
    status("the others are playing…");
  }

  function start(event) {
    event.preventDefault();
    $("play-error").hidden = true;
    $("play-start").disabled = true;
    const choice = {
      variant: $("play-variant").value, seat: $("play-seat").value, name: $("play-name").value,
      options: $("play-options").value, seed: $("play-seed").value, seconds: $("play-seconds").value,
      bots: [...$("play-bots").querySelectorAll("select")].map((s) => s.value),
    };
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${window.location.host}${data.socket}`);
    socket.addEventListener("open", () => socket.send(JSON.stringify(choice)));
    socket.addEventListener("message", (message) => receive(JSON.parse(message.data)));
    socket.addEventListener("close", closed);
  }

  function receive(message) {
    const handlers = { seated, decision, ending, left, notice, recorded: stored, error: failed };
    const handle = handlers[message.type];
    if (handle) handle(message);
  }

  function seated(message) {
    $("play-setup").hidden = true;
    $("play-game").hidden = false;
    $("play-title").textContent = `${message.variant} · ${message.players.join(", ")} · ${message.seconds} s per decision`;
    status("the bots are starting…");
  }

  function seatBox(line) {
    const classes = ["seat-box"];
    if (line.name === "You") classes.push("viewer");
    if (line.notes.includes("to move")) classes.push("to-move");
    if (line.standing === "out") classes.push("out");
    return Arena.el("div", { class: classes.join(" "), "data-seat": line.seat }, [
      Arena.el("div", { class: "seat-head" }, [
        Arena.el("strong", { text: line.name }), Arena.el("span", { class: "player", text: line.player }),
        ...line.notes.map((n) => Arena.el("span", { class: `badge badge-${n.replaceAll(" ", "-")}`, text: n }))]),
      line.standing ? Arena.el("div", { class: "standing", text: line.standing }) : null,
    ]);
  }

  function news(lines, heading) {
    $("play-news-title").textContent = heading;
    $("play-news").replaceChildren(...lines.map((line) => Arena.el("li", {}, rich(line))));
    if (!lines.length) $("play-news").append(Arena.el("li", { class: "none", text: "nothing yet" }));
  }

  function mark(cards) {
    const marked = new Set(cards);
    for (const card of $("play-mine").querySelectorAll(".card[data-card]")) {
      card.classList.toggle("marked", marked.has(card.dataset.card));
    }
  }

  function decision(message) {
    const view = message.decision;
    question = message.question;
    legal = view.legal;
    $("play-title").textContent = view.title;
    if (view.time_left_ms === null) status("your move");
    else countdown(view.time_left_ms);
    $("play-seats").replaceChildren(...view.seats.map(seatBox));
    $("play-center").replaceChildren(...view.table.map(([label, text]) => Arena.el("div", { class: "pile" }, [
      Arena.el("span", { class: "key", text: label }), " ", rich(text)])));
    const hand = Cards.row(view.hand);
    for (const card of hand.querySelectorAll(".card[data-card]")) {
      card.classList.add("pickable");
      card.title = `${card.dataset.card}: the action that uses this card alone`;
      card.addEventListener("click", () => answer(card.dataset.card));
    }
    $("play-mine").replaceChildren(Arena.el("span", { class: "key", text: "Your hand" }), " ", hand,
      Arena.el("span", { class: "value", text: view.hand_note }));
    const buttons = view.legal.map((action, i) => {
      const button = Arena.el("button", { type: "button", class: "action", "data-action": action },
        [Arena.el("kbd", { text: i < 9 ? String(i + 1) : "" }), " ", rich(action)]);
      button.addEventListener("click", () => answer(action));
      button.addEventListener("mouseenter", () => mark(cardsIn(action)));
      button.addEventListener("mouseleave", () => mark([]));
      return button;
    });
    const typed = Arena.el("input", { type: "text", id: "play-typed", placeholder: message.typing || "or type a number, an action or its cards",
      "aria-label": "your answer", maxlength: "200" });
    const typing = Arena.el("form", { class: "play-typing" }, [typed, Arena.el("button", { type: "submit", text: "Answer" })]);
    typing.addEventListener("submit", (event) => {
      event.preventDefault();
      answer(typed.value);
    });
    const asked = [Arena.el("p", { class: "prompt", text: view.prompt })];
    if (message.problem) asked.push(Arena.el("p", { class: "play-problem", id: "play-problem", text: message.problem }));
    $("play-ask").replaceChildren(...asked, Arena.el("div", { class: "actions" }, buttons), typing);
    news(view.news, "Since your last move");
  }

  function ending(message) {
    const end = message.ending;
    over = true;
    question = null;
    $("play-title").textContent = end.title;
    status(end.abandoned ? "abandoned" : "the match is over");
    $("play-leave").disabled = true;
    for (const id of ["play-seats", "play-center", "play-mine"]) $(id).replaceChildren();  // the showdown is in the last events
    $("play-ask").replaceChildren(Arena.el("p", { class: "prompt", text: end.abandoned
      ? `The match was ${end.reason}. Nothing was decided; what was played is recorded.` : `Match over: ${end.reason}.` }));
    const rows = end.places.map((p) => Arena.el("tr", { class: p.name === "You" ? "you" : "" }, [
      Arena.el("td", { class: "num place", text: String(p.place) }), Arena.el("td", { text: p.name }),
      Arena.el("td", { text: p.player }), Arena.el("td", { class: "num score", text: p.score })]));
    $("play-end").replaceChildren(Arena.el("h3", { text: "Final placements" }), Arena.el("table", { class: "list final" }, [
      Arena.el("thead", {}, Arena.el("tr", {}, ["place", "seat", "player", "score"].map((h) => Arena.el("th", { text: h })))),
      Arena.el("tbody", {}, rows)]));
    news(end.news, "The last events");
  }

  function left(message) {
    over = true;
    question = null;
    $("play-ask").replaceChildren(Arena.el("p", { class: "play-problem", text: message.message }));
  }

  function notice(message) {
    $("play-news").append(Arena.el("li", { class: "notice", text: `Referee: ${message.message}` }));
  }

  function stored(message) {
    recorded = true;
    over = true;
    $("play-leave").disabled = true;
    if (!$("play-end").childElementCount) {
      $("play-ask").replaceChildren(Arena.el("p", { class: "prompt", text: `The match ended: ${message.reason}.` }));
    }
    $("play-end").append(Arena.el("div", { class: "play-recorded", id: "play-recorded" }, [
      Arena.el("p", {}, [`Recorded as match ${message.match} (competition play, ${message.decisions} decisions). `,
        Arena.el("a", { href: message.url, id: "play-replay", text: "Replay it" }), " · ",
        Arena.el("a", { href: Arena.link("play/index.html"), text: "Play again" })]),
      ...message.faults.map((f) => Arena.el("p", { class: "fault", text: f }))]));
    status(`recorded as ${message.match}`);
  }

  function failed(message) {
    if ($("play-game").hidden) {
      $("play-error").hidden = false;
      $("play-error").textContent = `Cannot start: ${message.message}`;
      $("play-start").disabled = false;
    } else {
      over = true;
      $("play-ask").replaceChildren(Arena.el("p", { class: "play-problem", text: `The match stopped: ${message.message}` }));
    }
  }

  function closed() {
    socket = null;
    $("play-start").disabled = false;
    if (!recorded && !$("play-game").hidden) {
      question = null;
      $("play-leave").disabled = true;
      $("play-ask").append(Arena.el("p", { class: "play-problem",
        text: "The connection to the server was lost." + (over ? "" : " The match is recorded as abandoned.") }));
    }
  }

  form.addEventListener("submit", start);
  $("play-leave").addEventListener("click", () => {
    send({ type: "leave" });
    $("play-leave").disabled = true;
    status("leaving…");
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey || question === null) return;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
    if (!/^[1-9]$/.test(event.key) || Number(event.key) > legal.length) return;
    event.preventDefault();
    answer(legal[Number(event.key) - 1]);
  });
});
