/* Thirty-One Arena: what every page shares.
 *
 * - Arena.init: functions that set up a page's widgets; run at load and again after a
 *   live update has redrawn the page's <main>.
 * - Arena.data(id): the JSON a page embeds in <script type="application/json" id=...>.
 * - Arena.link(path): a site path (t/demo/index.html) as a link from this page.
 * - Arena.el(tag, attrs, children): DOM building; text always goes in as text nodes,
 *   never as HTML, so nothing from the database can become markup.
 * - Live pages (body[data-live], only on the server) poll a small status and redraw
 *   themselves, without a reload, when what they watch has changed.
 */
"use strict";

const Arena = {
  init: [],

  data(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  },

  link(path) {
    const body = document.body.dataset;
    const shown = body.pretty ? path.replace(/index\.html$/, "") : path;
    return body.root + shown;
  },

  el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of [].concat(children || [])) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  },

  run() {
    for (const start of Arena.init) {
      try {
        start();
      } catch (error) {
        console.error("arena: a widget failed to start", error);
      }
    }
  },
};

(function live() {
  const body = document.body.dataset;
  if (!body.live) return;
  const shown = document.getElementById("live-state");
  const everyMs = 2000;
  let busy = false;

  function mark(status) {
    return body.watch === "*" ? status.all : status.tournaments[body.watch];
  }

  function say(text, running) {
    shown.hidden = false;
    shown.textContent = text;
    shown.classList.toggle("running", Boolean(running));
  }

  async function redraw() {
    const response = await fetch(window.location.href, { cache: "no-store" });
    if (!response.ok) throw new Error(`page answered ${response.status}`);
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    const main = fresh.getElementById("main");
    if (!main) throw new Error("no <main> in the page");
    document.getElementById("main").replaceChildren(...main.childNodes);
    body.seen = fresh.body.dataset.seen || "";
    Arena.run();
  }

  async function poll() {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch(body.live, { cache: "no-store" });
      const status = await response.json();
      const now = mark(status);
      const running = Object.values(status.tournaments).some((m) => m.endsWith(":1"));
      if (now !== undefined && now !== body.seen) await redraw();
      say(`live · ${running ? "running · " : ""}checked ${new Date().toLocaleTimeString()}`, running);
    } catch (error) {
      say("live: the server does not answer", false);
    } finally {
      busy = false;
    }
  }

  window.setInterval(poll, everyMs);
  poll();
})();

document.addEventListener("DOMContentLoaded", () => Arena.run());
