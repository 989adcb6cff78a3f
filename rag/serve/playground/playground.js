// The playground: ask, stream the answer in, open cited passages, list search results and
// the run trace. Plain browser JavaScript, no build step, nothing loaded from elsewhere.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const form = $("ask-form"), question = $("question"), askButton = $("ask"), keyInput = $("api-key");
  const answerBox = $("answer"), errorBox = $("error"), results = $("results"), trace = $("trace");
  let sources = [], citations = [];

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

  // The answer as text while it streams; once the server has sent its citations, each
  // citation mark (where the server found it: the page does not guess marks) is a button
  // opening the passage at the quote it ends.
  function renderAnswer(text) {
    answerBox.textContent = "";
    let last = 0;
    citations.forEach((citation, i) => {
      if (citation.mark_start == null || citation.mark_start < last) return;
      if (!sources.some((s) => s.n === citation.n)) return;
      answerBox.append(text.slice(last, citation.mark_start));
      const cite = document.createElement("button");
      cite.type = "button";
      cite.className = "cite";
      cite.textContent = text.slice(citation.mark_start, citation.mark_end);
      cite.dataset.n = String(citation.n);
      cite.setAttribute("aria-label", "Open passage " + citation.n);
      cite.addEventListener("click", () => openPassage(citation.n, i));
      answerBox.append(cite);
      last = citation.mark_end;
    });
    answerBox.append(text.slice(last));
  }

  // Where a citation's quote is in its passage's text: its document offsets less the
  // passage's, checked against the quote's text (null when it is not verbatim there).
  function quoteSpan(source, citation) {
    if (!citation || citation.start == null) return null;
    const from = citation.start - (source.start == null ? 0 : source.start);
    const to = from + citation.text.length;
    if (from >= 0 && to <= source.text.length && source.text.slice(from, to) === citation.text) return [from, to];
    const found = source.text.indexOf(citation.text);
    return found === -1 ? null : [found, found + citation.text.length];
  }

  function openPassage(n, which) {
    const source = sources.find((s) => s.n === n);
    if (!source) return;
    const citation = which == null ? null : citations[which];
    $("passage-n").textContent = "[" + n + "]";
    $("passage-title").textContent = source.title || "";
    // The section and anchor in force at the quote, else the passage's.
    const section = (citation && citation.section) || source.section;
    const anchor = (citation && citation.anchor) || source.anchor;
    $("passage-source").textContent = (source.source || "") + (anchor ? "#" + anchor : "");
    $("passage-position").textContent = (section ? "§ " + section + " " : "") + (source.start == null ? "" :
      "(characters " + source.start + "–" + source.end + ")");
    const body = $("passage-text"), span = quoteSpan(source, citation);
    body.textContent = "";
    body.scrollTop = 0;
    let quote = null;
    if (span) {
      quote = document.createElement("mark");
      quote.id = "passage-quote";
      quote.textContent = source.text.slice(span[0], span[1]);
      body.append(source.text.slice(0, span[0]), quote, source.text.slice(span[1]));
    } else {
      body.textContent = source.text;
    }
    const box = $("passage");
    box.hidden = false;
    box.focus({ preventScroll: true });
    // Instant, not smooth: the quote is in view as soon as the passage opens.
    (quote || box).scrollIntoView({ block: quote ? "center" : "start", behavior: "instant" });
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

  // Reads the server's event stream: token..., sources, answer, trace, end (or error).
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
        else if (event === "answer") {
          const whole = JSON.parse(data);
          answer = whole.text;
          citations = whole.citations;
          renderAnswer(answer);
        }
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
    citations = [];
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
