// The playground: ask, stream the answer in, open cited passages, list search results and
// the run trace. Plain browser JavaScript, no build step, nothing loaded from elsewhere.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const form = $("ask-form"), question = $("question"), askButton = $("ask"), keyInput = $("api-key");
  const answerBox = $("answer"), errorBox = $("error"), results = $("results"), trace = $("trace");
  let sources = [];

  keyInput.value = sessionStorage.getItem("rag-api-key") || "";
  keyInput.addEventListener("change", () => sessionStorage.setItem("rag-api-key", keyInput.value));

  function headers() {
    const h = { "content-type": "application/json" };
    if (keyInput.value) h.authorization = "Bearer " + keyInput.value;
    return h;
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = false;
  }

  async function failure(response) {
    let message = response.status + " " + response.statusText;
    try {
      const body = await response.json();
      message = (body.error && body.error.message) || body.message || message;
    } catch (e) { /* not JSON: keep the status line */ }
    if (response.status === 401) $("key-box").open = true;
    return new Error(message);
  }

  // The answer's text with each [n] that names a known source turned into a button.
  function renderAnswer(text) {
    answerBox.textContent = "";
    const pattern = /\[(\d+)\]/g;
    let last = 0, match;
    while ((match = pattern.exec(text)) !== null) {
      const n = Number(match[1]);
      if (!sources.some((s) => s.n === n)) continue;
      answerBox.append(text.slice(last, match.index));
      const cite = document.createElement("button");
      cite.type = "button";
      cite.className = "cite";
      cite.textContent = match[0];
      cite.dataset.n = String(n);
      cite.setAttribute("aria-label", "Open passage " + n);
      cite.addEventListener("click", () => openPassage(n));
      answerBox.append(cite);
      last = match.index + match[0].length;
    }
    answerBox.append(text.slice(last));
  }

  function openPassage(n) {
    const source = sources.find((s) => s.n === n);
    if (!source) return;
    $("passage-n").textContent = "[" + n + "]";
    $("passage-title").textContent = source.title || "";
    $("passage-source").textContent = (source.source || "") + (source.anchor ? "#" + source.anchor : "");
    const section = source.section ? "§ " + source.section + " " : "";
    $("passage-position").textContent = section + (source.start == null ? "" :
      "(characters " + source.start + "–" + source.end + ")");
    $("passage-text").textContent = source.text;
    const box = $("passage");
    box.hidden = false;
    box.focus();
  }

  function renderTrace(run, parent) {
    const item = document.createElement("li");
    item.textContent = run.name + " (" + run.run_type + ") " +
      (run.duration_ms == null ? "" : run.duration_ms.toFixed(1) + " ms");
    if (run.error) { item.className = "failed"; item.textContent += " — " + run.error; }
    parent.append(item);
    if (run.children && run.children.length) {
      const list = document.createElement("ul");
      item.append(list);
      run.children.forEach((child) => renderTrace(child, list));
    }
  }

  // The tree, and a link to the run on /traces when the server records it in the trace store.
  function showTrace(run) {
    renderTrace(run, trace);
    if (!run.stored || !run.id) return;
    const item = document.createElement("li"), link = document.createElement("a");
    link.href = "/traces#run=" + run.id;
    link.textContent = "Open this run in the trace browser";
    item.className = "trace-link";
    item.append(link);
    trace.append(item);
  }

  async function search(text) {
    const response = await fetch("/search", { method: "POST", headers: headers(), body: JSON.stringify({ query: text }) });
    if (!response.ok) throw await failure(response);
    const body = await response.json();
    results.textContent = "";
    body.results.forEach((r) => {
      const item = document.createElement("li");
      const where = document.createElement("div");
      where.className = "meta";
      where.textContent = (r.title ? r.title + " — " : "") + (r.source || "");
      const score = document.createElement("span");
      score.className = "score";
      score.textContent = " score " + r.score.toFixed(4);
      where.append(score);
      const text = document.createElement("div");
      text.textContent = r.page_content.length > 240 ? r.page_content.slice(0, 237) + "..." : r.page_content;
      item.append(where, text);
      results.append(item);
    });
  }

  // Reads the server's event stream: sources, token..., trace, end (or error).
  async function ask(text) {
    const response = await fetch("/playground/ask", { method: "POST", headers: headers(), body: JSON.stringify({ question: text }) });
    if (!response.ok) throw await failure(response);
    const reader = response.body.getReader(), decoder = new TextDecoder();
    let buffer = "", answer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        let event = "message", data = "";
        block.split(/\r?\n/).forEach((line) => {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data += line.slice(5).trim();
        });
        if (event === "sources") sources = JSON.parse(data);
        else if (event === "token") { answer += JSON.parse(data); renderAnswer(answer); }
        else if (event === "trace") { trace.textContent = ""; showTrace(JSON.parse(data)); }
        else if (event === "error") throw new Error(JSON.parse(data).message);
      }
    }
    if (!answer) renderAnswer("(no answer: the index has nothing on this)");
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = question.value.trim();
    if (!text) { showError("Type a question first."); return; }
    errorBox.hidden = true;
    sources = [];
    answerBox.textContent = "";
    delete answerBox.dataset.done;
    trace.textContent = "";
    $("passage").hidden = true;
    askButton.disabled = true;
    answerBox.setAttribute("aria-busy", "true");
    try {
      await Promise.all([ask(text), search(text)]);
      answerBox.dataset.done = "true";
    } catch (e) {
      showError(e.message);
    } finally {
      askButton.disabled = false;
      answerBox.setAttribute("aria-busy", "false");
    }
  });
})();
