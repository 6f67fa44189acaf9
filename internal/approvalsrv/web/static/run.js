// Keeps the run page live: every run event (Server-Sent Events) fetches the
// server-rendered panel and swaps the parts that changed. The action form is
// kept while its action is unchanged, so a half-typed reason survives.
(function () {
  "use strict";
  var root = document.getElementById("run");
  if (!root) return;
  var runId = root.getAttribute("data-run-id");
  var base = "/runs/" + encodeURIComponent(runId);
  var panel = document.getElementById("panel");
  var result = document.getElementById("decision-result");
  var pending = null;
  // sent is set while a decision this page sent (202) has not been settled:
  // the run may still ignore it (a permission check, a late expiry).
  var sent = false;

  function warningCount() { return panel.querySelectorAll("li.warning").length; }

  // reopen gives the form back after the run ignored a decision: the
  // action is still open, so someone (maybe with another name) may decide.
  function reopen() {
    var forms = panel.querySelectorAll("form.decision");
    if (!sent || !forms.length) return;
    sent = false;
    forms.forEach(function (form) {
      form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
    });
    say("The run did not take that decision; see Refused or ignored.");
  }

  function swapParts(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    var fresh = t.content;
    var same = fresh.querySelectorAll("[data-part]").length === panel.querySelectorAll("[data-part]").length;
    if (same) {
      fresh.querySelectorAll("[data-part]").forEach(function (part, i) {
        var old = panel.querySelectorAll("[data-part]")[i];
        var keep = old.getAttribute("data-part") === part.getAttribute("data-part") &&
          part.getAttribute("data-key") !== "" && old.getAttribute("data-key") === part.getAttribute("data-key");
        if (!keep) old.replaceWith(document.importNode(part, true));
      });
    } else {
      var active = document.activeElement && document.activeElement.id;
      panel.replaceChildren(document.importNode(fresh, true));
      if (active && document.getElementById(active)) document.getElementById(active).focus();
    }
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
          var warnings = warningCount();
          swapParts(html);
          if (warningCount() > warnings) reopen();
        })
        .catch(function () { /* the next event retries */ })
        .finally(function () {
          fetching = false;
          if (again) { again = false; refresh(); }
        });
    }, 100);
  }

  function say(text) {
    result.textContent = text;
    result.hidden = false;
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.classList || !form.classList.contains("decision")) return;
    ev.preventDefault();
    var button = ev.submitter;
    var body = new URLSearchParams(new FormData(form, button));
    if (body.get("decision") === "reject" && !body.get("reason").trim()) {
      say("A rejection needs a reason.");
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
          sent = true;
          say((body.get("decision") === "approve" ? "Approved" : "Rejected") + ": decision sent to the run.");
          refresh();
        } else {
          say("Not sent: " + (res.body.error || ("error " + res.code)));
          form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
        }
      })
      .catch(function () {
        say("Not sent: the server could not be reached.");
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
