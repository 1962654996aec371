/* Cards drawn with CSS: "Th" is the ten of hearts; null is a face-down card. */
"use strict";

const Cards = {
  SUITS: { c: ["\u2663", "clubs"], d: ["\u2666", "diamonds"], h: ["\u2665", "hearts"], s: ["\u2660", "spades"] },

  is(value) {
    return typeof value === "string" && /^(10|[2-9TJQKA])[cdhs]$/.test(value);
  },

  isList(value) {
    return Array.isArray(value) && value.length > 0 && value.every((c) => c === null || Cards.is(c));
  },

  face(code, marked) {
    const suit = code.slice(-1);
    const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    const [symbol, name] = Cards.SUITS[suit];
    return Arena.el("span", { class: `card suit-${suit}${marked ? " marked" : ""}`, title: code, "data-card": code,
      "aria-label": `${rank} of ${name}` }, [
      Arena.el("span", { class: "rank", text: rank }), Arena.el("span", { class: "suit", text: symbol })]);
  },

  back() {
    return Arena.el("span", { class: "card back", title: "face down", "aria-label": "face down card" });
  },

  row(codes, marked) {
    const marks = new Set(marked || []);
    return Arena.el("span", { class: "cards" }, (codes || []).map((c) => (c === null ? Cards.back() : Cards.face(c, marks.has(c)))));
  },

  backs(count) {
    return Arena.el("span", { class: "cards" }, Array.from({ length: count }, () => Cards.back()));
  },
};
