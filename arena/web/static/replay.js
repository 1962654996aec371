/* The replay viewer of a match page.
 *
 * Its data (arena/web/replay.py): the log's events, each with every seat's observation
 * after it (as changes from the seat's previous one), or the log alone.  A step is one
 * event.  The spectator sees every hand and every private part of the log, as after the
 * match; a seat's view shows its own observation and the log as that seat was shown it.
 * The log's lines read as `arena show` prints them.
 *
 * Keys: <- / -> a step, Home / End, Page Up / Page Down a round, Space plays.  The
 * position is in the address: #step=12&seat=1.
 */
"use strict";

Arena.init.push(function replayViewer() {
  const data = Arena.data("replay-data");
  const root = document.getElementById("replay");
  if (!data || !root) return;

  const steps = data.steps;
  const players = data.seats.length;
  const SEAT_FIELDS = new Set(["dealer", "knocker", "stopper", "caller", "winner"]);
  const SEAT_LIST_FIELDS = new Set(["eliminated", "blitz", "winners", "losers"]);
  const SEAT_MARKS = { dealer: "dealer", knocker: "knocked", stopper: "stopped", caller: "called", declarer: "declarer",
    forehand: "forehand", middlehand: "middlehand", rearhand: "rearhand", first: "plays first" };
  const ENDS = new Set(["round_end", "match_end"]);
  const CENTER = ["stock", "discard_top", "discard_size", "widow", "table", "face_up", "trick", "ouvert_hand", "cleared",
    "out_of_play"];

  // -- the log's values as `arena show` writes them ---------------------------------------

  function entries(value) {
    return value && value.$seats ? value.$seats : Object.entries(value);
  }

  function text(value) {
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (value === null || value === undefined) return "-";
    if (Array.isArray(value)) return value.map(text).join(" ") || "-";
    if (typeof value === "object") return entries(value).map(([k, v]) => `${k} ${text(v)}`).join(", ") || "-";
    return String(value);
  }

  function who(seat) {
    const s = Number(seat);
    return `seat ${s} (${data.seats[s] ? data.seats[s].name : "?"})`;
  }

  function fields(pairs) {
    return pairs.map(([key, value]) => {
      let shown;
      if (SEAT_FIELDS.has(key) && Number.isInteger(value)) shown = who(value);
      else if (SEAT_LIST_FIELDS.has(key) && Array.isArray(value)) shown = value.map(who).join(", ") || "none";
      else shown = text(value);
      return `${key.replaceAll("_", " ")} ${shown}`;
    }).join(" · ");
  }

  function counted(n, noun) {
    return n === 1 ? `1 ${noun}` : `${n} ${noun}s`;
  }

  /** The event as `viewer` saw it: a seat sees the public part and its own private part. */
  function seen(event, viewer) {
    if (viewer === null) return event;
    const out = {};
    for (const [k, v] of Object.entries(event)) if (k !== "private") out[k] = v;
    for (const [s, part] of entries(event.private || {})) if (Number(s) === viewer) Object.assign(out, part);
    return out;
  }

  /** The lines `arena show` prints for an event (blank lines left out). */
  function lines(event) {
    const kind = event.event === undefined ? "?" : String(event.event);
    const seat = event.seat;
    const rest = Object.entries(event).filter(([k]) => !["event", "seat", "private"].includes(k));
    const privateParts = entries(event.private || {});
    const subject = Number.isInteger(seat) ? who(seat) : "";
    const take = (key, otherwise) => {
      const at = rest.findIndex(([k]) => k === key);
      return at < 0 ? otherwise : rest.splice(at, 1)[0][1];
    };
    const out = [];
    if (kind === "round_start") {
      const round = take("round", "?");
      out.push(`Round ${round}: ${fields(rest)}`);
    } else if (kind === "action") {
      let action = take("action", "?");
      const extra = fields(rest);
      let parts = privateParts;
      const own = privateParts.find(([s]) => Number(s) === seat);
      if (own && "action" in own[1]) {  // what only the actor saw of its own action (Skat's discard), as arena show says it
        action = `${own[1].action} (the others saw: ${action})`;
        parts = privateParts.map(([s, p]) => [s, Object.fromEntries(Object.entries(p).filter(([k]) => k !== "action"))])
          .filter(([, p]) => Object.keys(p).length > 0);
      }
      const hidden = parts.map(([s, p]) => (Number(s) === seat ? "" : `${who(s)} `) + fields(entries(p)));
      out.push(`  ${subject}: ${action}${extra ? ` · ${extra}` : ""}${hidden.map((h) => ` [${h}]`).join("")}`);
    } else if (kind === "round_end") {
      const hands = take("hands", {});
      const values = new Map(entries(take("values", {})));
      const end = take("end", null);
      out.push(`round end${end ? ` (${end})` : ""}: ${fields(rest)}`);
      for (const [s, cards] of entries(hands)) {
        out.push(`  ${who(s)} shows ${text(cards)}${values.has(s) ? ` = ${text(values.get(s))}` : ""}`);
      }
    } else if (kind === "match_end") {
      const rounds = event.rounds;
      out.push(`match end: ${event.reason === undefined ? "?" : event.reason} after ${Number.isInteger(rounds) ? counted(rounds, "round") : "? rounds"}`);
    } else {
      const heading = `${kind} ${subject}`.trimEnd();
      out.push(rest.length ? `${heading}: ${fields(rest)}` : heading);
    }
    if (kind !== "action") for (const [s, part] of privateParts) out.push(`  ${who(s)}: ${fields(entries(part))}`);
    return out;
  }

  // -- every seat's observation at every step --------------------------------------------

  const observed = [];
  if (data.observed) {
    let last = Array.from({ length: players }, () => ({}));
    for (const step of steps) {
      last = last.map((before, s) => {
        const change = step.o[s];
        const now = Object.assign({}, before, change);
        delete now["-"];
        for (const gone of change["-"] || []) delete now[gone];
        return now;
      });
      observed.push(last);
    }
  }
  const roundOf = [];
  let round = 0;
  for (const step of steps) {
    if (step.e.event === "round_start" && Number.isInteger(step.e.round)) round = step.e.round;
    roundOf.push(round);
  }

  // -- the page's parts -------------------------------------------------------------------

  const $ = (id) => document.getElementById(id);
  const slider = $("replay-slider");
  const viewerSelect = $("replay-viewer");
  const log = $("replay-log");
  slider.max = String(steps.length - 1);
  if (data.note) {
    $("replay-note").hidden = false;
    $("replay-note").textContent = data.note;
  }

  let at = 0;
  let viewer = null;
  let playing = null;

  function drawLog() {
    log.replaceChildren(...steps.map((step, i) => Arena.el("li", { "data-step": i, class: `kind-${step.e.event}` }, [
      Arena.el("a", { href: `#${address(i)}`, class: "lines", text: lines(seen(step.e, viewer)).join("\n") }),
    ])));
  }

  function address(step) {
    const params = new URLSearchParams({ step: String(step) });
    if (viewer !== null) params.set("seat", String(viewer));
    return params.toString();
  }

  function isPublic(obs, key) {
    const first = JSON.stringify(obs[0][key]);
    return obs.every((o) => key in o && JSON.stringify(o[key]) === first);
  }

  function actedCards(event) {
    if (event.event !== "action" || typeof event.action !== "string") return [];
    return event.action.split(" ").filter(Cards.is);
  }

  function seatArrays(obs) {
    return Object.entries(obs).filter(([k, v]) => Array.isArray(v) && v.length === players && k !== "active"
      && v.every((x) => x === null || typeof x === "number" || typeof x === "boolean"));
  }

  function valueView(key, value) {
    if (Cards.is(value)) return Cards.row([value]);
    if (Cards.isList(value)) return Cards.row(value);
    if (Array.isArray(value) && value.length && value.every(Cards.isList)) {
      return Arena.el("span", { class: "card-rows" }, value.map((row, i) => Arena.el("span", { class: "card-row" },
        [Arena.el("span", { class: "tag", text: String(i) }), Cards.row(row)])));
    }
    if (Array.isArray(value) && value.length && value.every((x) => x && typeof x === "object" && "card" in x)) {
      return Arena.el("span", { class: "trick" }, value.map((x) => Arena.el("span", { class: "played" }, [
        Cards.row([x.card]), Arena.el("span", { class: "tag", text: Number.isInteger(x.seat) ? `seat ${x.seat}` : "" })])));
    }
    if (Array.isArray(value) && value.length && value.every((x) => x && typeof x === "object" && "cards" in x)) {
      const lastTrick = value[value.length - 1];
      return Arena.el("span", {}, [`${value.length}; last won by ${who(lastTrick.winner)}: `, valueView("trick", lastTrick.cards)]);
    }
    if (Array.isArray(value) && value.length && value.every((x) => x && typeof x === "object" && "call" in x)) {
      return Arena.el("span", { text: value.map((x) => `seat ${x.seat} ${x.call}`).join(", ") });
    }
    if (Number.isInteger(value) && Object.prototype.hasOwnProperty.call(SEAT_MARKS, key)) return Arena.el("span", { text: who(value) });
    if (Array.isArray(value) && value.length === 0) return Arena.el("span", { class: "none", text: "none" });
    return Arena.el("span", { text: text(value) });
  }

  function fact(key, value) {
    return Arena.el("span", { class: `fact fact-${key}` }, [Arena.el("span", { class: "key", text: key.replaceAll("_", " ") }),
      " ", valueView(key, value)]);
  }

  function seatBox(s, obs, base, event, shownHands) {
    const own = obs ? obs[s] : null;
    const marks = Object.entries(SEAT_MARKS).filter(([k]) => base && base[k] === s).map(([, label]) => label);
    const moving = base && base.to_move === s && base.phase !== "over" && !ENDS.has(event.event);
    if (moving) marks.unshift("to move");
    const out = base && Array.isArray(base.active) && base.active[s] === false;
    const place = event.event === "match_end" && Array.isArray(event.placements) ? event.placements[s] : null;
    const header = Arena.el("div", { class: "seat-head" }, [
      Arena.el("strong", { text: who(s) }),
      ...marks.map((m) => Arena.el("span", { class: `badge badge-${m.replaceAll(" ", "-")}`, text: m })),
      out ? Arena.el("span", { class: "badge badge-out", text: "out" }) : null,
      place !== null && place !== undefined ? Arena.el("span", { class: "badge badge-place", text: `place ${place}` }) : null,
    ]);
    const standing = base ? seatArrays(base).map(([k, v]) => `${k.replaceAll("_", " ")} ${text(v[s])}`).join(" · ") : "";
    let hand;
    const revealed = shownHands.get(String(s));
    if (revealed) {
      hand = Cards.row(revealed.cards);
      if (revealed.value !== undefined) hand.append(Arena.el("span", { class: "value", text: `= ${text(revealed.value)}` }));
    } else if (own && Array.isArray(own.hand)) {
      const mine = viewer === null || viewer === s;
      const acted = event.seat === s ? actedCards(event) : [];
      hand = mine ? Cards.row(own.hand, acted) : Cards.backs(own.hand.length);
    } else {
      hand = Arena.el("span", { class: "none", text: obs ? "" : "(the log alone: hands are in the events)" });
    }
    const extras = [];
    if (own && obs && (viewer === null || viewer === s)) {
      for (const [k, v] of Object.entries(own)) {
        if (["seat", "hand"].includes(k) || v === null || isPublic(obs, k)) continue;
        extras.push(fact(k, v));
      }
    }
    const classes = ["seat-box"];
    if (moving) classes.push("to-move");
    if (viewer === s) classes.push("viewer");
    if (out) classes.push("out");
    return Arena.el("div", { class: classes.join(" "), "data-seat": s }, [
      header, Arena.el("div", { class: "hand", "data-seat-hand": s }, hand),
      standing ? Arena.el("div", { class: "standing", text: standing }) : null,
      extras.length ? Arena.el("div", { class: "extras" }, extras) : null,
    ]);
  }

  function center(base, obs, event) {
    const parts = [];
    if (event.event === "trick" && Array.isArray(event.cards)) {
      parts.push(Arena.el("div", { class: "center-trick" }, [Arena.el("span", { class: "key", text: `trick to ${who(event.seat)}` }),
        " ", valueView("trick", event.cards), event.points !== undefined ? ` ${event.points} points` : ""]));
    }
    if (!base) return parts;
    const publicKeys = Object.keys(base).filter((k) => viewer !== null || isPublic(obs, k));
    const shown = new Set(["seat", "hand", "to_move", "active", ...seatArrays(base).map(([k]) => k)]);
    for (const key of CENTER) {
      if (!publicKeys.includes(key)) continue;
      shown.add(key);
      if (key === "discard_size" && "discard_top" in base) continue;
      if (key === "discard_top") {
        parts.push(Arena.el("div", { class: "pile" }, [Arena.el("span", { class: "key", text: `discard pile (${base.discard_size ?? "?"})` }),
          " ", base.discard_top ? Cards.row([base.discard_top]) : Arena.el("span", { class: "none", text: "empty" })]));
      } else if (key === "stock") {
        parts.push(Arena.el("div", { class: "pile" }, [Arena.el("span", { class: "key", text: "stock" }), " ",
          base.stock > 0 ? Cards.backs(1) : null, Arena.el("span", { class: "count", text: ` ${base.stock}` })]));
      } else {
        parts.push(Arena.el("div", { class: "pile" }, [fact(key, base[key])]));
      }
    }
    const rest = publicKeys.filter((k) => !shown.has(k) && !Object.prototype.hasOwnProperty.call(SEAT_MARKS, k));
    if (rest.length) parts.push(Arena.el("div", { class: "facts" }, rest.map((k) => fact(k, base[k]))));
    return parts;
  }

  function result(event) {
    if (event.event === "round_end") {
      const perSeat = Object.entries(event).filter(([, v]) => Array.isArray(v) && v.length === players
        && v.every((x) => typeof x === "number" || typeof x === "boolean" || x === null));
      const values = new Map(entries(event.values || {}));
      const rows = Array.from({ length: players }, (_, s) => Arena.el("tr", {}, [
        Arena.el("th", { text: who(s) }),
        Arena.el("td", { class: "num", text: values.has(String(s)) ? text(values.get(String(s))) : "" }),
        ...perSeat.map(([, v]) => Arena.el("td", { class: "num", text: text(v[s]) }))]));
      return [Arena.el("h3", { text: `Round ${roundOf[at]} ends${event.end ? `: ${event.end}` : ""}` }),
        Arena.el("table", { class: "list" }, [Arena.el("thead", {}, Arena.el("tr", {}, [Arena.el("th", { text: "seat" }),
          Arena.el("th", { text: "value" }), ...perSeat.map(([k]) => Arena.el("th", { text: k.replaceAll("_", " ") }))])),
        Arena.el("tbody", {}, rows)])];
    }
    if (event.event === "match_end") {
      const order = Array.from({ length: players }, (_, s) => s).sort((a, b) => (event.placements[a] - event.placements[b]) || (a - b));
      return [Arena.el("h3", { text: `Match over: ${event.reason}` }), Arena.el("table", { class: "list final" }, [
        Arena.el("thead", {}, Arena.el("tr", {}, ["place", "seat", "score"].map((h) => Arena.el("th", { text: h })))),
        Arena.el("tbody", {}, order.map((s) => Arena.el("tr", { "data-seat": s }, [
          Arena.el("td", { class: "num place", text: String(event.placements[s]) }), Arena.el("td", { text: who(s) }),
          Arena.el("td", { class: "num score", text: text(event.scores[s]) })])))])];
    }
    return [];
  }

  function drawRounds() {
    const ends = steps.map((step, i) => [step.e, i]).filter(([e]) => e.event === "round_end");
    const head = $("replay-rounds").tHead;
    const body = $("replay-rounds").tBodies[0];
    head.replaceChildren(Arena.el("tr", {}, [Arena.el("th", { text: "round" }), Arena.el("th", { text: "end" }),
      ...data.seats.map((_, s) => Arena.el("th", { text: who(s) }))]));
    body.replaceChildren(...ends.map(([e, i]) => {
      const values = new Map(entries(e.values || {}));
      const perSeat = Object.entries(e).filter(([, v]) => Array.isArray(v) && v.length === players
        && v.every((x) => typeof x === "number" || x === null));
      return Arena.el("tr", {}, [
        Arena.el("td", {}, Arena.el("a", { href: `#step=${i}`, text: String(roundOf[i]) })), Arena.el("td", { text: e.end || "" }),
        ...data.seats.map((_, s) => Arena.el("td", { text: [values.has(String(s)) ? `value ${text(values.get(String(s)))}` : null,
          ...perSeat.map(([k, v]) => `${k.replaceAll("_", " ")} ${text(v[s])}`)].filter(Boolean).join(" · ") })),
      ]);
    }));
  }

  function draw() {
    const step = steps[at];
    const event = seen(step.e, viewer);
    const obs = data.observed ? observed[at] : null;
    const base = obs ? (viewer === null ? obs[0] : obs[viewer]) : null;
    const hands = new Map();
    if (step.e.event === "round_end") {
      const values = new Map(entries(step.e.values || {}));
      for (const [s, cards] of entries(step.e.hands || {})) hands.set(String(s), { cards, value: values.get(s) });
    }
    $("replay-event").textContent = lines(event).map((l) => l.trimStart()).join("\n");
    $("replay-seats").replaceChildren(...Array.from({ length: players }, (_, s) => seatBox(s, obs, base, event, hands)));
    $("replay-center").replaceChildren(...center(base, obs, event));
    $("replay-result").replaceChildren(...result(step.e));
    $("replay-position").textContent = `step ${at} of ${steps.length - 1} · round ${roundOf[at]}${base && base.phase ? ` · ${base.phase}` : ""}`;
    slider.value = String(at);
    for (const item of log.querySelectorAll("li.current")) item.classList.remove("current");
    const current = log.querySelector(`li[data-step="${at}"]`);
    if (current) current.classList.add("current");
    later();
  }

  /** What needs the page laid out (scrolling the log) or may be throttled (the address):
   * once per frame, and once after stepping stops, however fast the steps come. */
  let frame = null;
  let settle = null;
  function later() {
    if (frame === null) {
      frame = window.requestAnimationFrame(() => {
        frame = null;
        const current = log.querySelector("li.current");
        if (!current) return;
        const top = current.offsetTop;  // the list is positioned: its items' offsets are within it
        if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - current.offsetHeight) {
          log.scrollTop = Math.max(0, top - log.clientHeight / 2);
        }
      });
    }
    const here = address(at);
    $("replay-link").href = `#${here}`;
    window.clearTimeout(settle);
    settle = window.setTimeout(() => {
      if (window.location.hash.slice(1) === here) return;
      try {
        window.history.replaceState(null, "", `#${here}`);
      } catch (error) {
        // a page whose address cannot change: the link above still works
      }
    }, 150);
  }

  function go(to) {
    at = Math.max(0, Math.min(steps.length - 1, to));
    draw();
  }

  function roundStart(from, direction) {
    let i = from + direction;
    while (i > 0 && i < steps.length - 1 && steps[i].e.event !== "round_start") i += direction;
    return i;
  }

  function play() {
    const button = $("replay-play");
    if (playing !== null) {
      window.clearInterval(playing);
      playing = null;
      button.textContent = "play";
      return;
    }
    if (at >= steps.length - 1) go(0);
    button.textContent = "pause";
    playing = window.setInterval(() => {
      if (at >= steps.length - 1) play();
      else go(at + 1);
    }, 600);
  }

  const moves = {
    first: () => go(0), last: () => go(steps.length - 1), back: () => go(at - 1), next: () => go(at + 1),
    "round-back": () => go(roundStart(at, -1)), "round-next": () => go(roundStart(at, 1)), play,
  };

  function fromAddress() {
    const params = new URLSearchParams(window.location.hash.slice(1));
    const seat = params.get("seat");
    const wanted = seat !== null && /^\d+$/.test(seat) && Number(seat) < players ? Number(seat) : null;
    if (wanted !== viewer) {
      viewer = wanted;
      viewerSelect.value = viewer === null ? "" : String(viewer);
      drawLog();
    }
    const step = Number(params.get("step"));
    go(Number.isInteger(step) ? step : 0);
  }

  for (const button of root.querySelectorAll("[data-go]")) button.addEventListener("click", () => moves[button.dataset.go]());
  slider.addEventListener("input", () => go(Number(slider.value)));
  viewerSelect.addEventListener("change", () => {
    viewer = viewerSelect.value === "" ? null : Number(viewerSelect.value);
    drawLog();
    draw();
  });
  window.addEventListener("hashchange", fromAddress);
  // a step of the log is shown as it is clicked, not when its address comes back as a
  // hashchange: the address the viewer writes after stepping (150 ms on) could land
  // first and take the view back
  log.addEventListener("click", (event) => {
    const item = event.target instanceof Element ? event.target.closest("li[data-step]") : null;
    if (item) go(Number(item.dataset.step));
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target instanceof HTMLSelectElement || (target instanceof HTMLInputElement && target.type !== "range")) return;
    const keys = { ArrowLeft: "back", ArrowRight: "next", Home: "first", End: "last", PageUp: "round-back",
      PageDown: "round-next", " ": "play" };
    const move = keys[event.key];
    if (!move) return;
    event.preventDefault();
    moves[move]();
  });

  drawLog();
  drawRounds();
  fromAddress();
});
