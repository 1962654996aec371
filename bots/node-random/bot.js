#!/usr/bin/env node
// node-random: a Thirty-One Arena bot in JavaScript that speaks the JSON-lines protocol
// (docs/PROTOCOL.md) itself, with built-in modules only.
//
// It plays a uniformly random legal action, drawn from a small seeded generator
// (mulberry32, seeded with the FNV-1a hash of "<match_id>/<seat>"), so the same match
// with the same seed replays the same way.
"use strict";

const readline = require("readline");

const NAME = "node-random";
const VERSION = "1.0.0";
const PROTOCOL = 1;

// FNV-1a, 32-bit: a string to a seed.
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

// mulberry32: a tiny 32-bit generator; returns floats in [0, 1).
function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = mulberry32(fnv1a("no match yet"));

// One JSON object per line.  Writes to a pipe are synchronous on Linux and macOS, so a
// reply is out before the next line is read (and before process.exit).
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function handle(message) {
  switch (message.type) {
    case "hello":
      send({ type: "hello", name: NAME, version: VERSION, protocol: PROTOCOL });
      break;
    case "match_start":
      random = mulberry32(fnv1a(`${message.match_id}/${message.seat}`));
      break;
    case "decide": {
      const legal = message.legal;
      const action = legal[Math.floor(random() * legal.length)];
      send({ type: "action", id: message.id, action: action });
      break;
    }
    case "bye":
      process.exit(0);
      break;
    default: // events, match_end, error and anything newer: nothing to answer
      if (message.type === "error") {
        process.stderr.write(`referee: ${message.message}\n`);
      }
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) {
    return;
  }
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    process.stderr.write(`node-random: not JSON: ${line.slice(0, 200)}\n`);
    return;
  }
  handle(message);
});
lines.on("close", () => process.exit(0));
