// The trace page: list traces from the store with filters, open one as a collapsible tree
// with timing bars, inputs, outputs, retrieved documents and errors. Plain browser
// JavaScript, no build step, nothing loaded from elsewhere; data is only ever set as text.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const form = $("filters"), keyInput = $("api-key"), errorBox = $("error"), list = $("runs"), more = $("more");
  const detail = $("detail"), tree = $("tree");
  let nextBefore = null;

  keyInput.value = sessionStorage.getItem("rag-api-key") || "";
  keyInput.addEventListener("change", () => sessionStorage.setItem("rag-api-key", keyInput.value));

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function showError(message) { errorBox.textContent = message; errorBox.hidden = false; }

  async function getJSON(path) {
    const headers = {};
    if (keyInput.value) headers.authorization = "Bearer " + keyInput.value;
    const response = await fetch(path, { headers: headers });
    let body = null;
    try { body = await response.json(); } catch (e) { /* not JSON: the status line below */ }
    if (!response.ok) {
      if (response.status === 401) $("key-box").open = true;
      throw new Error((body && (body.message || (body.error && body.error.message))) || response.status + " " + response.statusText);
    }
    errorBox.hidden = true;
    return body;
  }

  const ms = (value) => value == null ? "–" : (value < 10 ? value.toFixed(2) : value.toFixed(0)) + " ms";
  const when = (iso) => iso ? iso.slice(0, 19).replace("T", " ") + " UTC" : "";

  function query(before) {
    const params = new URLSearchParams();
    [["project", $("project").value], ["name", $("name").value.trim()], ["status", $("status").value],
     ["slower_than", $("slower").value], ["since", $("since").value]].forEach(([k, v]) => { if (v) params.set(k, v); });
    if (before != null) params.set("before", String(before));
    params.set("limit", "50");
    return "/traces/api/traces?" + params.toString();
  }

  function traceItem(trace) {
    const item = el("li");
    const link = el("a", null, trace.name);
    link.href = "#run=" + trace.trace_id;
    link.setAttribute("aria-label", "Open " + trace.name + " started " + when(trace.start_time));
    const status = el("span", "status-" + trace.status, trace.status === "error" ? "failed" : "ok");
    if (trace.error) status.title = trace.error;
    item.append(link, el("span", "latency", ms(trace.duration_ms)),
      el("span", "tokens", trace.total_tokens ? trace.total_tokens + " tokens" : "no tokens"), status,
      el("span", "when", when(trace.start_time) + " · " + trace.project + " · " + trace.runs + " runs"));
    return item;
  }

  async function loadTraces(append) {
    const body = await getJSON(query(append ? nextBefore : null));
    $("db").textContent = body.db;
    if (!append) list.textContent = "";
    body.traces.forEach((trace) => list.append(traceItem(trace)));
    nextBefore = body.next_before;
    more.hidden = nextBefore == null;
    const shown = list.children.length;
    $("count").textContent = shown ? shown + (nextBefore == null ? "" : "+") + " traces" : "No traces match.";
    list.dataset.loaded = "true";
  }

  async function loadProjects() {
    const body = await getJSON("/traces/api/projects?names=1");
    const select = $("project"), chosen = select.value;
    while (select.options.length > 1) select.remove(1);
    body.projects.forEach((p) => {
      const option = el("option", null, p.project);
      option.value = p.project;
      select.append(option);
    });
    select.value = chosen;
  }

  function pre(value) {
    return el("pre", null, typeof value === "string" ? value : JSON.stringify(value, null, 1));
  }

  function documentsOf(outputs) {
    const docs = outputs && !Array.isArray(outputs) && typeof outputs === "object" ? outputs.documents : null;
    return Array.isArray(docs) && docs.length && typeof docs[0] === "object" ? docs : null;
  }

  // What a run took and gave. Errors, retrieved documents, tokens and feedback show at
  // once; inputs, outputs, tags and metadata fold away so that the tree stays readable.
  function runBody(run, selected) {
    const body = el("div", "body");
    const add = (parent, title, node) => { parent.append(el("h3", null, title), node); };
    if (run.error) add(body, "Error", el("pre", "failed", run.error));
    const docs = documentsOf(run.outputs);
    if (docs) {
      const listing = el("ol", "docs");
      docs.forEach((d) => {
        const source = (d.metadata && d.metadata.source) || "(no source)";
        const text = String(d.page_content || "");
        listing.append(el("li", null, source + " — " + (text.length > 300 ? text.slice(0, 297) + "..." : text)));
      });
      add(body, "Retrieved documents", listing);
    }
    if (run.total_tokens) add(body, "Tokens", el("p", null, "in " + (run.input_tokens || 0) + ", out " + (run.output_tokens || 0) + ", total " + run.total_tokens));
    (run.feedback || []).forEach((f) => add(body, "Feedback", el("p", null, f.key + " = " + f.score + (f.comment ? " (" + f.comment + ")" : ""))));
    const io = el("details", "io");
    io.open = selected;
    io.append(el("summary", null, "Inputs and outputs"));
    if (run.inputs != null) add(io, "Inputs", pre(run.inputs));
    if (run.outputs != null && !docs) add(io, "Outputs", pre(run.outputs));
    if (run.tags && run.tags.length) add(io, "Tags", el("p", null, run.tags.join(", ")));
    if (run.metadata && Object.keys(run.metadata).length) add(io, "Metadata", pre(run.metadata));
    (run.notes || []).forEach((note) => add(io, "Note", el("p", "note", note)));
    body.append(io);
    return body;
  }

  function renderTree(found) {
    tree.textContent = "";
    const runs = found.runs;
    if (!runs.length) return;
    const t0 = Date.parse(runs[0].start_time), total = Math.max(runs[0].duration_ms || 0, 0.001);
    const open = new Map();  // run id -> its <details>, to nest children under parents
    runs.forEach((run) => {
      const box = el("details", run.error ? "run failed" : "run");
      box.open = run.depth < 2 || run.error != null || run.id === found.selected;
      box.dataset.runId = run.id;
      box.dataset.runType = run.run_type;
      if (run.id === found.selected && run.depth > 0) box.classList.add("selected");
      const summary = el("summary");
      summary.append(el("span", "name", run.name), el("span", "kind", run.run_type), el("span", "duration", ms(run.duration_ms)));
      const bar = el("span", "bar"), fill = el("span");
      const offset = Math.min(Math.max((Date.parse(run.start_time) - t0) / total, 0), 1);
      const width = Math.min((run.duration_ms || 0) / total, 1 - offset);
      fill.style.left = (offset * 100).toFixed(2) + "%";
      fill.style.width = (width * 100).toFixed(2) + "%";
      bar.setAttribute("aria-hidden", "true");
      bar.append(fill);
      summary.append(bar);
      if (run.error) summary.append(el("span", "failed", "error"));
      box.append(summary, runBody(run, run.id === found.selected));
      const parent = run.parent_run_id && open.get(run.parent_run_id);
      (parent || tree).append(box);
      open.set(run.id, box);
    });
    // Ancestors of the run asked for are opened, so it is in view.
    let node = tree.querySelector(".selected");
    while (node && node !== tree) { if (node.tagName === "DETAILS") node.open = true; node = node.parentElement; }
  }

  async function openRun(id) {
    const found = await getJSON("/traces/api/runs/" + encodeURIComponent(id));
    const t = found.trace;
    $("detail-heading").textContent = "Trace: " + (t.name || found.runs[0].name);
    $("detail-meta").textContent = when(t.start_time) + " · " + (t.project || "") + " · " + ms(t.duration_ms) + " · " +
      (t.runs || found.runs.length) + " runs" + (t.errors ? " · " + t.errors + " failed" : "") + " · id " + t.trace_id;
    renderTree(found);
    detail.hidden = false;
    detail.dataset.loaded = "true";
    detail.focus();
  }

  function fromHash() {
    const match = /^#run=([0-9a-fA-F-]+)$/.exec(location.hash);
    if (match) openRun(match[1]).catch((e) => showError(e.message));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    loadTraces(false).catch((e) => showError(e.message));
  });
  more.addEventListener("click", () => loadTraces(true).catch((e) => showError(e.message)));
  $("expand").addEventListener("click", () => tree.querySelectorAll("details.run").forEach((d) => { d.open = true; }));
  $("collapse").addEventListener("click", () => tree.querySelectorAll("details.run").forEach((d) => { d.open = false; }));
  keyInput.addEventListener("change", () => { loadProjects().then(() => loadTraces(false)).catch((e) => showError(e.message)); fromHash(); });
  window.addEventListener("hashchange", fromHash);

  loadProjects().catch(() => { /* the list below reports the error */ });
  loadTraces(false).catch((e) => showError(e.message));
  fromHash();
})();
