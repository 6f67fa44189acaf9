// Refreshes the inbox list in place; the server renders it.
(function () {
  "use strict";
  var box = document.getElementById("inbox");
  if (!box) return;
  function refresh() {
    fetch("/", { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("inbox");
        if (fresh && fresh.innerHTML !== box.innerHTML) box.innerHTML = fresh.innerHTML;
      })
      .catch(function () { /* keep the last list; the next refresh retries */ });
  }
  setInterval(refresh, 5000);
})();
