(function () {
  "use strict";
  var LIMIT = 300;
  var source = document.getElementById("episode-data");
  var root = document.getElementById("episode-browser");
  if (!source || !root) { return; }
  var data = JSON.parse(source.textContent);
  var configs = data.configurations;
  var episodes = data.episodes;
  var byId = {};
  episodes.forEach(function (e) { byId[e.id] = e; });

  var filters = {
    protocol: document.getElementById("filter-protocol"),
    domain: document.getElementById("filter-domain"),
    outcome: document.getElementById("filter-outcome"),
    config: document.getElementById("filter-config"),
    condition: document.getElementById("filter-condition"),
    mode: document.getElementById("filter-mode")
  };
  var tasks = data.tasks || {};
  var caseInput = document.getElementById("filter-case");
  var list = document.getElementById("episode-list");
  var count = document.getElementById("episode-count");
  var detail = document.getElementById("episode-detail");
  var selected = null;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function options(select, values, labels) {
    values.forEach(function (v, i) {
      select.appendChild(el("option", { value: String(v) }, labels ? labels[i] : v));
    });
  }

  function unique(key) {
    var seen = {};
    episodes.forEach(function (e) { seen[e[key]] = true; });
    return Object.keys(seen).sort();
  }

  var PROTOCOLS = ["Legacy", "V0", "V1", "V2", "V3"];
  options(filters.protocol, PROTOCOLS.filter(function (p) { return unique("protocol").indexOf(p) >= 0; }));
  options(filters.domain, unique("domain"));
  options(filters.outcome, unique("outcome"));
  options(filters.config, configs.map(function (_, i) { return i; }), configs);
  options(filters.condition, unique("condition"));
  options(filters.mode, unique("mode").filter(function (m) { return m !== "null" && m !== "undefined"; }));

  function matches(e) {
    var q = caseInput.value.trim().toUpperCase();
    return (!filters.protocol.value || e.protocol === filters.protocol.value) &&
      (!filters.domain.value || e.domain === filters.domain.value) &&
      (!filters.outcome.value || e.outcome === filters.outcome.value) &&
      (!filters.config.value || String(e.config) === filters.config.value) &&
      (!filters.condition.value || e.condition === filters.condition.value) &&
      (!filters.mode.value || e.mode === filters.mode.value) &&
      (!q || e["case"].toUpperCase().indexOf(q) >= 0);
  }

  function statusClass(e) {
    if (e.score === 1) { return "ok"; }
    if (e.score === 0) { return "fail"; }
    return "missing";
  }

  function renderList() {
    var shown = episodes.filter(matches);
    list.textContent = "";
    shown.slice(0, LIMIT).forEach(function (e) {
      var li = el("li", {
        "data-testid": "episode-item",
        "data-episode-id": e.id,
        "data-case": e["case"],
        "data-protocol": e.protocol,
        "data-domain": e.domain,
        "data-outcome": e.outcome,
        "data-config": configs[e.config]
      });
      if (e.id === selected) { li.className = "selected"; }
      var button = el("button", { type: "button" });
      button.appendChild(el("span", { "class": statusClass(e) }, e.score === 1 ? "✓ " : (e.score === 0 ? "✗ " : "? ")));
      var label = e["case"] + " · " + configs[e.config] + " · " + e.outcome;
      if (e.condition !== "original") { label += " · " + e.condition; }
      if (e.tag) { label += " · " + e.tag; }
      button.appendChild(document.createTextNode(label));
      button.addEventListener("click", function () { show(e.id); });
      li.appendChild(button);
      list.appendChild(li);
    });
    if (shown.length > LIMIT) {
      list.appendChild(el("li", { "class": "more" }, (shown.length - LIMIT) + " more: narrow the filters"));
    }
    count.textContent = shown.length + " of " + episodes.length + " episodes";
    count.setAttribute("data-count", String(shown.length));
  }

  function show(id) {
    var e = byId[id];
    if (!e) { return; }
    selected = id;
    Array.prototype.forEach.call(list.querySelectorAll("li"), function (li) {
      li.className = li.getAttribute("data-episode-id") === id ? "selected" : (li.className === "more" ? "more" : "");
    });
    detail.textContent = "";
    detail.setAttribute("data-episode-id", id);
    detail.appendChild(el("h3", { id: "episode-title", "data-testid": "episode-title" }, e["case"] + " — " + configs[e.config]));
    var dl = el("dl", {});
    [["protocol", e.protocol], ["domain", e.domain], ["condition", e.condition], ["repetition", e.repetition],
     ["run", e.run], ["outcome", e.outcome], ["failure mode", e.mode || "—"], ["end", e.end || "—"]]
      .forEach(function (pair) { dl.appendChild(el("dt", {}, pair[0])); dl.appendChild(el("dd", {}, pair[1])); });
    detail.appendChild(dl);
    var task = tasks[e["case"] + "|" + e.condition];
    if (task) {
      detail.appendChild(el("h4", {}, "Task"));
      detail.appendChild(el("p", { id: "episode-task", "data-testid": "episode-task" }, task));
    }
    detail.appendChild(el("h4", {}, "Trajectory (" + e.steps.length + " steps)"));
    var ol = el("ol", { id: "episode-steps", "data-testid": "episode-steps" });
    e.steps.forEach(function (s) { ol.appendChild(el("li", { "data-testid": "episode-step" }, s)); });
    detail.appendChild(ol);
    detail.appendChild(el("h4", {}, "Evaluator findings"));
    detail.appendChild(el("pre", { id: "episode-findings", "data-testid": "episode-findings" }, e.findings.join("\n")));
  }

  Object.keys(filters).forEach(function (k) { filters[k].addEventListener("change", renderList); });
  caseInput.addEventListener("input", renderList);
  renderList();
  window.safeactbenchBrowser = { show: show, render: renderList };
})();
