// Keeps the run page live: every run event (Server-Sent Events) fetches the
// server-rendered panel and swaps the parts that changed: the run's forms
// too, cancel while it is open and follow-up once it has ended. A form is
// kept while its part is unchanged, so a half-typed reason survives.
(function () {
  "use strict";
  var root = document.getElementById("run");
  if (!root) return;
  var runId = root.getAttribute("data-run-id");
  var base = "/runs/" + encodeURIComponent(runId);
  var panel = document.getElementById("panel");
  var result = document.getElementById("decision-result");
  var pending = null;
  // sent is the decision this page sent (202) and the run has not settled
  // yet: the run may still ignore it (a permission check, a late expiry).
  // It names the action's section, where its answer shows.
  var sent = null;
  // answer is the last word on a decision, kept across panel swaps: the
  // section it shows in is redrawn when the action's state changes.
  var answer = null;

  // settle reads what the run made of the decision sent: a refusal of it
  // (with the run's own reason), or the action decided. A refused
  // decision's form comes back: the action is still open, so someone
  // (maybe with another name) may decide.
  function settle(warningsBefore) {
    if (!sent) return;
    var warnings = panel.querySelectorAll("li.warning");
    if (warnings.length > warningsBefore) {
      var refused = warnings[0]; // newest first
      for (var i = 0; i < warnings.length - warningsBefore; i++) {
        if (warnings[i].getAttribute("data-action-id") === sent.actionId) { refused = warnings[i]; break; }
      }
      var reason = refused.querySelector(".refusal-reason");
      var forms = panel.querySelectorAll("form.decision");
      forms.forEach(function (form) {
        form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
      });
      answerAt(sent.section, "Not taken: the run refused this decision: " +
        (reason ? reason.textContent.trim() : "see Refused or ignored") + ".");
      sent = null;
      return;
    }
    var section = sent.section && document.getElementById(sent.section);
    var state = section && section.getAttribute("data-state");
    if (state && state !== "waiting") {
      var facts = section.querySelector("[id^=action-state]");
      answerAt(sent.section, "Taken: " + (facts ? facts.textContent.trim() : state) + ".");
      sent = null;
    }
  }

  // answerAt says text in the section where the person acted, or at the
  // top of the page for a form that has none (approve all).
  function answerAt(sectionId, text) {
    answer = { section: sectionId, text: text };
    showAnswer();
  }

  function showAnswer() {
    if (!answer) return;
    var section = answer.section && document.getElementById(answer.section);
    var el = (section && section.querySelector("[data-answer]")) || result;
    el.textContent = answer.text;
    el.hidden = false;
  }

  // swapParts puts the fresh panel in place. A part whose key is the same
  // on both sides is the very node left on the page, unmoved, so that what
  // a person typed into it, and their focus, stay.
  function swapParts(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    var olds = Array.prototype.slice.call(panel.children);
    var wanted = Array.prototype.map.call(t.content.children, function (part) {
      var name = part.getAttribute("data-part");
      var key = part.getAttribute("data-key");
      if (name && key) {
        for (var i = 0; i < olds.length; i++) {
          if (olds[i] && olds[i].getAttribute("data-part") === name && olds[i].getAttribute("data-key") === key) {
            var kept = olds[i];
            olds[i] = null;
            return kept;
          }
        }
      }
      return document.importNode(part, true);
    });
    olds.forEach(function (old) { if (old) old.remove(); });
    var cursor = panel.firstElementChild;
    wanted.forEach(function (node) {
      if (node === cursor) { cursor = cursor.nextElementSibling; return; }
      panel.insertBefore(node, cursor);
    });
  }

  // One panel fetch at a time: two in flight may answer out of order, and
  // an older panel swapped in last would show a finished run as running,
  // with no event left to correct it. A refresh asked for meanwhile fetches
  // once more when the one in flight has answered.
  var fetching = false;
  var again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      fetching = true;
      fetch(base + "/panel", { cache: "no-store" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          var warnings = panel.querySelectorAll("li.warning").length;
          swapParts(html);
          settle(warnings);
          showAnswer();
        })
        .catch(function () { /* the next event retries */ })
        .finally(function () {
          fetching = false;
          if (again) { again = false; refresh(); }
        });
    }, 100);
  }

  var sentWords = { approve: "Approved", reject: "Rejected", respond: "Feedback sent" };

  // showChanges puts the edit's changes against the model's proposal
  // (the server's diff) under the edit fields; nothing is sent to the run.
  function showChanges(form) {
    var body = new URLSearchParams(new FormData(form));
    body.set("decision", "changes");
    var box = form.querySelector("[data-edit-changes]");
    if (!box) return;
    fetch(form.action + "?part=changes", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: body,
    })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) { box.innerHTML = html; })
      .catch(function () { /* the Show changes button asks again */ });
  }
  var changesTimer = null;
  document.addEventListener("input", function (ev) {
    var field = ev.target;
    if (!field.hasAttribute || !field.hasAttribute("data-edit-field")) return;
    var form = field.closest("form.decision");
    clearTimeout(changesTimer);
    changesTimer = setTimeout(function () { showChanges(form); }, 400);
  });

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.classList || !form.classList.contains("decision")) return;
    ev.preventDefault();
    var button = ev.submitter;
    if (button && button.value === "changes") {
      showChanges(form);
      return;
    }
    var section = form.closest("section.action[id]");
    var sectionId = section ? section.id : null;
    var body = new URLSearchParams(new FormData(form, button));
    if (body.get("decision") === "reject" && !body.get("reason").trim()) {
      answerAt(sectionId, "A rejection needs a reason.");
      form.querySelector("textarea[name=reason]").focus();
      return;
    }
    form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    fetch(form.action, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: body,
    })
      .then(function (r) { return r.json().then(function (j) { return { code: r.status, body: j }; }); })
      .then(function (res) {
        if (res.code === 202) {
          sent = { section: sectionId, actionId: body.get("actionId") || (sectionId && section.id.slice("action-".length)) };
          answerAt(sectionId, (sentWords[body.get("decision")] || "Sent") + ": decision sent to the run.");
          refresh();
        } else {
          // Of the decision, never of the action: an approval replayed
          // after the action was done changed nothing, and the action's own
          // fate is in its section.
          answerAt(sectionId, (res.code === 409 ? "Your decision changed nothing: " : "Your decision was refused: ") +
            (res.body.error || ("error " + res.code)));
          form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
        }
      })
      .catch(function () {
        answerAt(sectionId, "Your decision was not sent: the server could not be reached.");
        form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
      });
  });

  // What the model is writing is no run event: while it shows, the panel
  // is fetched again every second.
  setInterval(function () { if (panel.querySelector("[data-writing]")) refresh(); }, 1000);

  if (root.getAttribute("data-ended") === "true" || !window.EventSource) return;
  // The browser gives up on a stream the server refused (429 when the server
  // is at its stream cap, 401, 503): reopen it later, backing off, so the
  // page does not silently stop updating.
  var retryMs = 10000;
  function listen() {
    var events = new EventSource(base + "/events");
    events.onopen = function () { retryMs = 10000; };
    events.onmessage = refresh;
    events.addEventListener("refusal", refresh);
    events.addEventListener("end", function () {
      events.close();
      refresh();
    });
    events.onerror = function () {
      if (events.readyState !== EventSource.CLOSED) return;
      setTimeout(function () { refresh(); listen(); }, retryMs);
      retryMs = Math.min(retryMs * 2, 120000);
    };
  }
  listen();
})();
