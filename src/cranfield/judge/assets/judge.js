// The assessor's page: plain JavaScript, no library. Documents are shown with textContent only
// (never as markup); query terms are wrapped in <mark> elements built node by node.
"use strict";
(function () {
  const token = window.cranfieldToken("cranfield-judge-token");
  const $ = (id) => document.getElementById(id);
  let scale = [];
  let current = null;
  let shownAt = 0;
  let busy = false;

  function say(text, error) {
    $("message").textContent = text;
    $("message").className = error ? "error" : "";
  }

  async function api(method, path, body) {
    const options = { method, headers: { Authorization: "Bearer " + token } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    if (response.status === 204) return null;
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  }

  function highlighted(text, terms) {
    const fragment = document.createDocumentFragment();
    if (!terms.length) { fragment.append(text); return fragment; }
    const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const pattern = new RegExp("(^|[^\\p{L}\\p{N}])((?:" + escaped.join("|") + ")[\\p{L}\\p{N}]*)", "giu");
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      const start = match.index + match[1].length;
      fragment.append(text.slice(last, start));
      const mark = document.createElement("mark");
      mark.textContent = match[2];
      fragment.append(mark);
      last = start + match[2].length;
    }
    fragment.append(text.slice(last));
    return fragment;
  }

  function show(pair) {
    current = pair;
    if (!pair) {
      $("main").hidden = true;
      $("done").hidden = false;
      $("progress").textContent = "";
      return;
    }
    $("done").hidden = true;
    $("main").hidden = false;
    $("topic-id").textContent = pair.topic.id;
    $("topic-title").textContent = pair.topic.title;
    $("topic-description").textContent = pair.topic.description;
    $("topic-narrative").textContent = pair.topic.narrative;
    $("doc-id").textContent = pair.doc.id;
    $("doc-title").replaceChildren(highlighted(pair.doc.title, pair.terms));
    $("doc-text").replaceChildren(highlighted(pair.doc.text, pair.terms));
    $("doc-text").scrollTop = 0;
    const p = pair.progress;
    $("progress").textContent = "topic " + pair.topic.id + ": " + p.topic.done + " / " + p.topic.total +
      " · judged " + p.judged + (p.skipped ? " · skipped " + p.skipped : "");
    $("topic-bar").style.width = (p.topic.total ? 100 * p.topic.done / p.topic.total : 0) + "%";
    $("undo").disabled = !p.can_undo;
    shownAt = performance.now();
  }

  async function act(work) {
    if (busy) return;
    busy = true;
    try { await work(); } catch (error) { say(error.message, true); } finally { busy = false; }
  }

  function judge(grade) {
    if (!current) return;
    const pair = current;
    return act(async () => {
      const seconds = Math.round(performance.now() - shownAt) / 1000;
      const data = await api("POST", "/api/judgments", { topic: pair.topic.id, doc: pair.doc.id, grade, seconds });
      const label = scale.find((s) => s.grade === grade).label;
      say("saved: topic " + pair.topic.id + ", document " + pair.doc.id + " → " + label);
      show(data.next);
    });
  }

  function skip() {
    if (!current) return;
    const pair = current;
    return act(async () => {
      const data = await api("POST", "/api/skip", { topic: pair.topic.id, doc: pair.doc.id });
      say("skipped document " + pair.doc.id);
      show(data.next);
    });
  }

  function undo() {
    return act(async () => {
      const data = await api("POST", "/api/undo", {});
      say("undone: document " + data.undone.doc + " is back");
      show(data.next);
    });
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const key = event.key.toLowerCase();
    if (/^[0-9]$/.test(key) && scale.some((s) => s.grade === Number(key))) { event.preventDefault(); judge(Number(key)); }
    else if (key === "s") { event.preventDefault(); skip(); }
    else if (key === "u") { event.preventDefault(); undo(); }
  });

  async function start() {
    if (!token) { say("No token: open the link printed by `cranfield judge assessor add`.", true); return; }
    try {
      const me = await api("GET", "/api/me");
      scale = me.scale;
      $("who").textContent = me.name;
      const grades = $("grades");
      for (const s of scale) {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.grade = String(s.grade);
        const kbd = document.createElement("kbd");
        kbd.textContent = String(s.grade);
        button.append(kbd, " " + s.label);
        button.addEventListener("click", () => judge(s.grade));
        grades.append(button);
      }
      $("skip").addEventListener("click", skip);
      $("undo").addEventListener("click", undo);
      show(await api("GET", "/api/next"));
    } catch (error) {
      say(error.message, true);
    }
  }
  start();
})();
