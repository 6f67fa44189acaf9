// Refreshes the inbox list in place, with its filter; the server renders it.
(function () {
  "use strict";
  var box = document.getElementById("inbox");
  if (!box) return;
  function refresh() {
    fetch(location.pathname + location.search, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("inbox");
        if (!fresh || fresh.innerHTML === box.innerHTML) return;
        // An excerpt a person opened stays open.
        var open = {};
        box.querySelectorAll("tr[data-action-id] details[open]").forEach(function (d) {
          open[d.closest("tr").getAttribute("data-action-id")] = true;
        });
        box.innerHTML = fresh.innerHTML;
        box.querySelectorAll("tr[data-action-id]").forEach(function (tr) {
          var d = tr.querySelector("details");
          if (d && open[tr.getAttribute("data-action-id")]) d.open = true;
        });
      })
      .catch(function () { /* keep the last list; the next refresh retries */ });
  }
  setInterval(refresh, 5000);
})();
