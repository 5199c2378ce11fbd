// The organiser's page: progress, agreement and throughput, refreshed every 5 seconds; exports.
"use strict";
(function () {
  const token = window.cranfieldToken("cranfield-judge-organiser-token");
  const $ = (id) => document.getElementById(id);
  const shown = (value) => (value === null || value === undefined ? "–" : String(value));

  function say(text, error) {
    $("message").textContent = text;
    $("message").className = error ? "error" : "";
  }

  async function get(path) {
    const response = await fetch(path, { headers: { Authorization: "Bearer " + token } });
    if (!response.ok) {
      let message = response.statusText;
      try { message = (await response.json()).error; } catch (_) { /* not JSON */ }
      throw new Error(message);
    }
    return response;
  }

  function fill(table, rows) {
    const body = $(table).tBodies[0];
    body.replaceChildren(...rows.map((cells) => {
      const tr = document.createElement("tr");
      for (const cell of cells) {
        const td = document.createElement("td");
        td.textContent = shown(cell);
        if (typeof cell === "number") td.className = "n";
        tr.append(td);
      }
      return tr;
    }));
  }

  async function refresh() {
    try {
      const s = await (await get("/api/status")).json();
      $("judged").textContent = s.judged + " / " + s.pool;
      $("rate").textContent = shown(s.per_minute_last_10);
      $("kappa").textContent = shown(s.agreement.kappa);
      $("alpha").textContent = shown(s.agreement.alpha);
      $("pairs").textContent = shown(s.agreement.pairs);
      fill("assessors", s.assessors.map((a) => [a.name, a.judged, a.skipped, a.topics, a.seconds_per_judgment, a.per_hour]));
      fill("topics", s.topics.map((t) => [t.topic, t.pool, t.first, t.judged_first, t.second,
        t.second ? t.judged_second + " / " + t.overlap : ""]));
      $("updated").textContent = "updated " + new Date().toLocaleTimeString();
      say("");
    } catch (error) {
      say(error.message, true);
    }
  }

  async function download(kind) {
    try {
      const response = await get("/api/export/" + kind);
      const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
      const link = document.createElement("a");
      link.href = URL.createObjectURL(await response.blob());
      link.download = name ? name[1] : kind + ".txt";
      document.body.append(link);
      link.click();
      link.remove();
    } catch (error) {
      say(error.message, true);
    }
  }

  for (const button of document.querySelectorAll("[data-export]")) {
    button.addEventListener("click", () => download(button.dataset.export));
  }
  if (!token) { say("No token: open the organiser link printed by `cranfield judge serve`.", true); return; }
  refresh();
  setInterval(refresh, 5000);
})();
